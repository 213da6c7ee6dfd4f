// The Frobenius tables of the Fq2 -> Fq6 -> Fq12 towers (BLS12-381 and
// BN254), each derived at first use from its xi and p alone, so no long constant table is typed in. Not on a
// hot path: a Frobenius map is applied a handful of times per pairing.
#include <cstdint>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/ff/fq12.hpp"

namespace proofpipe::ff {
namespace {

// a / d and a mod d for a small divisor d (schoolbook, top limb down).
template <size_t N>
constexpr Limbs<N> div_small(const Limbs<N>& a, uint64_t d, uint64_t* rem_out = nullptr) {
  Limbs<N> q{};
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a[i];
    q[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  if (rem_out) *rem_out = uint64_t(rem);
  return q;
}

template <size_t N>
constexpr uint64_t mod_small(const Limbs<N>& a, uint64_t d) {
  uint64_t r = 0;
  div_small(a, d, &r);
  return r;
}

template <class T>
FrobeniusTableT<T> make_table() {
  using Fq2 = Fq2T<T>;
  constexpr auto kP = T::Fq::C::kP;
  static_assert(mod_small(kP, 6) == 1, "p = 1 mod 6 (sextic twist), so (p - 1)/6 is exact");
  const Fq2 xi = Fq2::one().mul_by_xi();
  FrobeniusTableT<T> t{};
  // g1 = xi^((p-1)/6). The others follow without another exponentiation:
  // (p^2 - 1)/6 = (p - 1)/6 * (p + 1) and g^p = conj(g) in Fq2, so
  // g2 = g1 * conj(g1) (a norm, hence in Fq); likewise g3 = g1^(p^2 + p + 1) = g2 * g1.
  Fq2 g[4];
  g[1] = xi.pow(div_small(limbs_sub_u64(kP, 1), 6));
  g[2] = g[1] * g[1].conj();
  g[3] = g[2] * g[1];
  for (int k = 1; k <= 3; ++k) {
    Fq2 acc = Fq2::one();
    for (int e = 0; e < 6; ++e) {
      t.gamma[k][e] = acc;
      acc = acc * g[k];
    }
  }
  return t;
}

}  // namespace

template <class T>
const FrobeniusTableT<T>& frobenius_table() {
  static const FrobeniusTableT<T> kTable = make_table<T>();
  return kTable;
}

template const FrobeniusTableT<bls12_381::Tower>& frobenius_table<bls12_381::Tower>();
template const FrobeniusTableT<bn254::Tower>& frobenius_table<bn254::Tower>();

}  // namespace proofpipe::ff
