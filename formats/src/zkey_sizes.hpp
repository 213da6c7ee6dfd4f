// The byte sizes of a Groth16 zkey's points and of its section 2 (the
// Groth16 header), per curve (docs/design/formats.md): the reader and the
// writer share them.
#pragma once

#include <cstdint>

#include "proofpipe/curves.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

template <class C>
constexpr uint32_t kG1Bytes = 2 * ZkeyHeaderT<C>::kN8q;  // 96 (BLS12-381), 64 (BN254)
template <class C>
constexpr uint32_t kG2Bytes = 4 * ZkeyHeaderT<C>::kN8q;  // 192, 128
// Section 2: 4+n8q + 4+n8r + 3*4 + 3 G1 + 3 G2 (964 bytes for BLS12-381, 660 for BN254).
template <class C>
constexpr uint64_t kGroth16HeaderBytes =
    4 + ZkeyHeaderT<C>::kN8q + 4 + ZkeyHeaderT<C>::kN8r + 12 + 3 * kG1Bytes<C> + 3 * kG2Bytes<C>;
static_assert(kGroth16HeaderBytes<curves::Bls12_381> == 964 && kGroth16HeaderBytes<curves::Bn254> == 660);
// The points as the prover holds them are the zkey's own bytes.
static_assert(kG1Bytes<curves::Bls12_381> == sizeof(curves::Bls12_381::G1Affine) &&
              kG2Bytes<curves::Bls12_381> == sizeof(curves::Bls12_381::G2Affine) &&
              kG1Bytes<curves::Bn254> == sizeof(curves::Bn254::G1Affine) &&
              kG2Bytes<curves::Bn254> == sizeof(curves::Bn254::G2Affine));

}  // namespace proofpipe::formats
