// Groth16 proving over a snarkjs zkey, split in the two steps the pipeline
// needs (DESIGN.md §2, §6):
//
//   synthesize  witness -> a = A.w, b = B.w, c = a o b  (n-domain evaluations,
//               written into caller memory: a shared-memory slot in the pipeline)
//   start       a, b, c, witness -> PreparedProof {h on the odd coset, witness
//               copy}; after it returns the a/b/c memory is no longer needed
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

struct PreparedProof {
  std::vector<ff::Fr> h;        // domain_size values, Montgomery
  std::vector<ff::Fr> witness;  // n_vars values, Montgomery
};

// Fills a, b, c (each domain_size long) from the key's coefficient section
// and the witness (Montgomery, n_vars long). Multithreaded.
Status synthesize(const ProvingKey& pk, std::span<const ff::Fr> witness, std::span<ff::Fr> a, std::span<ff::Fr> b,
                  std::span<ff::Fr> c);

// H step; a, b, c are clobbered. The witness is copied into the result.
Result<PreparedProof> prove_start(ProverBackend& backend, const ProvingKey& pk, std::span<const ff::Fr> witness,
                                  std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c);

// The MSMs and assembly, with r and s drawn from getrandom(2).
Result<Proof> prove_finish(ProverBackend& backend, const ProvingKey& pk, const PreparedProof& prepared);

// The same with caller-chosen r and s (tests: deterministic proofs).
Result<Proof> prove_finish_with(ProverBackend& backend, const ProvingKey& pk, const PreparedProof& prepared,
                                const ff::Fr& r, const ff::Fr& s);

// synthesize + start + finish with private buffers.
Result<Proof> prove(ProverBackend& backend, const ProvingKey& pk, std::span<const ff::Fr> witness);

// A uniform random Fr from the OS CSPRNG (getrandom).
Result<ff::Fr> random_fr();

}  // namespace proofpipe::groth16
