// The prover's backend interface: the coarse operations whose cost dominates
// a proof (the H step's six NTTs and the five MSMs). One virtual call per
// whole operation costs nothing and leaves a device backend free to fuse and
// overlap. The CPU backend is the reference; the CUDA backend (cuda/)
// implements the same interface and is checked against it.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"

namespace proofpipe::groth16 {

enum class BackendKind { kAuto, kCpu, kCuda };

template <class C>
struct ProvingKeyT;  // proving_key.hpp

// The five MSMs of one proof (Groth16, snarkjs order): A, B1 (G1) and B2
// (G2) over the whole witness, C over its private part, H over h. Only a,
// b2 and c + h + r * b1 enter the proof (r: the proof's blinding, passed to
// proof_msms), so a backend may return that sum in c with h and b1 the
// identity (the CPU backend does: one MSM over all three is cheaper).
template <class C>
struct ProofMsmsT {
  typename C::G1 a, b1;
  typename C::G2 b2;
  typename C::G1 c, h;
};

// One proof's inputs where a record holds them (read-only): a, b and c on
// the domain (synthesize's output), w the witness; all Montgomery.
template <class C>
struct ProofInputsT {
  std::span<const typename C::Fr> a, b, c, w;
};

Result<BackendKind> parse_backend_kind(std::string_view text);  // "auto" | "cpu" | "cuda"

// One interface per curve C (ProverBackendT<curves::Bls12_381> is the one
// the CUDA backend implements; BN254 has the CPU backend).
template <class C>
class ProverBackendT {
 public:
  using Curve = C;
  using Fr = typename C::Fr;
  using G1 = typename C::G1;
  using G2 = typename C::G2;
  using G1Affine = typename C::G1Affine;
  using G2Affine = typename C::G2Affine;
  using ProvingKey = ProvingKeyT<C>;
  using ProofMsms = ProofMsmsT<C>;
  using ProofInputs = ProofInputsT<C>;

  virtual ~ProverBackendT() = default;
  virtual std::string_view name() const = 0;

  // The snarkjs H step on the n-domain (n = a.size() = b.size() = c.size(),
  // Montgomery values in natural order): on return a[i] holds
  // (A*B - C)(w_2n^(2i+1)); b and c are clobbered. No division by Z.
  virtual Status compute_h(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) = 0;

  // sum scalars[i] * points[i]; scalars in Montgomery form; points may hold
  // the identity; sizes must match.
  virtual Result<G1> msm_g1(std::span<const G1Affine> points, std::span<const Fr> scalars) = 0;
  virtual Result<G2> msm_g2(std::span<const G2Affine> points, std::span<const Fr> scalars) = 0;

  // The five MSMs of a proof: w is the witness (pk.n_vars values), h the H
  // step's result (pk.h.size() values), both Montgomery; r the proof's
  // blinding r, for a backend that folds r * b1 into c (ProofMsmsT). The
  // default runs msm_g1/msm_g2 once per MSM and does not fold. A device backend overrides it to move w
  // across the bus once instead of four times (A, B1, B2 and C all read it:
  // 3 x 512 MiB saved per 2^24 proof). kInvalidArgument when the sizes do
  // not match the key (check_proof_msm_inputs).
  virtual Result<ProofMsms> proof_msms(const ProvingKey& pk, std::span<const Fr> w, std::span<const Fr> h, const Fr& r);

  // The taken-inputs path, for a backend with memory of its own (a device):
  // the proof's inputs go into the backend's memory straight from where the
  // record lies (the GPU worker's shared-memory slot), so the worker keeps
  // no copy of its own and frees the slot as soon as the bytes are across.
  //   take_inputs(in)      starts copying; may return with the copy in flight
  //   inputs_taken()       returns once in's bytes are no longer read
  //   compute_h_taken()    the H step on the taken a, b, c (h stays here)
  //   proof_msms_taken(pk, r) the five MSMs over the taken w and that h
  // In that order, once each per proof (kInternal otherwise), with no other
  // operation of the backend in between (the CUDA backend's reuse the same
  // device buffers). A failed take_inputs has nothing left in flight. The defaults are kUnavailable;
  // the CPU backend implements the path with host copies (tests, and
  // PP_GPU_INTAKE=take) but prefers the worker's own copy, which computes
  // the record's checksum on the same read.
  virtual bool prefers_taking_inputs() const { return false; }
  virtual Status take_inputs(const ProofInputs& in);
  virtual Status inputs_taken();
  virtual Status compute_h_taken();
  virtual Result<ProofMsms> proof_msms_taken(const ProvingKey& pk, const Fr& r);

