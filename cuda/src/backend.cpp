// CudaBackend: the prover's heavy operations on the GPU (see backend.hpp).
//
// One stream per backend; every operation ends with a stream sync (but
// take_inputs, whose sync is inputs_taken), so the interface stays
// synchronous like the CPU backend's. Key points are
// uploaded once and cached by host span:
//
//   host (mmap of the zkey)            device (resident for the lifetime)
//   +--------------------+  first use  +------------------+
//   | section 5: A points| ----------> | A points          |  key: (ptr, n)
//   | section 6: B1 ...  | ----------> | B1 points         |  + first/last point
//   +--------------------+             +------------------+    (stale check)
//
// The per-proof inputs come from host memory the worker has page-locked
// (pin_host_memory), 2 GiB at 2^24 (~40 ms at ~50 GB/s):
//
//   take intake (the worker's choice here)   copy intake (PP_GPU_INTAKE=copy)
//   ring slot --a,b,c,w--> da_ db_ dc_ w     worker buffers --a,b,c--> da_ db_ dc_
//   H in da_ (stays)                         H in da_ --h--> worker's a
//   five MSMs over w and da_                 --w--> scalars_, --h--> da_, five MSMs
#include "proofpipe/cuda/backend.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "check.hpp"
#include "msm_device.hpp"
#include "ntt_device.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/cuda/ntt.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::cuda {
namespace {

// A device copy of one span of key points. The span's address and length
// name it; the first and last points are kept to catch a caller that reuses
// the same buffer for different points (then the copy is refreshed).
struct ResidentPoints {
  DeviceBuffer<std::byte> data;
  std::vector<std::byte> first, last;
};

class CudaBackend final : public groth16::ProverBackend {
 public:
  ~CudaBackend() override {
    for (void* p : pinned_) (void)cudaHostUnregister(p);
  }

  Status init() { return stream_.create(); }

  std::string_view name() const override { return "cuda"; }

  Status compute_h(std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, groth16::h_step_log_size(a.size(), b.size(), c.size()));
    const size_t n = a.size();
    cudaStream_t s = stream_.get();
    PP_RETURN_IF_ERROR(upload_abc(a, b, c));
    PP_RETURN_IF_ERROR(compute_h_device(da_.data(), db_.data(), dc_.data(), log_n, s));
    PP_RETURN_IF_ERROR(da_.download(a.data(), n, s));
    return stream_.sync();
  }

  Result<ec::G1> msm_g1(std::span<const ec::G1Affine> points, std::span<const ff::Fr> scalars) override {
    return msm<ec::G1Cfg>(points, scalars, "msm_g1");
  }
  Result<ec::G2> msm_g2(std::span<const ec::G2Affine> points, std::span<const ff::Fr> scalars) override {
    return msm<ec::G2Cfg>(points, scalars, "msm_g2");
  }

  // The witness crosses the bus once for A, B1, B2 and C, h once into
  // compute_h's buffer. The points are resolved first, so no upload is left
  // in flight when one fails.
  Result<groth16::ProofMsms> proof_msms(const groth16::ProvingKey& pk, std::span<const ff::Fr> w,
                                        std::span<const ff::Fr> h) override {
    PP_RETURN_IF_ERROR(groth16::check_proof_msm_inputs(pk, w.size(), h.size()));
    PP_ASSIGN_OR_RETURN(const KeyPoints k, key_points(pk));
    PP_ASSIGN_OR_RETURN(const ff::Fr* dw, upload_scalars(w));
    if (!h.empty()) {
      PP_RETURN_IF_ERROR(da_.reserve(h.size()));
      PP_RETURN_IF_ERROR(da_.upload(h.data(), h.size(), stream_.get()));
    }
    return five_msms(pk, k, dw, da_.data());
  }

  // The taken-inputs path (groth16/backend.hpp), the GPU worker's choice
  // here: a, b, c and w are uploaded straight from the worker's slot (the
  // ring is page-locked, so the four copies are DMA the CPU does not wait
  // on: the worker checksums the slot meanwhile), h is computed into da_
  // and read from there by the H MSM: nothing of the proof is downloaded
  // before the five sums, and the worker keeps no record buffers.
  bool prefers_taking_inputs() const override { return true; }

