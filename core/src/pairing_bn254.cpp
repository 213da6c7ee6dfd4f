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
    static const Fq2 k3b = G2Cfg::b().dbl() + G2Cfg::b();
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
  struct Active {
    const G1G2Pair* in;
    TwistProj t;
  };
  std::vector<Active> act;
  act.reserve(pairs.size());
  for (const G1G2Pair& pq : pairs) {
    if (pq.first.is_identity() || pq.second.is_identity()) continue;
    act.push_back({&pq, {pq.second.x, pq.second.y, Fq2::one()}});
  }
  Fq12 f = Fq12::one();
  if (act.empty()) return f;
  const Naf& n = naf();
  // The top digit is 1: T starts at Q. For Q of order r, the multiples met
  // here are never O or +-Q's partner (6u + 2 < r), so no exceptional case.
  for (int i = 1; i < n.len; ++i) {
    if (i != 1) f = f.sqr();
    for (Active& a : act) f = mul_by_line(f, pairing::detail::doubling_step<BnTwist>(a.t), a.in->first);
    const int8_t d = n.d[size_t(i)];
    if (d == 0) continue;
    for (Active& a : act) {
      const G2Affine& q = a.in->second;
      const Fq2 qy = d > 0 ? q.y : -q.y;
      f = mul_by_line(f, pairing::detail::addition_step(a.t, q.x, qy), a.in->first);
    }
  }
  // T = [6u + 2]Q. Then T += pi(Q) with its line, and the line to -pi^2(Q).
  const auto& fr = ff::frobenius_table<Tower>();
  for (Active& a : act) {
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
  // Hard part (p^4 - p^2 + 1)/r = l3 p^3 + l2 p^2 + l1 p + l0 with
  // l3 = 1, l2 = 6u^2 + 1, l1 = -36u^3 - 18u^2 - 12u + 1,
  // l0 = -36u^3 - 30u^2 - 18u - 2, evaluated by Scott et al.'s chain.
  const Fq12 fu = pow_u(m), fu2 = pow_u(fu), fu3 = pow_u(fu2);
  const Fq12 y0 = m.frobenius(1) * m.frobenius(2) * m.frobenius(3);
  const Fq12 y1 = m.conj();
  const Fq12 y2 = fu2.frobenius(2);
  const Fq12 y3 = fu.frobenius(1).conj();
  const Fq12 y4 = (fu * fu2.frobenius(1)).conj();
  const Fq12 y5 = fu2.conj();
  const Fq12 y6 = (fu3 * fu3.frobenius(1)).conj();
  Fq12 t0 = y6.cyclotomic_sqr() * y4 * y5;
  Fq12 t1 = y3 * y5 * t0;
  t0 = t0 * y2;
  t1 = (t1.cyclotomic_sqr() * t0).cyclotomic_sqr();
  t0 = t1 * y1;
  t1 = t1 * y0;
  return t0.cyclotomic_sqr() * t1;
}

Fq12 pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Fq12 multi_pairing(std::span<const G1G2Pair> pairs) { return final_exponentiation(multi_miller_loop(pairs)); }

bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return multi_pairing(pairs).is_one(); }

}  // namespace proofpipe::bn254
