// Compile-time checks of the derived field constants (R, R^2, -p^-1) against
// the values published for BLS12-381, so a wrong derivation fails the build.
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::bls12_381 {

using ff::MontConsts;

// R mod p for Fq (the Montgomery one), as in the IETF pairing-friendly-curves draft / zcash.
static_assert(MontConsts<FqParams>::kR[0] == 0x760900000002fffdULL);
static_assert(MontConsts<FqParams>::kR[5] == 0x15f65ec3fa80e493ULL);
static_assert(MontConsts<FqParams>::kInv == 0x89f3fffcfffcfffdULL);
// Fr: R mod r and -r^-1 mod 2^64.
static_assert(MontConsts<FrParams>::kR[0] == 0x00000001fffffffeULL);
static_assert(MontConsts<FrParams>::kInv == 0xfffffffeffffffffULL);

}  // namespace proofpipe::bls12_381