  Status take_inputs(const groth16::ProofInputs& in) override {
    PP_RETURN_IF_ERROR(taken_.start(in).status());
    Status st = upload_abc(in.a, in.b, in.c);
    if (st) st = upload_scalars(in.w).status();
    if (!st) {
      taken_.reset();
      (void)stream_.sync();  // nothing may still read the caller's bytes
    }
    return st;
  }

  Status inputs_taken() override {
    PP_RETURN_IF_ERROR(taken_.advance(Step::kCopying, Step::kTaken, "inputs_taken"));
    return keep_taken(stream_.sync());
  }

  Status compute_h_taken() override {
    PP_RETURN_IF_ERROR(taken_.advance(Step::kTaken, Step::kHDone, "compute_h_taken"));
    const unsigned log_n = unsigned(std::countr_zero(taken_.domain_size()));
    PP_RETURN_IF_ERROR(keep_taken(compute_h_device(da_.data(), db_.data(), dc_.data(), log_n, stream_.get())));
    return keep_taken(stream_.sync());
  }

  Result<groth16::ProofMsms> proof_msms_taken(const groth16::ProvingKey& pk) override {
    PP_RETURN_IF_ERROR(taken_.advance(Step::kHDone, Step::kNone, "proof_msms_taken"));
    PP_RETURN_IF_ERROR(groth16::check_proof_msm_inputs(pk, taken_.n_vars(), taken_.domain_size()));
    PP_ASSIGN_OR_RETURN(const KeyPoints k, key_points(pk));
    return five_msms(pk, k, scalars_.data(), da_.data());
  }

