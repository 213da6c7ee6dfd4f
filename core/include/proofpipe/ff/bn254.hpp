// BN254 (alt_bn128, snarkjs's "bn128") base field Fq and scalar field Fr:
// the curve of Ethereum's precompiles (EIP-196/197) and of nearly every
// circom circuit. Moduli from the curve's definition (Barreto, Naehrig 2005
// with u = 0x44e992b44a6909f1, as in EIP-196); everything else is derived by
// the same Field template as BLS12-381's.
#pragma once

#include "proofpipe/ff/field.hpp"

namespace proofpipe::bn254 {

struct FqParams {
  static constexpr size_t kLimbs = 4;
  static constexpr ff::Limbs<4> kModulus =
      ff::limbs_from_hex<4>("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
};

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr ff::Limbs<4> kModulus =
      ff::limbs_from_hex<4>("0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  // r - 1 = 2^28 * odd. snarkjs (ffjavascript) takes its roots of unity from
  // the smallest quadratic non-residue, 5 here too: w_n = 5^((r-1)/n).
  static constexpr unsigned kTwoAdicity = 28;
  static constexpr uint64_t kRootGenerator = 5;
};

using Fq = ff::Field<FqParams>;
using Fr = ff::Field<FrParams>;

static_assert(sizeof(Fq) == 32 && sizeof(Fr) == 32, "bn128 zkey layout: Fq and Fr 32 bytes");

// The BN parameter u (often x): p = 36u^4 + 36u^3 + 24u^2 + 6u + 1. The
// optimal ate Miller loop runs over 6u + 2, the final exponentiation's hard
// part over u.
inline constexpr uint64_t kU = 0x44e992b44a6909f1ULL;

}  // namespace proofpipe::bn254
