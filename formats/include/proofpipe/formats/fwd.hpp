// Forward declarations of the formats' curve templates and their BLS12-381
// names, for headers that only pass them by reference.
#pragma once

namespace proofpipe::curves {
struct Bls12_381;
struct Bn254;
}  // namespace proofpipe::curves

namespace proofpipe::formats {

template <class C>
class ZkeyT;

template <class C>
struct WitnessT;

}  // namespace proofpipe::formats
