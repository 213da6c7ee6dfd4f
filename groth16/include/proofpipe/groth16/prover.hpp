// Groth16 proving over a snarkjs zkey, split in the two steps the pipeline
// needs (docs/design/overview.md §2, §6):
//
//   synthesize  witness -> a = A.w, b = B.w, c = a o b  (n-domain evaluations,
//               written into caller memory: a shared-memory slot in the pipeline)
//   start       a, b, c, witness -> PreparedProofT {h on the odd coset, left
//               in a; the witness}: views, not copies (at 2^24 a copy of h
//               and w is 1 GiB per proof); b and c are free after it returns
//   finish      PreparedProofT -> ProofT: the five MSMs and the assembly with
//               fresh r, s (getrandom)
//
// prove() runs the three in one process for `proofpipe prove`.
#pragma once

#include <span>
#include <type_traits>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/proving_key.hpp"

namespace proofpipe::groth16 {

// The proof type is the JSON layer's (pi_a, pi_b, pi_c as affine points).
// Every function below is a template over the curve C, deduced from the
// key and backend (instantiated for BLS12-381 and BN254 in prover.cpp).
template <class C>
using ProofT = formats::ProofT<C>;

// Views of the caller's memory: `a` and the witness given to prove_start
// must stay alive and unchanged until prove_finish returns. The GPU worker's
// buffers are page-locked, so a device backend uploads straight from them.
template <class C>
struct PreparedProofT {
  std::span<const typename C::Fr> h;        // domain_size values, Montgomery: the caller's a
  std::span<const typename C::Fr> witness;  // n_vars values, Montgomery: the caller's witness
};

template <class C>
using FrSpan = std::span<typename C::Fr>;
template <class C>
using ConstFrSpan = std::span<const typename C::Fr>;

// Fills a, b, c (each domain_size long) from the key's coefficient section
// and the witness (Montgomery, n_vars long). Multithreaded.
template <class C>
Status synthesize(const ProvingKeyT<C>& pk, ConstFrSpan<C> witness, FrSpan<C> a, FrSpan<C> b, FrSpan<C> c);

// H step: on return a holds h; b and c are clobbered. The result views a
// and the witness (see PreparedProofT).
template <class C>
Result<PreparedProofT<C>> prove_start(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk, ConstFrSpan<C> witness,
                                      FrSpan<C> a, FrSpan<C> b, FrSpan<C> c);

// The MSMs and assembly, with r and s drawn from getrandom(2).
template <class C>
Result<ProofT<C>> prove_finish(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk, const PreparedProofT<C>& prepared);

// The same with caller-chosen r and s (tests: deterministic proofs).
template <class C>
Result<ProofT<C>> prove_finish_with(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk,
                                    const PreparedProofT<C>& prepared, const std::type_identity_t<typename C::Fr>& r,
                                    const std::type_identity_t<typename C::Fr>& s);

// prove_finish for inputs the backend took itself (ProverBackendT::
// take_inputs, then compute_h_taken): its proof_msms_taken and the assembly.
template <class C>
Result<ProofT<C>> prove_taken_finish(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk);
template <class C>
Result<ProofT<C>> prove_taken_finish_with(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk,
                                          const std::type_identity_t<typename C::Fr>& r,
                                          const std::type_identity_t<typename C::Fr>& s);

// synthesize + start + finish with private buffers.
template <class C>
Result<ProofT<C>> prove(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk, ConstFrSpan<C> witness);

// A uniform random Fr from the OS CSPRNG (getrandom).
template <class C>
Result<typename C::Fr> random_fr();

}  // namespace proofpipe::groth16
