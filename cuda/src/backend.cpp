// CudaBackend: the prover's heavy operations on the GPU (see backend.hpp).
//
// One stream per backend; every operation ends with a stream sync (but
// take_inputs, whose sync is inputs_taken), so the interface stays
// synchronous like the CPU backend's. Key points are
// uploaded once and cached by host span; a section with enough identity
// points (B1 and B2: 62 % at 2^20, ~75 % for PoRep) goes up without them,
// with the position of each point kept (key_compaction.hpp):
//
//   host (mmap of the zkey)            device (resident for the lifetime)
//   +--------------------+  first use  +------------------+
//   | section 5: A points| ----------> | A points          |  key: (ptr, n)
//   | section 6: B1 ...  | ----------> | B1 points != 0,   |  + first/last point
//   +--------------------+  compacted  |  their positions  |    (stale check)
//                                      +------------------+
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
#include "proofpipe/cuda/device_need.hpp"
#include "proofpipe/cuda/key_compaction.hpp"
#include "proofpipe/cuda/ntt.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::cuda {
namespace {

// A device copy of one span of key points. The span's address and length
// name it; the first and last points are kept to catch a caller that reuses
// the same buffer for different points (then the copy is refreshed).
struct ResidentPoints {
  DeviceBuffer<std::byte> data;  // the points on the device
  DeviceBuffer<uint32_t> index;  // their positions in the span; empty: all of it
  std::vector<std::byte> first, last;
  size_t bytes() const { return data.bytes() + index.bytes(); }
};

// An MSM's terms on the device: term i is scalars[index ? index[i] : i] *
// points[i], i < count.
template <class Cfg>
struct DevicePoints {
  const ec::Affine<Cfg>* points = nullptr;
  const uint32_t* index = nullptr;
  size_t count = 0;
};

class CudaBackend final : public groth16::ProverBackendT<curves::Bls12_381> {
 public:
  ~CudaBackend() override {
    for (void* p : pinned_) (void)cudaHostUnregister(p);
  }

  Status init() { return stream_.create(); }

  std::string_view name() const override { return "cuda"; }