  // Optional: [p, p + bytes) will be the source of many transfers (the GPU
  // worker's ring, or its record buffers); a device backend page-locks it once so its
  // uploads run at full PCIe speed. Idempotent per range; the memory must
  // outlive the backend. The CPU backend has nothing to do.
  virtual Status pin_host_memory(void* /*p*/, size_t /*bytes*/) { return Status::ok(); }

  // Optional: called once at set-up with the key every later proof uses, so
  // the first proof does not pay for one-time work: the CPU backend builds
  // the NTT domain's twiddle table (~0.2 s at 2^22 on 2 cores), a device
  // backend also uploads the key's points (5 sections, ~1.5 GiB at 2^22)
  // and sizes its per-proof buffers. The key must outlive the backend.
  virtual Status prepare(const ProvingKey& /*pk*/) { return Status::ok(); }

  // Device memory this backend holds (key points, per-proof buffers, MSM
  // scratch, NTT tables), in bytes; 0 for the CPU backend. A device backend
  // sizes everything in prepare(), so proofs leave this unchanged.
  virtual size_t device_bytes() const { return 0; }
};

// The readiness gate of docs/design/overview.md §11, run by a device backend
// at the end of prepare() (before its worker says HELLO): `backend` must
// give the CPU reference's exact answers on small inputs that reach every
// kernel family: an H step at 2^10 on fixed pseudo-random values, G1 and
// G2 MSMs over the key's first (up to) 256 A and B2 points, and proof_msms
// over the key cut to its first 256 wires (so a device override's shared
// witness upload and C offset are checked too). A device
// that computes wrong answers (a faulty card, a miscompiled kernel) then
// never takes a partition. kInternal naming the operation that differed;
// the backend's own errors pass through. About 10 ms, mostly the CPU side.
template <class C>
Status known_answer_test(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk);

// The compute_h size rule every backend applies: a, b and c of one
// power-of-two size <= 2^ntt::kMaxLogSize. Returns log2 of that size, or
// kInvalidArgument naming the sizes.
Result<unsigned> h_step_log_size(size_t a, size_t b, size_t c);

// The size rule of proof_msms every backend applies: w.size() == n_vars,
// h.size() == pk.h.size(), the A, B1 and B2 sections n_vars points, C
// n_vars - n_public - 1.
template <class C>
Status check_proof_msm_inputs(const ProvingKeyT<C>& pk, size_t w_size, size_t h_size);

// The order rule of the taken-inputs path and the sizes it took, kept by
// each backend that implements the path.
class TakenInputs {
 public:
  enum class Step { kNone, kCopying, kTaken, kHDone };
  // take_inputs: the sizes rule of compute_h for a, b, c; w not empty.
  // Returns log2 of the domain size. Any step may start a new proof.
  template <class C>
  Result<unsigned> start(const ProofInputsT<C>& in);
  // Moves from `from` to `to`, or kInternal naming `op` when the path's
  // calls came out of order; on failure the path starts over.
  Status advance(Step from, Step to, const char* op);
  void reset() { step_ = Step::kNone; }
  size_t domain_size() const { return n_; }
  size_t n_vars() const { return n_vars_; }

 private:
  Step step_ = Step::kNone;
  size_t n_ = 0, n_vars_ = 0;
};

// The CPU backend. Programs choose a backend by --backend through the one
// factory, backends/ (proofpipe/backends/factory.hpp), which knows whether
// the build has the CUDA backend.
template <class C>
std::unique_ptr<ProverBackendT<C>> make_cpu_backend();

}  // namespace proofpipe::groth16
