// Compile-time constants of the eight-lane AVX-512 IFMA field (field8.hpp):
// the modulus in radix 2^52, the Montgomery inverse, the two conversion
// factors between the 64-bit-limb Montgomery form of ff::Field and the
// radix-2^52 one, and Pack / Pack2, the memory forms of eight Fq or Fq2
// elements. No intrinsics here: this header is safe in any translation unit.
//
// Two Montgomery forms meet here. ff::Field<P> stores x*R64 mod p with
// R64 = 2^(64N) (2^256 for the 4-limb fields, 2^384 for BLS12-381's Fq). The
// IFMA form stores x*R52 mod p with R52 = 2^(52L): 2^260 for L = 5, 2^416 for
// L = 8. The mapping is one radix-2^52 Montgomery product each way, so it is
// exact and costs one product:
//   in:  REDC52(a * K_in)  with a = x*R64, K_in  = 2^(104L - 64N) mod p
//        = x * R64 * 2^(104L-64N) / 2^(52L) = x * 2^(52L) = x*R52,
//   out: REDC52(b * K_out) with b = x*R52, K_out = R64 mod p
//        = x * R52 * R64 / R52 = x*R64,
// after repacking the same integer between 64-bit and 52-bit limbs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "proofpipe/ff/field.hpp"
#include "proofpipe/ff/fq2.hpp"

namespace proofpipe::ff::ifma {

inline constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

// Repacks an N-limb 64-bit integer into L limbs of 52 bits (the top bits must
// fit in 52*L; callers pass values below 2^(52L)).
template <size_t L, size_t N>
constexpr std::array<uint64_t, L> to_radix52(const Limbs<N>& x) {
  std::array<uint64_t, L> r{};
  for (size_t k = 0; k < L; ++k) {
    const size_t bit = 52 * k, w = bit / 64, s = bit % 64;
    uint64_t v = w < N ? x[w] >> s : 0;
    if (s > 12 && w + 1 < N) v |= x[w + 1] << (64 - s);
    r[k] = v & kMask52;
  }
  return r;
}

template <class P>
struct Radix52 {
  using C = MontConsts<P>;
  static constexpr size_t N = P::kLimbs;
  // The fewest 52-bit limbs with 4p < 2^(52L). That margin lets the product
  // take inputs in [0, 2p) and return [0, 2p) with no final subtraction
  // (REDC(ab) < (4p^2 + R52*p) / R52 < 2p), and keeps a + b below 2^(52L).
  // 254/255-bit moduli: L = 5 (257 <= 260); BLS12-381's 381-bit p: L = 8.
  static constexpr size_t L = (C::kBits + 2 + 51) / 52;
  static_assert(L * 52 >= C::kBits + 2 && 104 * L >= 64 * N, "radix-2^52 limb count");

  static constexpr std::array<uint64_t, L> kP = to_radix52<L>(C::kP);
  static constexpr std::array<uint64_t, L> k2P = [] {
    Limbs<N + 1> p2{};
    for (size_t i = 0; i < N; ++i) p2[i] = C::kP[i];
    Limbs<N + 1> same = p2;
    limbs_add(p2, same);
    return to_radix52<L>(p2);
  }();
  // -p^-1 mod 2^52: the low 52 bits of the 64-bit one.
  static constexpr uint64_t kInv = C::kInv & kMask52;
  static constexpr std::array<uint64_t, L> kIn = to_radix52<L>(pow2_mod<N>(unsigned(104 * L - 64 * N), C::kP));
  static constexpr std::array<uint64_t, L> kOut = to_radix52<L>(C::kR);
  // R52 mod p: 1 in the radix-2^52 Montgomery form.
  static constexpr std::array<uint64_t, L> kOne = to_radix52<L>(pow2_mod<N>(unsigned(52 * L), C::kP));
};

// The lane types (field8.hpp, fq2x8.hpp; defined only where PP_IFMA_COMPILED).
template <class P>
struct Field8;
template <class P>
struct Fq2x8;

// Eight elements in the radix-2^52 Montgomery form, structure of arrays:
// limb[k][e] is 52-bit limb k of element e. Values lie in [0, 2p) with every
// limb below 2^52; [p, 2p) are the redundant forms of [0, p).
template <class P>
struct alignas(64) Pack {
  static constexpr size_t L = Radix52<P>::L;
  using Lanes = Field8<P>;
  uint64_t limb[L][8];
};

// Eight Fq2 = Fq[u]/(u^2 + 1) elements over the prime field P: the Packs of
// their c0 and c1 coordinates.
template <class P>
struct alignas(64) Pack2 {
  using Lanes = Fq2x8<P>;
  Pack<P> c0, c1;
};

// The memory form of eight lanes of the ff element type F: Pack for a prime
// field, Pack2 for an Fq2T (both curves' Fq2 have u^2 = -1, the only
// quadratic extension Fq2x8 implements). Lane kernels over F take their
// scratch as this type; its Lanes names the register form.
template <class F>
struct LanePack {
  using type = Pack<typename F::Params>;
};
template <class T>
struct LanePack<Fq2T<T>> {
  using type = Pack2<typename T::Fq::Params>;
};

}  // namespace proofpipe::ff::ifma
