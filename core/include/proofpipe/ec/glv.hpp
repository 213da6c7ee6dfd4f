// GLV scalar decomposition (Gallant, Lambert, Vanstone 2001): for a group
// with an endomorphism phi(P) = [lambda]P that costs one or two field
// multiplications, k = k0 + k1 * lambda (mod r) with |k0|, |k1| < 2^127, so
// k * P = k0 * P + k1 * phi(P) needs scalars half as long. The MSM uses it to
// halve its windows (msm/pippenger.hpp); curves opt in by specialising
// ec::Glv<Cfg> (ec/bn254.hpp).
//
// The split is Babai rounding against a reduced basis v1 = (a1, b1),
// v2 = (a2, b2) of the lattice {(a, b) : a + b * lambda = 0 mod r}, with
// det = a1 b2 - a2 b1 = r and b1 <= 0 <= b2:
//   c1 = round(k * b2 / r), c2 = round(-k * b1 / r),
//   k0 = k - c1 a1 - c2 a2,  k1 = -c1 b1 - c2 b2.
// The quotients come from g1 = floor(b2 2^256 / r), g2 = floor(-b1 2^256 / r)
// as c = (k g + 2^255) >> 256. With e_i = k b/r - c_i in [-1/2, 3/4) for
// k < 2^254, k0 = e1 a1 + e2 a2 and k1 = e1 b1 + e2 b2, so |k0| <= 3/4
// (|a1| + |a2|) and |k1| <= 3/4 (|b1| + |b2|); both bases here have entries
// under 2^126.8, hence kGlvBits = 127. tests/core/glv_test.cpp checks
// every constant against GMP. Host code only (the CUDA MSM does not use it).
#pragma once

#include <cstdint>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/ff/limbs.hpp"

namespace proofpipe::ec {

// Bits of |k0|, |k1| (see above).
inline constexpr unsigned kGlvBits = 127;

struct GlvBasis {
  ff::Limbs<4> a1, b1, a2, b2;  // two's complement mod 2^256
  ff::Limbs<3> g1, g2;          // floor(b2 2^256 / r), floor(-b1 2^256 / r)
};

// Specialised per group with: static constexpr GlvBasis kBasis; static
// constexpr Limbs<4> kLambda; static Affine<Cfg> apply(const Affine<Cfg>&)
// (phi, with phi(identity) = identity). Left undefined: no endomorphism.
template <class Cfg>
struct Glv;

template <class Cfg>
concept HasGlv = requires {
  Glv<Cfg>::kBasis;
};

// One half of a split scalar: its magnitude and sign.
struct GlvHalf {
  ff::Limbs<2> k;
  bool neg;
};

namespace glv_detail {

using u128 = unsigned __int128;

// (k * g + 2^255) >> 256 mod 2^128 for k < 2^256 and a 3-limb g: the low
// half of the rounded quotient, all that the split's arithmetic mod 2^128
// needs (the quotient itself is below 2^131 here).
inline u128 round_quotient(const ff::Limbs<4>& k, const ff::Limbs<3>& g) {
  uint64_t prod[7] = {};
  for (size_t i = 0; i < 4; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < 3; ++j) {
      const u128 t = u128(k[i]) * g[j] + prod[i + j] + carry;
      prod[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    prod[i + 3] = carry;
  }
  // + 2^255: bit 63 of limb 3, carried into limbs 4..5.
  const uint64_t carry = uint64_t((u128(prod[3]) + (uint64_t(1) << 63)) >> 64);
  return ((u128(prod[5]) << 64) | prod[4]) + carry;
}

// The low 128 bits of a two's complement 256-bit value.
inline u128 low128(const ff::Limbs<4>& v) { return (u128(v[1]) << 64) | v[0]; }

// Two's complement 128-bit value known to lie in (-2^127, 2^127) ->
// magnitude, sign.
inline GlvHalf to_half(u128 v) {
  const bool neg = (v >> 127) != 0;
  if (neg) v = u128(0) - v;
  PP_ASSERT((v >> 127) == 0, "glv: half above 2^127 (basis constants broken)");
  return {{uint64_t(v), uint64_t(v >> 64)}, neg};
}

}  // namespace glv_detail

// k (canonical, below 2^254) -> (k0, k1) with k = k0 + k1 * lambda mod r.
// k0 and k1 lie in (-2^127, 2^127) (see above), so they are computed modulo
// 2^128 from the low halves: 4 products of 128-bit words, after the two
// quotients (12 64-bit products each). ~35 ns.
inline void glv_split(const ff::Limbs<4>& k, const GlvBasis& b, GlvHalf* k0, GlvHalf* k1) {
  using glv_detail::low128;
  using glv_detail::u128;
  PP_DEBUG_ASSERT((k[3] >> 62) == 0, "glv: scalar above 2^254");
  const u128 c1 = glv_detail::round_quotient(k, b.g1), c2 = glv_detail::round_quotient(k, b.g2);
  *k0 = glv_detail::to_half(low128(k) - c1 * low128(b.a1) - c2 * low128(b.a2));
  *k1 = glv_detail::to_half(u128(0) - c1 * low128(b.b1) - c2 * low128(b.b2));
}

}  // namespace proofpipe::ec
