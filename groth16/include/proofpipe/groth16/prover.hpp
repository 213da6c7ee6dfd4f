// Groth16 proving over a snarkjs zkey, split in the two steps the pipeline
// needs (docs/design/overview.md §2, §6):
//
//   synthesize  witness -> a = A.w, b = B.w, c = a o b  (n-domain evaluations,
//               written into caller memory: a shared-memory slot in the pipeline)
//   start       a, b, c, witness -> PreparedProof {h on the odd coset, left
//               in a; the witness}: views, not copies (at 2^24 a copy of h
//               and w is 1 GiB per proof); b and c are free after it returns
//   finish      PreparedProof -> Proof: the five MSMs and the assembly with
//               fresh r, s (getrandom)
//
// prove() runs the three in one process for `proofpipe prove`.
#pragma once

#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/proving_key.hpp"

namespace proofpipe::groth16 {

// The proof type is the JSON layer's (pi_a, pi_b, pi_c as affine points).
using Proof = formats::Proof;

// Views of the caller's memory: `a` and the witness given to prove_start
// must stay alive and unchanged until prove_finish returns. The GPU worker's
// buffers are page-locked, so a device backend uploads straight from them.
struct PreparedProof {
  std::span<const ff::Fr> h;        // domain_size values, Montgomery: the caller's a
  std::span<const ff::Fr> witness;  // n_vars values, Montgomery: the caller's witness
};

// Fills a, b, c (each domain_size long) from the key's coefficient section
// and the witness (Montgomery, n_vars long). Multithreaded.
Status synthesize(const ProvingKey& pk, std::span<const ff::Fr> witness, std::span<ff::Fr> a, std::span<ff::Fr> b,
                  std::span<ff::Fr> c);

// H step: on return a holds h; b and c are clobbered. The result views a
// and the witness (see PreparedProof).
Result<PreparedProof> prove_start(ProverBackend& backend, const ProvingKey& pk, std::span<const ff::Fr> witness,
                                  std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c);

// The MSMs and assembly, with r and s drawn from getrandom(2).
Result<Proof> prove_finish(ProverBackend& backend, const ProvingKey& pk, const PreparedProof& prepared);

// The same with caller-chosen r and s (tests: deterministic proofs).
Result<Proof> prove_finish_with(ProverBackend& backend, const ProvingKey& pk, const PreparedProof& prepared,
                                const ff::Fr& r, const ff::Fr& s);

// prove_finish for inputs the backend took itself (ProverBackend::
// take_inputs, then compute_h_taken): its proof_msms_taken and the assembly.
Result<Proof> prove_taken_finish(ProverBackend& backend, const ProvingKey& pk);
Result<Proof> prove_taken_finish_with(ProverBackend& backend, const ProvingKey& pk, const ff::Fr& r, const ff::Fr& s);

// synthesize + start + finish with private buffers.
Result<Proof> prove(ProverBackend& backend, const ProvingKey& pk, std::span<const ff::Fr> witness);

// A uniform random Fr from the OS CSPRNG (getrandom).
Result<ff::Fr> random_fr();

}  // namespace proofpipe::groth16
