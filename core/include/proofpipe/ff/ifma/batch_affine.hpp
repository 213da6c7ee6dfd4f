// The arithmetic of one batch of affine chord additions (the MSM's
// batch-affine buckets, msm/buckets.hpp) on eight IFMA lanes: prefix
// products, one shared inversion, then lambda, x3 and y3 per entry. The
// caller has already handled the special cases in scalar code and supplies,
// per entry k, den = x2 - x1 (or 2y, or 1), num = y2 - y1 (or 3x^2),
// s = x1 + x2, x1 and y1, all ff::Field values (Montgomery R64 = 2^(64N)),
// or for G2 ff::Fq2T ones (the same form per coordinate).
//
// No conversion products. Inputs enter as raw integers (x*R64 repacked to
// radix 2^52) and results leave the same way, because the Montgomery factors
// are folded into the products the addition needs anyway. Writing f for the
// power of two an integer carries (it holds value * 2^f mod p), a radix-2^52
// product of f1 and f2 gives f1 + f2 - R with R = 52L; inputs carry
// I = 64N; D = R - I is 4 for the 4-limb fields, 32 for BLS12-381's Fq.
//   inputs (den, num, s, x1, y1)           I
//   prefix before group g (acc starts 1)   R - D*g
//   running inverse at group g             R + D/2 + D*g
//   1/den = running * prefix               R + D/2
//   lambda = num * 1/den                   I + D/2
//   lambda^2                               I        -> x3 = lambda^2 - s
//   t = (x1 - x3) * 2^(D/2)                I + D/2
//   lambda * t                             I        -> y3 = lambda*t - y1
// The running inverse of the last group G - 1 must carry R + D*G - D/2,
// against the lane total A = prod(den) * 2^(R - D*G): as an integer that is
// 2^(2R - D/2) / A whatever G is. ff::Field's inverse of the element with
// Montgomery limbs A has limbs 2^(2I) / A; one scalar product by the
// element with limbs 2^(I + 3D/2) moves it there. The 2^(D/2) of t is two
// modular doublings for D = 4 and one product by a constant for D = 32.
#pragma once

#include <cstddef>

#include "proofpipe/ff/ifma/field8.hpp"
#include "proofpipe/ff/ifma/fq2x8.hpp"
#if defined(PP_IFMA_COMPILED)

namespace proofpipe::ff::ifma {

// Entry k's inputs are slots[k * stride + {0: den, 1: num, 2: s, 3: x1,
// 4: y1}]; den must be non-zero. Writes x3 to out[2k] and y3 to out[2k + 1]
// (an ec::Affine array), reduced. scratch: 2 * ceil(m / 8) lane Packs.
// F is ff::Field (G1, on Field8 lanes) or ff::Fq2T (G2, on Fq2x8 lanes); one
// loop serves both because the lane types answer the same calls and an
// Fq2x8 product keeps the factor law above (fq2x8.hpp), so every factor,
// kLaneFix and kTFix included, is a power of two in the base field Fq: the
// Fq2 constants are base-field ones (1 = (1, 0)), applied per coordinate.
template <class F>
PP_IFMA_TARGET void batch_affine_chord(const F* slots, size_t stride, size_t m, F* out,
                                       typename LanePack<F>::type* scratch) {
  using V = typename LanePack<F>::type::Lanes;
  using Fq = typename V::Base::F;
  using K = typename V::Base::K;
  using P = typename Fq::Params;
  constexpr size_t kD = 52 * K::L - 64 * K::N;
  static_assert(kD % 2 == 0 && kD > 0, "the factor bookkeeping needs an even, positive R52/R64 exponent gap");
  constexpr Fq kLaneFix = Fq::from_mont(pow2_mod<K::N>(unsigned(64 * K::N + 3 * kD / 2), MontConsts<P>::kP));
  constexpr std::array<uint64_t, K::L> kTFix =
      to_radix52<K::L>(pow2_mod<K::N>(unsigned(52 * K::L + kD / 2), MontConsts<P>::kP));
  if (m == 0) return;
  const size_t groups = (m + 7) / 8;
  auto* prefix = scratch;
  auto* den = scratch + groups;
  // Lane e of group g is entry 8g + e. Padding lanes of the last group take
  // den = 1 (the limbs of R64 mod p), so every lane runs `groups` steps.
  const V pad = V::constant(to_radix52<K::L>(MontConsts<P>::kR));
  V acc = V::one();
  for (size_t g = 0; g < groups; ++g) {
    const size_t cnt = m - 8 * g < 8 ? m - 8 * g : 8;
    V d = V::load_raw(slots + 8 * g * stride, stride, cnt);
    if (cnt < 8) d = d.blend(static_cast<__mmask8>(0xff << cnt), pad);
    d.store(den[g]);
    acc.store(prefix[g]);
    acc = acc * d;
  }
  // The eight lane totals: one scalar Montgomery trick, one inversion (for
  // Fq2, ff::Fq2T's: one Fq inversion; its value semantics are the same, so
  // the 2^(2I) / A law below holds for it too).
  F lane[8], lane_prefix[8];
  acc.store_raw(lane, 1);
  F run = F::one();
  for (int e = 0; e < 8; ++e) {
    lane_prefix[e] = run;
    run = run * lane[e];
  }
  F inv = run.inverse();
  for (int e = 8; e-- > 0;) {
    const F t = inv * lane_prefix[e];
    inv = inv * lane[e];
    lane[e] = V::scale(t, kLaneFix);
  }
  V run8 = V::load_raw(lane, 1);
  for (size_t g = groups; g-- > 0;) {
    const size_t cnt = m - 8 * g < 8 ? m - 8 * g : 8;
    const F* base = slots + 8 * g * stride;
    const V inv_k = run8 * V::load(prefix[g]);
    run8 = run8 * V::load(den[g]);
    const V lambda = V::load_raw(base + 1, stride, cnt) * inv_k;
    const V x3 = lambda.sqr() - V::load_raw(base + 2, stride, cnt);
    V t = V::load_raw(base + 3, stride, cnt) - x3;
    if constexpr (kD <= 4) {
      for (size_t i = 0; i < kD / 2; ++i) t = t + t;
    } else {
      t = t * V::Base::constant(kTFix);
    }
    const V y3 = lambda * t - V::load_raw(base + 4, stride, cnt);
    x3.store_raw(out + 16 * g, 2, cnt);
    y3.store_raw(out + 16 * g + 1, 2, cnt);
  }
}

}  // namespace proofpipe::ff::ifma

#endif  // PP_IFMA_COMPILED