  // One-time work before the first proof: the NTT tables of the domain,
  // the per-proof buffers at full size, every key section resident; then
  // the known-answer test.
  Status prepare(const groth16::ProvingKey& pk) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, groth16::h_step_log_size(pk.domain_size, pk.domain_size, pk.domain_size));
    PP_ASSIGN_OR_RETURN(const NttTables* tables, ntt_tables(log_n));
    ntt_bytes_[log_n] = tables->bytes;
    for (DeviceBuffer<ff::Fr>* d : {&da_, &db_, &dc_}) PP_RETURN_IF_ERROR(d->reserve(pk.domain_size));
    PP_RETURN_IF_ERROR(scalars_.reserve(std::max<size_t>(pk.domain_size, pk.n_vars)));
    for (std::span<const ec::G1Affine> pts : {pk.a, pk.b1, pk.c, pk.h}) {
      if (!pts.empty()) PP_RETURN_IF_ERROR(resident(std::as_bytes(pts), sizeof(ec::G1Affine)).status());
    }
    if (!pk.b2.empty()) PP_RETURN_IF_ERROR(resident(std::as_bytes(pk.b2), sizeof(ec::G2Affine)).status());
    PP_RETURN_IF_ERROR(stream_.sync());
    // The MSM scratch for the largest MSM of each group, whatever the
    // witness's mix of 0, +-1 and other scalars: 5.4 GiB at 2^24, 0.66 GiB
    // at 2^20 (docs/gpu.md).
    const size_t g1_terms = std::max({pk.a.size(), pk.b1.size(), pk.c.size(), pk.h.size()});
    PP_RETURN_IF_ERROR(reserve_msm_g1(scratch_, g1_terms, stream_.get()));
    PP_RETURN_IF_ERROR(reserve_msm_g2(scratch_, pk.b2.size(), stream_.get()));
    // The readiness gate: this device gives the CPU's answers before the
    // worker says HELLO, or the worker fails its set-up and takes no work.
    return groth16::known_answer_test(*this, pk);
  }

  size_t device_bytes() const override {
    size_t b = da_.bytes() + db_.bytes() + dc_.bytes() + scalars_.bytes() + scratch_.bytes();
    for (const auto& [span, r] : points_) b += r.data.bytes();
    for (const auto& [log_n, bytes] : ntt_bytes_) b += bytes;
    return b;
  }

  Status pin_host_memory(void* p, size_t bytes) override {
    if (p == nullptr || bytes == 0) return Status::ok();
    for (void* q : pinned_)
      if (q == p) return Status::ok();
    const cudaError_t err = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    if (err == cudaErrorHostMemoryAlreadyRegistered) {
      (void)cudaGetLastError();
      return Status::ok();
    }
    // Pinning is a speed-up, not a need: a refusal (ulimit -l, no support)
    // leaves pageable transfers, which still work. Sticky errors do not.
    if (err != cudaSuccess) {
      Status st = cuda_status(err, "cudaHostRegister");
      if (st.code() == ErrorCode::kDeviceLost) return st;
      (void)cudaGetLastError();
      spdlog::warn("{} ({} bytes): transfers stay pageable", st.message(), bytes);
      return Status::ok();
    }
    pinned_.push_back(p);
    return Status::ok();
  }

 private:
  // The device copy of `bytes` (elem_size bytes per point), uploading it on
  // first use and when its first or last point changed.
  Result<const std::byte*> resident(std::span<const std::byte> bytes, size_t elem_size) {
    ResidentPoints& r = points_[{bytes.data(), bytes.size()}];
    const auto head = bytes.first(elem_size), tail = bytes.last(elem_size);
    const bool same = r.data.size() == bytes.size() && r.first.size() == elem_size &&
                      std::memcmp(r.first.data(), head.data(), elem_size) == 0 &&
                      std::memcmp(r.last.data(), tail.data(), elem_size) == 0;
    if (!same) {
      // Forgotten first: a failed upload must not leave a copy that looks current.
      r.first.clear();
      r.last.clear();
      PP_RETURN_IF_ERROR(r.data.allocate(bytes.size()));
      PP_RETURN_IF_ERROR(r.data.upload(bytes.data(), bytes.size(), stream_.get()));
      r.first.assign(head.begin(), head.end());
      r.last.assign(tail.begin(), tail.end());
      spdlog::debug("uploaded {} MiB of key points", bytes.size() >> 20);
    }
    return static_cast<const std::byte*>(r.data.data());
  }

  // The device copies of the key's five MSM sections.
  struct KeyPoints {
    const ec::G1Affine *a, *b1, *c, *h;
    const ec::G2Affine* b2;
  };
  Result<KeyPoints> key_points(const groth16::ProvingKey& pk) {
    KeyPoints k{};
    PP_ASSIGN_OR_RETURN(k.a, resident_points(pk.a));
    PP_ASSIGN_OR_RETURN(k.b1, resident_points(pk.b1));
    PP_ASSIGN_OR_RETURN(k.b2, resident_points(pk.b2));
    PP_ASSIGN_OR_RETURN(k.c, resident_points(pk.c));
    PP_ASSIGN_OR_RETURN(k.h, resident_points(pk.h));
    return k;
  }

  // The five MSMs over the key's device points k, the device witness dw (C
  // reads its private part at an offset of n_public + 1 values: 32-byte
  // steps, so every Fr stays aligned) and the device h.
  Result<groth16::ProofMsms> five_msms(const groth16::ProvingKey& pk, const KeyPoints& k, const ff::Fr* dw,
                                       const ff::Fr* dh) {
    groth16::ProofMsms out;
    PP_ASSIGN_OR_RETURN(out.a, msm_on_device<ec::G1Cfg>(k.a, dw, pk.a.size()));
    PP_ASSIGN_OR_RETURN(out.b1, msm_on_device<ec::G1Cfg>(k.b1, dw, pk.b1.size()));
    PP_ASSIGN_OR_RETURN(out.b2, msm_on_device<ec::G2Cfg>(k.b2, dw, pk.b2.size()));
    PP_ASSIGN_OR_RETURN(out.c, msm_on_device<ec::G1Cfg>(k.c, dw + pk.n_public + 1, pk.c.size()));
    PP_ASSIGN_OR_RETURN(out.h, msm_on_device<ec::G1Cfg>(k.h, dh, pk.h.size()));
    return out;
  }

  // a, b and c (one size) into the H step's device buffers, queued on the
  // stream: asynchronous from page-locked memory.
  Status upload_abc(std::span<const ff::Fr> a, std::span<const ff::Fr> b, std::span<const ff::Fr> c) {
    const size_t n = a.size();
    cudaStream_t s = stream_.get();
    for (DeviceBuffer<ff::Fr>* d : {&da_, &db_, &dc_}) PP_RETURN_IF_ERROR(d->reserve(n));
    PP_RETURN_IF_ERROR(da_.upload(a.data(), n, s));
    PP_RETURN_IF_ERROR(db_.upload(b.data(), n, s));
    return dc_.upload(c.data(), n, s);
  }

  // A failed step of the taken-inputs path starts it over.
  Status keep_taken(Status st) {
    if (!st) taken_.reset();
    return st;
  }

  // Both MSMs: the key points resident (uploaded on first use), the
  // scalars uploaded, then the device MSM.
  template <class Cfg>
  Result<ec::Jacobian<Cfg>> msm(std::span<const ec::Affine<Cfg>> points, std::span<const ff::Fr> scalars,
                                const char* what) {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "{}: {} points, {} scalars", what, points.size(), scalars.size());
    if (points.empty()) return ec::Jacobian<Cfg>::identity();
    PP_ASSIGN_OR_RETURN(const ec::Affine<Cfg>* dp, resident_points(points));
    PP_ASSIGN_OR_RETURN(const ff::Fr* ds, upload_scalars(scalars));
    return msm_on_device<Cfg>(dp, ds, points.size());
  }

  // The device copy of a key section (nullptr for an empty one).
  template <class Cfg>
  Result<const ec::Affine<Cfg>*> resident_points(std::span<const ec::Affine<Cfg>> points) {
    if (points.empty()) return static_cast<const ec::Affine<Cfg>*>(nullptr);
    PP_ASSIGN_OR_RETURN(const std::byte* dp, resident(std::as_bytes(points), sizeof(ec::Affine<Cfg>)));
    return reinterpret_cast<const ec::Affine<Cfg>*>(dp);
  }

  // sum scalars[i] * points[i] over n device points and scalars.
  template <class Cfg>
  Result<ec::Jacobian<Cfg>> msm_on_device(const ec::Affine<Cfg>* points, const ff::Fr* scalars, size_t n) {
    if (n == 0) return ec::Jacobian<Cfg>::identity();
    return device_msm<Cfg>(points, scalars, n, scratch_, stream_.get());
  }

  Result<const ff::Fr*> upload_scalars(std::span<const ff::Fr> scalars) {
    PP_RETURN_IF_ERROR(scalars_.reserve(scalars.size()));
    PP_RETURN_IF_ERROR(scalars_.upload(scalars.data(), scalars.size(), stream_.get()));
    return static_cast<const ff::Fr*>(scalars_.data());
  }

  Stream stream_;
  DeviceBuffer<ff::Fr> da_, db_, dc_, scalars_;
  MsmScratch scratch_;
  std::map<unsigned, size_t> ntt_bytes_;  // NTT tables of the keys' domains (a process-wide cache)
  std::map<std::pair<const void*, size_t>, ResidentPoints> points_;
  std::vector<void*> pinned_;
  using Step = groth16::TakenInputs::Step;
  groth16::TakenInputs taken_;  // a, b, c in da_/db_/dc_ (h into da_), w in scalars_
};

}  // namespace

Result<std::unique_ptr<groth16::ProverBackend>> make_cuda_backend() {
  if (device_count() == 0) return make_error(ErrorCode::kUnavailable, "no CUDA device ({})", no_device_reason());
  auto backend = std::make_unique<CudaBackend>();
  PP_RETURN_IF_ERROR(backend->init());
  return std::unique_ptr<groth16::ProverBackend>(std::move(backend));
}

// proofpipe/cuda/ntt.hpp's host-span H step: a backend for one call.
Status compute_h(std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c) {
  CudaBackend backend;
  PP_RETURN_IF_ERROR(backend.init());
  return backend.compute_h(a, b, c);
}

Result<std::unique_ptr<groth16::ProverBackend>> make_backend(groth16::BackendKind kind, std::string* notice) {
  switch (kind) {
    case groth16::BackendKind::kCpu: return groth16::make_cpu_backend();
    case groth16::BackendKind::kCuda: return make_cuda_backend();
    case groth16::BackendKind::kAuto: break;
  }
  auto cuda = make_cuda_backend();
  if (cuda) return cuda;
  if (notice != nullptr) *notice = cuda.status().message() + ": proving on the CPU";
  return groth16::make_cpu_backend();
}

}  // namespace proofpipe::cuda
