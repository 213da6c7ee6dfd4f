// Synthetic partitioned workloads for benchmarks at sizes circom and snarkjs
// make slow (`proofpipe gen`): a random R1CS of a given size with a
// realistic shape and any number of different satisfying witnesses.
//
// Shape, per constraint (drawn from the seed; fractions are the defaults):
//   47% product  w_new = (c1 w_i + c2 w_j) * w_k          sparse, 2 x 1 terms
//   15% select   w_new = w_j * bit                        half zero: bits are 0/1
//    8% and      w_new = bit * bit'                       zeros and ones
//   10% linear   w_new = c1 w_i + c2 w_j + c3              B = 1
//    5% dense    w_new = (sum of 32..64 terms) * w_k       one dense row
//   15% boolean  bit * (bit - 1) = 0                       defines nothing
//   last         out = w_last * 1                          the public output
// Inputs: nPubIn public field elements, then nPrvIn private inputs, the first
// half of them bits. So witnesses carry many zeros and ones, as real circuits
// do (select outputs, bits, the constant wire).
#pragma once

#include <cstdint>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/r1cs.hpp"

namespace proofpipe::groth16 {

struct SyntheticSpec {
  uint32_t constraints = 1u << 16;
  uint32_t n_pub_in = 2;
  uint32_t n_prv_in = 16;
  uint64_t seed = 1;
};

template <class C>
struct SyntheticCircuitT {
  formats::R1csT<C> r1cs;
  // defines[c]: the wire constraint c computes as <A,w> * <B,w> (its C row is
  // exactly that wire with coefficient 1), or -1 for a boolean check.
  std::vector<int64_t> defines;
};

// kInvalidArgument for fewer than 2 constraints or more than 2^26.
// For either curve C (its scalar field's coefficients; default BLS12-381).
template <class C>
Result<SyntheticCircuitT<C>> make_synthetic_circuit(const SyntheticSpec& spec);

// A satisfying witness (Montgomery) for partition `partition`: the inputs are
// drawn from (spec.seed, partition), the rest follows constraint by constraint.
template <class C>
std::vector<typename C::Fr> synthetic_witness(const SyntheticCircuitT<C>& circuit, const SyntheticSpec& spec,
                                              uint32_t partition);

}  // namespace proofpipe::groth16
