// MSM internals, part 1: scalar preparation and signed (Booth) window digits.
// Not a public API (namespace msm::detail); used by msm/pippenger.hpp and,
// compiled by nvcc as PP_HD, by the CUDA MSM (cuda/.../msm_kernels.hpp), so
// both provers cut scalars into the same digits with the same code.
// Booth recoding as in Booth 1951 / the "signed window" of blst's
// booth_encode, re-derived below; the r - k fold is the usual
// "negate the point" trick (docs/design/numbers.md §3, MSB trick).
#pragma once

#include <cstdint>

#include "proofpipe/ff/field.hpp"
#include "proofpipe/hd.hpp"

namespace proofpipe::msm::detail {

// A scalar ready for the windows: canonical, folded into [2, (r-1)/2], and
// the index of its point. neg = 1 means the term is -k * P (the fold took
// k -> r - k, which is -k mod r). 40 bytes; the windows read it W times.
// With GLV (ec/glv.hpp) the halves fit 2 limbs: TermT<2>, 24 bytes. The
// index: bit 31 (kEndoBit) names the endomorphism's image of the point, bits
// 29-30 the part of a multi-part MSM (msm_g1_sum), bits 0-28 the point.
template <size_t N>
struct TermT {
  ff::Limbs<N> k;
  uint32_t index;
  uint32_t neg;
};
using Term = TermT<4>;
inline constexpr uint32_t kEndoBit = uint32_t(1) << 31;
inline constexpr unsigned kPartShift = 29;
inline constexpr uint32_t kPointMask = (uint32_t(1) << kPartShift) - 1;
inline constexpr size_t kMaxParts = 4;

enum class ScalarClass : uint8_t { kZero, kOne, kGeneral };

// k (canonical, < r) -> min(k, r - k); returns 1 when folded (the term is
// then -k' * P). Afterwards k <= (r-1)/2 < 2^254, so W*c >= 255 windows of
// signed digits represent it exactly (see booth_digit).
// FrP: the scalar field's parameters (bls12_381::FrParams, bn254::FrParams).
template <class FrP>
PP_HD inline uint32_t fold_canonical(ff::Limbs<4>& k) {
  constexpr ff::Limbs<4> kR = ff::MontConsts<FrP>::kP;
  constexpr ff::Limbs<4> kHalf = ff::limbs_shr(ff::limbs_sub_u64(kR, 1), 1);  // (r-1)/2
  if (ff::limbs_geq(kHalf, k)) return 0;
  ff::Limbs<4> t = kR;
  ff::limbs_sub(t, k);
  k = t;
  return 1;
}

// The class of a folded k: 0, 1 (+-1 with the fold's sign) or general.
PP_HD inline ScalarClass folded_class(const ff::Limbs<4>& k) {
  if ((k[1] | k[2] | k[3]) != 0 || k[0] > 1) return ScalarClass::kGeneral;
  return k[0] == 0 ? ScalarClass::kZero : ScalarClass::kOne;
}

// Canonical limbs (any 256-bit value) -> reduced mod r, then folded so that
// k <= (r-1)/2 < 2^254. Returns the class; *neg is set when folded.
// ~10 ns: a few 4-limb compares and subtractions (2^256 < 3r on BLS12-381,
// so at most two; BN254's r is near 2^253.6, so up to five).
template <class FrP>
inline ScalarClass fold_scalar(ff::Limbs<4>& k, uint32_t* neg) {
  constexpr ff::Limbs<4> kR = ff::MontConsts<FrP>::kP;
  while (ff::limbs_geq(k, kR)) ff::limbs_sub(k, kR);
  *neg = fold_canonical<FrP>(k);  // 0 stays 0, unfolded
  return folded_class(k);
}

// Bits [pos, pos + count) of k, count <= 32; bits at or above 64N are 0.
template <size_t N>
PP_HD inline uint32_t scalar_bits(const ff::Limbs<N>& k, unsigned pos, unsigned count) {
  const unsigned limb = pos / 64, sh = pos % 64;
  if (limb >= N) return 0;
  uint64_t v = k[limb] >> sh;
  // sh + count > 64 implies sh > 32, so the shift below is in range.
  if (sh + count > 64 && limb + 1 < N) v |= k[limb + 1] << (64 - sh);
  return uint32_t(v & ((uint64_t(1) << count) - 1));
}

// Signed digit of window j (width c) of k:
//   d_j = v_j + b(jc - 1) - 2^c * b(jc + c - 1),  v_j = bits [jc, jc + c)
// so d_j lies in [-2^(c-1), 2^(c-1)] and sum_j d_j 2^(jc) = k - b(Wc-1) 2^(Wc)
// (the b terms telescope). With k < 2^B and W*c >= B+1, b(Wc-1) = 0 and
// the digits are exact (B = 254 for folded scalars, 127 for GLV halves); each window needs only its own c+1 bits, so no
// carry is passed between windows and tiles can extract digits independently. With w = bits [jc-1, jc+c) (c+1 bits, bit
// -1 = 0): (w+1)>>1 = v_j + b(jc-1).
template <size_t N>
PP_HD inline int32_t booth_digit(const ff::Limbs<N>& k, unsigned j, unsigned c) {
  const uint32_t w = j == 0 ? (scalar_bits(k, 0, c) << 1) : scalar_bits(k, j * c - 1, c + 1);
  return int32_t((w + 1) >> 1) - int32_t((w >> c) << c);
}

// Scalar bits B (k < 2^B) of the windows: folded scalars, and GLV halves.
inline constexpr unsigned kFoldedBits = 254;

// Windows needed for width c: W*c >= B+1 (see booth_digit).
constexpr unsigned window_count(unsigned c, unsigned bits = kFoldedBits) { return (bits + c) / c; }

// Buckets window j needs: 2^(c-1) (|d| in 1..2^(c-1)), except the top
// window, which holds only t = B - jc < c bits of k: there b(jc+c-1) = 0
// and d = v + b(jc-1) lies in [0, 2^t]. E.g. B = 254, c = 13: W = 20 and the top
// window has 2^7 buckets, not 2^12; c = 14: 2^2. Sizing it by 2^(c-1) would
// waste its reduction and, worse, starve batch-affine batches of distinct
// buckets (see batch_capacity in buckets.hpp).
constexpr size_t window_buckets(unsigned j, unsigned c, unsigned bits = kFoldedBits) {
  const unsigned t = bits - j * c;  // (W-1)*c <= B, so t >= 0 for every window
  return size_t(1) << (t < c - 1 ? t : c - 1);
}

}  // namespace proofpipe::msm::detail
