// A whole proof through one backend with given r and s (synthesize, start,
// finish_with), for tests that compare backends or set-up states: the same
// key, witness, r and s must give the same proof bit for bit.
#pragma once

#include <span>
#include <vector>

#include "proofpipe/groth16/prover.hpp"

namespace proofpipe::test {

inline Result<groth16::ProofT<curves::Bls12_381>> prove_with(groth16::ProverBackendT<curves::Bls12_381>& backend,
                                                             const groth16::ProvingKeyT<curves::Bls12_381>& pk,
                                                             std::span<const bls12_381::Fr> witness,
                                                             const bls12_381::Fr& r, const bls12_381::Fr& s) {
  std::vector<bls12_381::Fr> a(pk.domain_size), b(pk.domain_size), c(pk.domain_size);
  PP_RETURN_IF_ERROR(groth16::synthesize(pk, witness, a, b, c));
  PP_ASSIGN_OR_RETURN(auto started, groth16::prove_start(backend, pk, witness, a, b, c));
  return groth16::prove_finish_with(backend, pk, started, r, s);
}

}  // namespace proofpipe::test