  Status compute_h(std::span<bls12_381::Fr> a, std::span<bls12_381::Fr> b, std::span<bls12_381::Fr> c) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, groth16::h_step_log_size(a.size(), b.size(), c.size()));
    const size_t n = a.size();
    cudaStream_t s = stream_.get();
    PP_RETURN_IF_ERROR(upload_abc(a, b, c));
    PP_RETURN_IF_ERROR(compute_h_device(da_.data(), db_.data(), dc_.data(), log_n, s));
    PP_RETURN_IF_ERROR(da_.download(a.data(), n, s));
    return stream_.sync();
  }

  Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> points,
                               std::span<const bls12_381::Fr> scalars) override {
    return msm<bls12_381::G1Cfg>(points, scalars, "msm_g1");
  }
  Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> points,
                               std::span<const bls12_381::Fr> scalars) override {
    return msm<bls12_381::G2Cfg>(points, scalars, "msm_g2");
  }

  // The witness crosses the bus once for A, B1, B2 and C, h once into
  // compute_h's buffer. The points are resolved first, so no upload is left
  // in flight when one fails.
  Result<ProofMsms> proof_msms(const ProvingKey& pk, std::span<const bls12_381::Fr> w, std::span<const bls12_381::Fr> h,
                               const bls12_381::Fr& /*r: not folded*/) override {
    PP_RETURN_IF_ERROR(groth16::check_proof_msm_inputs(pk, w.size(), h.size()));
    PP_ASSIGN_OR_RETURN(const KeyPoints k, key_points(pk));
    PP_ASSIGN_OR_RETURN(const bls12_381::Fr* dw, upload_scalars(w));
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

  Status take_inputs(const ProofInputs& in) override {
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

  Result<ProofMsms> proof_msms_taken(const ProvingKey& pk, const bls12_381::Fr& /*r*/) override {
    PP_RETURN_IF_ERROR(taken_.advance(Step::kHDone, Step::kNone, "proof_msms_taken"));
    PP_RETURN_IF_ERROR(groth16::check_proof_msm_inputs(pk, taken_.n_vars(), taken_.domain_size()));
    PP_ASSIGN_OR_RETURN(const KeyPoints k, key_points(pk));
    return five_msms(pk, k, scalars_.data(), da_.data());
  }

  // One-time work before the first proof: the NTT tables of the domain,
  // the per-proof buffers at full size, every key section resident; then
  // the known-answer test.
  Status prepare(const ProvingKey& pk) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, groth16::h_step_log_size(pk.domain_size, pk.domain_size, pk.domain_size));
    // A key the device has no room for is refused here, with the sizes,
    // not by a cudaMalloc halfway through the uploads.
    size_t free_bytes = 0, total_bytes = 0;
    PP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const KeyLayout layout = key_layout(pk);  // the one count of each section's identity points
    PP_RETURN_IF_ERROR(check_device_room(device_need(pk, layout), free_bytes, device_bytes()));
    PP_ASSIGN_OR_RETURN(const NttTables* tables, ntt_tables(log_n));
    ntt_bytes_[log_n] = tables->bytes;
    for (DeviceBuffer<bls12_381::Fr>* d : {&da_, &db_, &dc_}) PP_RETURN_IF_ERROR(d->reserve(pk.domain_size));
    PP_RETURN_IF_ERROR(scalars_.reserve(std::max<size_t>(pk.domain_size, pk.n_vars)));
    PP_ASSIGN_OR_RETURN(const KeyPoints k, key_points(pk, &layout));
    // The MSM scratch for the largest MSM of each group (the points on the
    // device: a compacted section's MSM has fewer terms), whatever the
    // witness's mix of 0, +-1 and other scalars: 3.8 GiB for a `gen` key at
    // 2^24, about 0.5 GiB at 2^20 (docs/gpu.md).
    const size_t g1_terms = std::max({k.a.count, k.b1.count, k.c.count, k.h.count});
    PP_RETURN_IF_ERROR(reserve_msm_g1(scratch_, g1_terms, stream_.get()));
    PP_RETURN_IF_ERROR(reserve_msm_g2(scratch_, k.b2.count, stream_.get()));
    // The readiness gate: this device gives the CPU's answers before the
    // worker says HELLO, or the worker fails its set-up and takes no work.
    return groth16::known_answer_test(*this, pk);
  }

  size_t device_bytes() const override {
    size_t b = da_.bytes() + db_.bytes() + dc_.bytes() + scalars_.bytes() + scratch_.bytes();
    for (const auto& [span, r] : points_) b += r.bytes();
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
  // The device copy of a span of points (none for an empty one), uploaded
  // on first use and again when its first or last point changed; without
  // its identity points when that saves memory (worth_compacting). `known`:
  // the section's layout when the caller already counted it.
  template <class Cfg>
  Result<DevicePoints<Cfg>> resident_points(std::span<const ec::Affine<Cfg>> points,
                                            const StoredSection* known = nullptr) {
    using A = ec::Affine<Cfg>;
    if (points.empty()) return DevicePoints<Cfg>{};
    const auto bytes = std::as_bytes(points);
    ResidentPoints& r = points_[{bytes.data(), points.size()}];
    const auto head = bytes.first(sizeof(A)), tail = bytes.last(sizeof(A));
    const bool same = r.first.size() == sizeof(A) && std::memcmp(r.first.data(), head.data(), sizeof(A)) == 0 &&
                      std::memcmp(r.last.data(), tail.data(), sizeof(A)) == 0;
    if (!same) {
      // Forgotten first: a failed upload must not leave a copy that looks current.
      r.first.clear();
      r.last.clear();
      PP_RETURN_IF_ERROR(upload_points(points, known != nullptr ? *known : stored_section(points), r));
      r.first.assign(head.begin(), head.end());
      r.last.assign(tail.begin(), tail.end());
    }
    return DevicePoints<Cfg>{reinterpret_cast<const A*>(r.data.data()), r.index.data(), r.data.size() / sizeof(A)};
  }

  // Uploads a span of points into r: all of them, or the ones that are not
  // the identity with their positions, gathered on the host in chunks of
  // 2^18 points (24 MiB of G1) and synchronised before the next.
  template <class Cfg>
  Status upload_points(std::span<const ec::Affine<Cfg>> points, const StoredSection& layout, ResidentPoints& r) {
    using A = ec::Affine<Cfg>;
    cudaStream_t s = stream_.get();
    r.index.reset();
    if (!layout.compacted) {
      PP_RETURN_IF_ERROR(r.data.allocate(points.size_bytes()));
      PP_RETURN_IF_ERROR(r.data.upload(reinterpret_cast<const std::byte*>(points.data()), points.size_bytes(), s));
      spdlog::debug("uploaded {} MiB of key points", r.data.bytes() >> 20);
      return stream_.sync();
    }
    const std::vector<uint32_t> index = present_points<Cfg>(points);
    const size_t count = index.size();
    PP_RETURN_IF_ERROR(r.data.allocate(count * sizeof(A)));
    PP_RETURN_IF_ERROR(r.index.allocate(count));
    PP_RETURN_IF_ERROR(r.index.upload(index.data(), count, s));
    std::vector<A> chunk(std::min<size_t>(count, size_t(1) << 18));
    for (size_t first = 0; first < count; first += chunk.size()) {
      const std::span<A> part = std::span<A>(chunk).first(std::min(chunk.size(), count - first));
      gather_points<Cfg>(points, index, first, part);
      PP_RETURN_IF_ERROR(
          r.data.upload(reinterpret_cast<const std::byte*>(part.data()), part.size_bytes(), s, first * sizeof(A)));
      PP_RETURN_IF_ERROR(stream_.sync());  // chunk is reused, index freed on return
    }
    spdlog::debug("uploaded {} MiB of key points ({} of {} not the identity)", r.data.bytes() >> 20, count,
                  points.size());
    return stream_.sync();
  }

  // The device copies of the key's five MSM sections.
  struct KeyPoints {
    DevicePoints<bls12_381::G1Cfg> a, b1, c, h;
    DevicePoints<bls12_381::G2Cfg> b2;
  };
  // `layout`, when given, is pk's (prepare() counted it for the room check).
  Result<KeyPoints> key_points(const ProvingKey& pk, const KeyLayout* layout = nullptr) {
    KeyPoints k{};
    const auto known = [&](const StoredSection KeyLayout::*s) { return layout != nullptr ? &(layout->*s) : nullptr; };
    PP_ASSIGN_OR_RETURN(k.a, resident_points(pk.a, known(&KeyLayout::a)));
    PP_ASSIGN_OR_RETURN(k.b1, resident_points(pk.b1, known(&KeyLayout::b1)));
    PP_ASSIGN_OR_RETURN(k.b2, resident_points(pk.b2, known(&KeyLayout::b2)));
    PP_ASSIGN_OR_RETURN(k.c, resident_points(pk.c, known(&KeyLayout::c)));
    PP_ASSIGN_OR_RETURN(k.h, resident_points(pk.h, known(&KeyLayout::h)));
    return k;
  }

  // The five MSMs over the key's device points k, the device witness dw (C
  // reads its private part at an offset of n_public + 1 values: 32-byte
  // steps, so every Fr stays aligned) and the device h.
  Result<ProofMsms> five_msms(const ProvingKey& pk, const KeyPoints& k, const bls12_381::Fr* dw,
                              const bls12_381::Fr* dh) {
    ProofMsms out;
    PP_ASSIGN_OR_RETURN(out.a, msm_on_device(k.a, dw));
    PP_ASSIGN_OR_RETURN(out.b1, msm_on_device(k.b1, dw));
    PP_ASSIGN_OR_RETURN(out.b2, msm_on_device(k.b2, dw));
    PP_ASSIGN_OR_RETURN(out.c, msm_on_device(k.c, dw + pk.n_public + 1));
    PP_ASSIGN_OR_RETURN(out.h, msm_on_device(k.h, dh));
    return out;
  }

  // a, b and c (one size) into the H step's device buffers, queued on the
  // stream: asynchronous from page-locked memory.
  Status upload_abc(std::span<const bls12_381::Fr> a, std::span<const bls12_381::Fr> b,
                    std::span<const bls12_381::Fr> c) {
    const size_t n = a.size();
    cudaStream_t s = stream_.get();
    for (DeviceBuffer<bls12_381::Fr>* d : {&da_, &db_, &dc_}) PP_RETURN_IF_ERROR(d->reserve(n));
    PP_RETURN_IF_ERROR(da_.upload(a.data(), n, s));
    PP_RETURN_IF_ERROR(db_.upload(b.data(), n, s));
    return dc_.upload(c.data(), n, s);
  }

  // A failed step of the taken-inputs path starts it over.
  Status keep_taken(Status st) {
    if (!st) taken_.reset();
    return st;
  }

  // Both MSMs: the key points resident (from prepare(), or uploaded here
  // once for points it did not see), the
  // scalars uploaded, then the device MSM.
  template <class Cfg>
  Result<ec::Jacobian<Cfg>> msm(std::span<const ec::Affine<Cfg>> points, std::span<const bls12_381::Fr> scalars,
                                const char* what) {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "{}: {} points, {} scalars", what, points.size(), scalars.size());
    if (points.empty()) return ec::Jacobian<Cfg>::identity();
    PP_ASSIGN_OR_RETURN(const DevicePoints<Cfg> dp, resident_points(points));
    PP_ASSIGN_OR_RETURN(const bls12_381::Fr* ds, upload_scalars(scalars));
    return msm_on_device(dp, ds);
  }

  // The MSM of device points over the device scalars (a whole witness or
  // span; a compacted section reads it through its index).
  template <class Cfg>
  Result<ec::Jacobian<Cfg>> msm_on_device(const DevicePoints<Cfg>& p, const bls12_381::Fr* scalars) {
    if (p.count == 0) return ec::Jacobian<Cfg>::identity();
    return device_msm<Cfg>(p.points, scalars, p.count, scratch_, stream_.get(), {}, p.index);
  }

  Result<const bls12_381::Fr*> upload_scalars(std::span<const bls12_381::Fr> scalars) {
    PP_RETURN_IF_ERROR(scalars_.reserve(scalars.size()));
    PP_RETURN_IF_ERROR(scalars_.upload(scalars.data(), scalars.size(), stream_.get()));
    return static_cast<const bls12_381::Fr*>(scalars_.data());
  }

  Stream stream_;
  DeviceBuffer<bls12_381::Fr> da_, db_, dc_, scalars_;
  MsmScratch scratch_;
  std::map<unsigned, size_t> ntt_bytes_;  // NTT tables of the keys' domains (a process-wide cache)
  std::map<std::pair<const void*, size_t>, ResidentPoints> points_;
  std::vector<void*> pinned_;
  using Step = groth16::TakenInputs::Step;
  groth16::TakenInputs taken_;  // a, b, c in da_/db_/dc_ (h into da_), w in scalars_
};

}  // namespace

Result<std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>> make_cuda_backend() {
  if (device_count() == 0) return make_error(ErrorCode::kUnavailable, "no CUDA device ({})", no_device_reason());
  auto backend = std::make_unique<CudaBackend>();
  PP_RETURN_IF_ERROR(backend->init());
  return std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>(std::move(backend));
}

// proofpipe/cuda/ntt.hpp's host-span H step: a backend for one call.
Status compute_h(std::span<bls12_381::Fr> a, std::span<bls12_381::Fr> b, std::span<bls12_381::Fr> c) {
  CudaBackend backend;
  PP_RETURN_IF_ERROR(backend.init());
  return backend.compute_h(a, b, c);
}

}  // namespace proofpipe::cuda
