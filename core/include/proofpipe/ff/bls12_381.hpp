// BLS12-381 base field Fq and scalar field Fr, and the curve parameter x.
// Moduli from the curve's definition (Bowe 2017;
// draft-irtf-cfrg-pairing-friendly-curves §4.2.1); everything else is derived
// by the same Field template as BN254's. The tower and the groups are in
// ec/bls12_381.hpp, the pairing in pairing/bls12_381.hpp.
#pragma once

#include "proofpipe/ff/field.hpp"

namespace proofpipe::bls12_381 {

struct FqParams {
  static constexpr size_t kLimbs = 6;
  static constexpr ff::Limbs<6> kModulus = ff::limbs_from_hex<6>(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
};

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr ff::Limbs<4> kModulus =
      ff::limbs_from_hex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  // r - 1 = 2^32 * odd. snarkjs takes its roots of unity from the generator 5:
  // w_n = 5^((r-1)/n) (docs/design/formats.md §3.2), not arkworks' 7.
  static constexpr unsigned kTwoAdicity = 32;
  static constexpr uint64_t kRootGenerator = 5;
};

using Fq = ff::Field<FqParams>;
using Fr = ff::Field<FrParams>;

static_assert(sizeof(Fq) == 48 && sizeof(Fr) == 32, "zkey layout: Fq 48 bytes, Fr 32 bytes");
static_assert(std::is_trivially_copyable_v<Fq> && std::is_trivially_copyable_v<Fr>);

// The curve parameter x = -0xd201000000010000 (drives the Miller loop and the
// final exponentiation): kX is |x|, kXIsNegative its sign.
inline constexpr uint64_t kX = 0xd201000000010000ULL;
inline constexpr bool kXIsNegative = true;

}  // namespace proofpipe::bls12_381
