// A proving key as the pipeline's coordinator holds it, for either curve
// (docs/curves.md): the zkey's header and checked coefficients, its
// verification key, and everything the coordinator does with the curve's
// types: check a witness, verify a proof, write and read proof and public
// JSON. load_pipeline_key reads the curve from the zkey once and makes a
// PipelineKeyT<C> (engine/src/key.cpp); the Scheduler, the Supervisor, `run`
// and `serve` then go through this interface and never name a curve.
//
// Proofs reach it as the raw bytes of a PROOF message (formats::ProofT<C>,
// proof_bytes() of them); public signals as FrWords (ledger.hpp).
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/engine/plan.hpp"
#include "proofpipe/groth16/verifier.hpp"

namespace proofpipe::engine {

class PipelineKey {
 public:
  virtual ~PipelineKey() = default;
  virtual curves::CurveId curve() const = 0;
  std::string_view curve_name() const { return curves::curve_name(curve()); }
  virtual const std::filesystem::path& path() const = 0;
  virtual uint32_t n_vars() const = 0;
  virtual uint32_t n_public() const = 0;
  virtual uint32_t domain_size() const = 0;
  // The r1cs constraints: the highest row with a coefficient, less the
  // nPublic + 1 rows snarkjs adds (one per public signal and the constant).
  virtual uint64_t constraints() const = 0;
  virtual KeySizes sizes() const = 0;
  // The proof part of a PROOF body: sizeof(formats::ProofT<C>).
  virtual size_t proof_bytes() const = 0;

  // formats::check_wtns_for: the witness's header and curve, nVars, w[0] = 1
  // and every value below r; w[1 .. pub.size()] into `pub`. A witness for
  // the other curve is "curve mismatch: ... is bn128's, expected bls12381".
  virtual Status check_witness(const std::filesystem::path& wtns, std::span<FrWords> pub) const = 0;
  // w[1 .. pub.size()] of a witness already checked (formats::read_wtns_prefix).
  virtual Status read_public(const std::filesystem::path& wtns, std::span<FrWords> pub) const = 0;

  // A proof's bytes (proof_bytes() of them) checked against the key.
  virtual Result<groth16::Verdict> verify(std::span<const FrWords> pub, std::string_view proof) const = 0;
  // <stem>.proof.json and <stem>.public.json, both or neither (formats::write_proof_and_public).
  virtual Status write_outputs(const std::filesystem::path& proof_file, const std::filesystem::path& public_file,
                               std::string_view proof, std::span<const FrWords> pub) const = 0;
  // The same two files' text, for a queue that stores proofs itself (serve).
  virtual Result<std::string> proof_json(std::string_view proof) const = 0;
  virtual std::string public_json(std::span<const FrWords> pub) const = 0;
  // Files written earlier (`run --resume`, `demo`): the public signals, and
  // the proof checked against them and this key.
  virtual Result<std::vector<FrWords>> read_public_json(const std::filesystem::path& file) const = 0;
  virtual Result<groth16::Verdict> verify_proof_file(const std::filesystem::path& proof_file,
                                                     std::span<const FrWords> pub) const = 0;
};

// The pipeline's key loader (run, serve, demo): the zkey's curve from its
// base-field prime, then its header, IC and checked coefficients (points not
// mapped, coefficient pages released: the coordinator never reads them
// again).
Result<std::shared_ptr<const PipelineKey>> load_pipeline_key(const std::filesystem::path& path);

}  // namespace proofpipe::engine
