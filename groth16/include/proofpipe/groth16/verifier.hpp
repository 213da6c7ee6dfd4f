// The Groth16 verifier: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) with
// L = IC_0 + sum_i pub_i IC_i, checked as one multi-pairing with a single
// final exponentiation. Proof points not on their curve or outside the
// order-r subgroup make the proof invalid (they are never paired).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/proving_key.hpp"

namespace proofpipe::groth16 {

// snarkjs's verification_key.json contents (formats::verification_key_from_zkey
// builds one from a zkey; vk_alphabeta_12 is not used here).
template <class C>
using VerificationKeyT = formats::VerificationKeyT<C>;

// e(alpha1, beta2) in snarkjs's vk_alphabeta_12 nesting (export-vkey writes it).
template <class C>
formats::Fq12CoeffsT<C> alphabeta_of(const typename C::G1Affine& alpha1, const typename C::G2Affine& beta2);

struct Verdict {
  bool valid = false;
  std::string reason;  // why not, when invalid ("pairing check failed", "pi_a not in G1", ...)
};

// Public inputs in Montgomery form, n_public of them. A key whose IC count
// does not match n_public or a wrong number of inputs is an error (kInvalidArgument).
template <class C>
Result<Verdict> verify(const VerificationKeyT<C>& vk,
                       std::span<const std::type_identity_t<typename C::Fr>> public_inputs, const ProofT<C>& proof);

}  // namespace proofpipe::groth16
