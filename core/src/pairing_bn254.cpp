// Miller loop and final exponentiation of the BN254 optimal ate pairing
// (pairing/bn254.hpp has the definition and references). The point steps
// are the ones BLS12-381 uses (pairing/detail/miller_steps.hpp); here the
// lines land in the D-type twist's places and the loop runs over 6u + 2.
#include "proofpipe/pairing/bn254.hpp"

#include <array>
#include <vector>

#include "proofpipe/pairing/detail/miller_steps.hpp"

namespace proofpipe::bn254 {
namespace {

// b' = 3/xi; 3b' as a constant for the doubling step (one Fq2 product).
struct BnTwist {
  static Fq2 mul_by_3b(const Fq2& a) {
    static constexpr Fq2 k3b = G2Cfg::b().dbl() + G2Cfg::b();
    return a * k3b;
  }
};
using TwistProj = pairing::detail::TwistProj<Fq2>;
using Line = pairing::detail::Line<Fq2>;

// D-type: the line's value is (c4 yP) + (c1 xP) w + c0 vw.
inline Fq12 mul_by_line(const Fq12& f, const Line& l, const G1Affine& p) {
  return f.mul_by_034(l.c4.mul_fq(p.y), l.c1.mul_fq(p.x), l.c0);
}

// 6u + 2 = 0x19d797039be763ba8 (65 bits) in non-adjacent form, most
// significant digit first: 66 digits, 22 of them non-zero (against 34 ones
// in plain binary), so 21 addition steps after the first.
struct Naf {
  std::array<int8_t, 68> d{};
  int len = 0;
};
Naf loop_naf() {
  Naf n;
  unsigned __int128 k = (unsigned __int128)(6) * kU + 2;
  std::array<int8_t, 68> lsb{};
  int len = 0;
  while (k != 0) {
    int8_t digit = 0;
    if (k & 1) {
      digit = int8_t(2 - int(k & 3));  // 1 when k = 1 mod 4, -1 when 3 mod 4
      k = digit > 0 ? k - 1 : k + 1;
    }
    lsb[size_t(len++)] = digit;
    k >>= 1;
  }
  for (int i = 0; i < len; ++i) n.d[size_t(i)] = lsb[size_t(len - 1 - i)];
  n.len = len;
  return n;
}
const Naf& naf() {
  static const Naf kNaf = loop_naf();
  return kNaf;
}

// m^u by square-and-multiply with cyclotomic squarings (m in the cyclotomic
// subgroup; u > 0, 63 bits): 62 squarings, 25 multiplications.
Fq12 pow_u(const Fq12& m) {
  Fq12 r = m;
  for (int i = 61; i >= 0; --i) {
    r = r.cyclotomic_sqr();
    if ((kU >> i) & 1) r = r * m;
  }
  return r;
}
static_assert((kU >> 62) == 1, "pow_u starts below bit 62");

}  // namespace

G2Affine twist_frobenius(const G2Affine& q) {
  if (q.is_identity()) return q;
  const auto& t = ff::frobenius_table<Tower>();
  return {q.x.conj() * t.gamma[1][2], q.y.conj() * t.gamma[1][3]};
}

Fq12 multi_miller_loop(std::span<const G1G2Pair> pairs) {
  auto act = pairing::detail::active_pairs<Fq2>(pairs);  // identity pairs dropped (miller_steps.hpp)
  Fq12 f = Fq12::one();
  if (act.empty()) return f;
  const Naf& n = naf();
  // The top digit is 1: T starts at Q. For Q of order r, the multiples met
  // here are never O or +-Q's partner (6u + 2 < r), so no exceptional case.
  for (int i = 1; i < n.len; ++i) {
    if (i != 1) f = f.sqr();
    for (auto& a : act) f = mul_by_line(f, pairing::detail::doubling_step<BnTwist>(a.t), a.in->first);
    const int8_t d = n.d[size_t(i)];
    if (d == 0) continue;
    for (auto& a : act) {
      const G2Affine& q = a.in->second;
      const Fq2 qy = d > 0 ? q.y : -q.y;
      f = mul_by_line(f, pairing::detail::addition_step(a.t, q.x, qy), a.in->first);
    }
  }
  // T = [6u + 2]Q. Then T += pi(Q) with its line, and the line to -pi^2(Q).
  const auto& fr = ff::frobenius_table<Tower>();
  for (auto& a : act) {
    const G2Affine& q = a.in->second;
    const G2Affine q1 = twist_frobenius(q);
    const Fq2 q2x = q.x * fr.gamma[2][2], q2y_neg = -(q.y * fr.gamma[2][3]);
    f = mul_by_line(f, pairing::detail::addition_step(a.t, q1.x, q1.y), a.in->first);
    f = mul_by_line(f, pairing::detail::addition_step(a.t, q2x, q2y_neg), a.in->first);
  }
  return f;
}

Fq12 miller_loop(const G1Affine& p, const G2Affine& q) {
  G1G2Pair pq{p, q};
  return multi_miller_loop(std::span<const G1G2Pair>(&pq, 1));
}

Fq12 final_exponentiation(const Fq12& f) {
  // Easy part: m = f^((p^6 - 1)(p^2 + 1)), then m is cyclotomic.
  Fq12 m = f.conj() * f.inverse();
  m = m.frobenius(2) * m;
  // Hard part: m^(c (p^4 - p^2 + 1)/r) with c = 2u(6u^2 + 3u + 1), by the
  // chain of Fuentes-Castaneda, Knapp, Rodriguez-Henriquez ("Faster hashing
  // to G2", SAC 2011, §5.2): three exponentiations by u, 12 multiplications,
  // 3 cyclotomic squarings, 3 Frobenius maps. The exponents in the comments
  // are of m.
  const Fq12 a = pow_u(m).conj();      // -u
  const Fq12 b = a.cyclotomic_sqr();   // -2u
  const Fq12 c = b.cyclotomic_sqr();   // -4u
  const Fq12 d = c * b;                // -6u
  const Fq12 e = pow_u(d).conj();      // 6u^2
  const Fq12 e2 = e.cyclotomic_sqr();  // 12u^2
  const Fq12 g = pow_u(e2).conj();     // -12u^3
  const Fq12 h = d.conj();             // 6u
  const Fq12 i = g.conj();             // 12u^3
  const Fq12 k = i * e * h;            // 12u^3 + 6u^2 + 6u
  const Fq12 l = k * b;                // 12u^3 + 6u^2 + 4u
  const Fq12 n = k * e * m;            // 12u^3 + 12u^2 + 6u + 1
  const Fq12 r = l.frobenius(1) * n * k.frobenius(2);
  return (m.conj() * l).frobenius(3) * r;
}

Fq12 pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Fq12 multi_pairing(std::span<const G1G2Pair> pairs) { return final_exponentiation(multi_miller_loop(pairs)); }

bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return multi_pairing(pairs).is_one(); }

}  // namespace proofpipe::bn254
