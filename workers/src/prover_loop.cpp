// Proving worker loop (prover_loop.hpp). Fault sites, in the order a partition
// reaches them (docs/design/recovery.md §6): gpu.after_claim (slot held),
// gpu.intake (taken-inputs intake only: the upload failed with the slot
// held; device_lost/error), gpu.after_release (record out, slot free),
// gpu.mid_compute (H done, MSMs next; also device_lost/error, the errors a
// backend op returns), gpu.before_proof_msg (proof made, not yet sent).
//
// Two ways to take a record out of its slot (PP_GPU_INTAKE=copy|take
// overrides the backend's preference):
//
//   copy (CPU backend)             take (CUDA backend)
//   slot ──copy+checksum──> a,b,c,w  slot ──DMA (ring page-locked)──> device
//          one read, all threads         ║ checksum on the CPU meanwhile
//   release slot                     wait for the DMA, compare, release slot
//   H in place, MSMs from a, w       H and MSMs on the device copies
//
// The take intake keeps no record buffers in the worker (2 GiB of
// page-locked memory at 2^24 in the copy intake) and writes nothing on the
// host: the copy intake's 2 GiB write and the h download and upload go.
//
// The curve is each key's (docs/curves.md): run() reads every zkey's curve,
// makes one GpuWorker<C> per curve present over that curve's keys, and hands
// each DISPATCH to the worker of its key's curve; everything else is one
// template over C. The PROOF body is sizeof(formats::ProofT<C>) bytes of
// proof, the coordinator's key knows which (docs/pipeline.md).
#include "prover_loop.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "curve_keys.hpp"
#include "proofpipe/backends/factory.hpp"
#include "proofpipe/common/fault.hpp"
#include "proofpipe/common/progress.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/ipc/partition_layout.hpp"

namespace proofpipe::prover {
namespace {

using ipc::MsgHeader;
using ipc::MsgType;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// The copy intake's record buffers, reused across partitions (one slot's
// worth of memory, sized for the largest key of either curve: both curves'
// Fr are 32 bytes, so one set serves both). The backend page-locks them, so
// they must outlive it (run() declares them before the backends).
struct RecordBuffers {
  std::vector<uint64_t> a, b, c, w;  // 4 words per Fr
  void size_for(uint64_t domain, uint64_t vars) {
    for (std::vector<uint64_t>* v : {&a, &b, &c}) v->resize(4 * domain);
    w.resize(4 * vars);
  }
  template <class Fr>
  static std::span<Fr> fr(std::vector<uint64_t>& v, uint64_t count) {
    static_assert(sizeof(Fr) == 4 * sizeof(uint64_t) && alignof(Fr) <= alignof(uint64_t));
    return {reinterpret_cast<Fr*>(v.data()), count};
  }
};

// One of the run's keys, ready to prove: its view of the mapped zkey and a
// backend prepared for it (device-resident points on a GPU), kept for the
// life of the worker so no partition pays the key's upload.
template <class C>
struct KeyContext {
  groth16::ProvingKeyT<C> pk;
  ipc::PartitionLayout layout;
  std::unique_ptr<groth16::ProverBackendT<C>> backend;
};
template <class C>
using KeyContexts = workers::CurveKeys<KeyContext<C>>;

// The backend of the first key present (at least one must be).
template <class C>
groth16::ProverBackendT<C>& first_backend(KeyContexts<C>& keys) {
  for (auto& k : keys)
    if (k) return *k->backend;
  PP_ASSERT(false, "no key of this curve");
  __builtin_unreachable();
}

template <class C>
class GpuWorker {
 public:
  using Fr = typename C::Fr;
  GpuWorker(ipc::WorkerSession& session, KeyContexts<C>& keys, bool take, RecordBuffers& record)
      : s_(session), keys_(keys), take_(take), rec_(record) {}

  // Copy intake: sizes the record buffers once for the key and lets the
  // backend page-lock them. Take intake: lets the backend page-lock the
  // ring's payload, which it uploads from. Then the backend's one-time work
  // for the key (tables, resident points), so that it is paid before the
  // first dispatch, not inside the first proof.
  // Page-locking is per process, not per backend: the run's first key's
  // backend pins the memory once (pin = true for its curve's worker; a second
  // registration of the same pages would be refused), and every key's
  // backend uploads from it. The copy intake's buffers are sized by run().
  Status prepare(bool pin) {
    groth16::ProverBackendT<C>& first = first_backend(keys_);
    if (pin && take_) {
      const std::span<std::byte> ring = s_.ring().slots().payload_segment();
      PP_RETURN_IF_ERROR(first.pin_host_memory(ring.data(), ring.size()));
    } else if (pin) {
      for (std::vector<uint64_t>* v : {&rec_.a, &rec_.b, &rec_.c, &rec_.w}) {
        PP_RETURN_IF_ERROR(first.pin_host_memory(v->data(), v->size() * sizeof(uint64_t)));
      }
    }
    for (std::optional<KeyContext<C>>& key : keys_) {
      if (!key) continue;
      KeyContext<C>& k = *key;
      const auto t0 = Clock::now();
      note_progress("prepare backend");
      PP_RETURN_IF_ERROR(k.backend->prepare(k.pk));
      // A device backend's memory is an operator's figure (info); the CPU backend has none.
      const size_t held = k.backend->device_bytes();
      spdlog::log(held != 0 ? spdlog::level::info : spdlog::level::debug,
                  "backend prepared for a key of domain {} in {:.3f} s{}", k.pk.domain_size, seconds(t0, Clock::now()),
                  held != 0 ? fmt::format("; device memory held: {:.1f} MiB", double(held) / (1 << 20)) : "");
    }
    return Status::ok();
  }

  Status handle_dispatch(const MsgHeader& d) {
    // A bad key index (curve_keys.hpp): nothing is claimed yet, and the
    // worker stops (the crash-loop breaker ends a run that repeats it).
    PP_ASSIGN_OR_RETURN(cur_, workers::key_at<C>(keys_, d.key, "dispatch"));
    shm::SlotRing& slots = s_.ring().slots();
    const auto claimed = d.slot < slots.slot_count() ? slots.claim(d.slot, s_.seat(), d.epoch) : std::nullopt;
    if (!claimed) return s_.send(MsgType::kClaimLost, d);
    const shm::Epoch epoch = *claimed;  // CONSUMING(us)
    MsgHeader h = d;
    h.epoch = epoch;
    PP_RETURN_IF_ERROR(s_.send(MsgType::kClaimed, h));
    fault_point("gpu.after_claim", int(d.partition));

    // Take the record out of the slot (into this worker's buffers, or the
    // backend's: the H step works in place and must never scribble on
    // shared bytes, or a CONSUMING -> READY reclaim would hand a clobbered
    // record to the next prover), checking its checksum on the way, then
    // release the slot.
    // Each stage counts as progress for the heartbeat (ipc/worker.hpp); CPU
    // work counts its own chunks (parallel_for).
    note_progress("intake");
    ipc::ProveStages stages;  // the worker's own clock, fault-point delays left out
    const auto t_claimed = Clock::now();
    Status backend_st;  // take intake: the copy into the backend
    Status bad = take_ ? take_record_into_backend(d, backend_st) : take_record(d);
    stages.intake_s = seconds(t_claimed, Clock::now());
    // A sticky device error with the slot still held: the worker exits, and
    // the coordinator's CONSUMING -> READY reclaim proves the record again.
    if (backend_st.code() == ErrorCode::kDeviceLost) return backend_st;
    if (!bad) {
      spdlog::error("slot {}: {}", d.slot, bad.message());
      const auto quarantined = slots.quarantine(d.slot, shm::SlotWord{shm::SlotState::kConsuming, s_.seat(), epoch});
      if (!quarantined) spdlog::warn("quarantine lost: slot {} moved", d.slot);
      // Killed here, the QUARANTINED word is all the coordinator learns: its
      // reconcile scan frees the slot and requeues the partition.
      fault_point("gpu.after_quarantine", int(d.partition));
      h.epoch = quarantined.value_or(epoch);
      return s_.send(MsgType::kQuarantined, h, bad.message());
    }
    const auto released = slots.release(d.slot, s_.seat(), epoch);
    if (!released) spdlog::warn("release lost: slot {} moved", d.slot);
    h.epoch = released.value_or(epoch);
    PP_RETURN_IF_ERROR(s_.send(MsgType::kReleased, h));
    // A failed copy into the backend (not sticky): the slot is free again
    // and the partition goes back to be synthesized again.
    if (!backend_st) return prove_failed(h, backend_st);
    fault_point("gpu.after_release", int(d.partition));

    note_progress("h step");
    const auto t_taken = Clock::now();
    Result<groth16::PreparedProofT<C>> prepared = groth16::PreparedProofT<C>{};
    if (take_) {
      if (Status st = cur_->backend->compute_h_taken(); !st) return prove_failed(h, st);
    } else {
      const uint64_t n = cur_->layout.domain_size;
      prepared = groth16::prove_start(*cur_->backend, cur_->pk, RecordBuffers::fr<Fr>(rec_.w, cur_->layout.n_vars),
                                      RecordBuffers::fr<Fr>(rec_.a, n), RecordBuffers::fr<Fr>(rec_.b, n),
                                      RecordBuffers::fr<Fr>(rec_.c, n));
      if (!prepared) return prove_failed(h, prepared.status());
    }
    stages.h_s = seconds(t_taken, Clock::now());
    // A fault here may also return the error a device op gives (a sticky
    // kDeviceLost, or a plain failure), so the paths below are tested on CPUs.
    if (Status st = fault_status("gpu.mid_compute", int(d.partition)); !st) return prove_failed(h, st);
    note_progress("msms");
    const auto t_h = Clock::now();
    auto proof = take_ ? groth16::prove_taken_finish(*cur_->backend, cur_->pk)
                       : groth16::prove_finish(*cur_->backend, cur_->pk, *prepared);
    if (!proof) return prove_failed(h, proof.status());
    stages.msms_s = seconds(t_h, Clock::now());
    spdlog::debug("proved job {}/{}: intake {:.3f} s, H {:.3f} s, MSMs {:.3f} s", d.job, d.partition, stages.intake_s,
                  stages.h_s, stages.msms_s);
    fault_point("gpu.before_proof_msg", int(d.partition));
    return s_.send(MsgType::kProof, h, ipc::encode_proof(*proof, stages));
  }

 private:
  // A proof that failed goes back to the queue. A lost device (a sticky CUDA
  // error) cannot be mended in this process: the error goes up to serve(),
  // which exits with kWorkerExitDevice, and the coordinator's restart of this
  // seat proves the partition again on a fresh context.
  Status prove_failed(const MsgHeader& h, const Status& why) {
    if (why.code() == ErrorCode::kDeviceLost) return why;
    return s_.send(MsgType::kProveFailed, h, why.message());
  }

  // Copies a, b, c and w out of the slot into this worker's buffers,
  // hashing each copied piece while it is cache-hot (one read of the shared
  // bytes), on all of the worker's threads: at 2^24 the record is 2 GiB, and
  // the slot cannot be released, nor the proof start, before this is done.
  // The record must be the one the dispatch names, sealed under this key's
  // layout, with an intact checksum.
  Status take_record(const MsgHeader& d) {
    PP_ASSIGN_OR_RETURN(const auto meta, check_record(d));
    const uint64_t n = cur_->layout.domain_size;
    const std::span<std::byte> dst[] = {std::as_writable_bytes(RecordBuffers::fr<Fr>(rec_.a, n)),
                                        std::as_writable_bytes(RecordBuffers::fr<Fr>(rec_.b, n)),
                                        std::as_writable_bytes(RecordBuffers::fr<Fr>(rec_.c, n)),
                                        std::as_writable_bytes(RecordBuffers::fr<Fr>(rec_.w, cur_->layout.n_vars))};
    return check_sum(d, meta,
                     shm::copy_with_record_checksum(s_.ring().slots().payload(d.slot).first(meta.payload_len), dst));
  }

  // The take intake: the backend starts copying a, b, c and w straight
  // from the slot (DMA from the page-locked ring), the worker's threads
  // checksum the slot meanwhile, and the copy has finished before this
  // returns, whatever the verdict, so the slot may change hands after.
  // Returns the record's verdict; the backend's own goes to backend_st.
  Status take_record_into_backend(const MsgHeader& d, Status& backend_st) {
    PP_ASSIGN_OR_RETURN(const auto meta, check_record(d));
    const std::span<const std::byte> bytes = s_.ring().slots().payload(d.slot).first(meta.payload_len);
    const auto fr = [&](uint64_t offset, uint64_t count) {
      return std::span(reinterpret_cast<const Fr*>(bytes.data() + offset), count);
    };
    const uint64_t n = cur_->layout.domain_size;
    backend_st = fault_status("gpu.intake", int(d.partition));
    if (backend_st) {
      backend_st = cur_->backend->take_inputs({fr(cur_->layout.a_offset(), n), fr(cur_->layout.b_offset(), n),
                                               fr(cur_->layout.c_offset(), n),
                                               fr(cur_->layout.witness_offset(), cur_->layout.n_vars)});
    }
    if (!backend_st) return Status::ok();  // nothing in flight; the record was not judged
    const uint64_t sum = shm::record_checksum(bytes);
    backend_st = cur_->backend->inputs_taken();
    return check_sum(d, meta, sum);
  }

  // The dispatch's record, sealed under this key's layout.
  Result<shm::SlotRing::Meta> check_record(const MsgHeader& d) {
    PP_ASSIGN_OR_RETURN(auto meta, s_.ring().slots().check_header(d.slot));
    if (meta.job_id != d.job || meta.partition_id != d.partition || meta.attempt != d.attempt) {
      return make_error(ErrorCode::kBadFormat, "record is job {}/{} attempt {}, dispatch said {}/{} attempt {}",
                        meta.job_id, meta.partition_id, meta.attempt, d.job, d.partition, d.attempt);
    }
    if (meta.payload_len != cur_->layout.payload_len()) {
      return make_error(ErrorCode::kBadFormat, "record is {} bytes, the key needs {}", meta.payload_len,
                        cur_->layout.payload_len());
    }
    return meta;
  }

  static Status check_sum(const MsgHeader& d, const shm::SlotRing::Meta& meta, uint64_t sum) {
    if (sum == meta.checksum) return Status::ok();
    return make_error(ErrorCode::kBadFormat,
                      "job {}/{} attempt {}: payload checksum {:#018x} does not match header {:#018x}", d.job,
                      d.partition, d.attempt, sum, meta.checksum);
  }

  ipc::WorkerSession& s_;
  KeyContexts<C>& keys_;
  KeyContext<C>* cur_ = nullptr;  // the key of the dispatch in hand
  const bool take_;               // the intake: take (into the backend) or copy (into rec_)
  RecordBuffers& rec_;            // the copied record
};

// The intake: PP_GPU_INTAKE=copy|take, else the backend's preference.
template <class C>
Result<bool> take_intake(const groth16::ProverBackendT<C>& backend) {
  const char* env = std::getenv("PP_GPU_INTAKE");
  const std::string_view v = env != nullptr ? env : "";
  if (v.empty()) return backend.prefers_taking_inputs();
  if (v == "take" || v == "copy") return v == "take";
  return make_error(ErrorCode::kInvalidArgument, "PP_GPU_INTAKE={}: expected copy or take", v);
}

// The devices the coordinator gave this seat (--gpus), named in every
// set-up failure, so "no CUDA device" says which device was missing.
struct Devices {
  std::string visible;  // CUDA_VISIBLE_DEVICES, "" if unset
  std::string where;    // " (CUDA_VISIBLE_DEVICES=...)" or ""
  int setup_failed(const Status& st) const {
    spdlog::error("set-up failed{}: {}", where, st.message());
    return st.code() == ErrorCode::kDeviceLost ? ipc::kWorkerExitDevice : ipc::kWorkerExitSetup;
  }
};

// The run's keys of curve C (curve[i] is key i's), each with its backend,
// and the worker over them when there are any.
template <class C>
struct CurveSide {
  // Declared before the backends, which must not outlive them: the keys
  // (their points are the backends' resident copies' source).
  std::vector<formats::ZkeyT<C>> zkeys;
  KeyContexts<C> keys;
  std::optional<GpuWorker<C>> worker;
  bool take = false;  // the intake (choose_intake)

  Status load(const ipc::WorkerArgs& args, std::span<const curves::CurveId> curve, groth16::BackendKind kind,
              bool* noticed) {
    zkeys.reserve(args.zkeys.size());
    keys.resize(args.zkeys.size());
    for (size_t i = 0; i < args.zkeys.size(); ++i) {
      if (curve[i] != curves::curve_id<C>()) continue;
      PP_ASSIGN_OR_RETURN(auto zkey, formats::load_zkey<C>(args.zkeys[i]));
      zkeys.push_back(std::move(zkey));
      std::string notice;
      PP_ASSIGN_OR_RETURN(auto backend, backends::make_backend_for<C>(kind, &notice));
      if (!notice.empty() && !*noticed) spdlog::info("{}", notice);
      *noticed = *noticed || !notice.empty();
      groth16::ProvingKeyT<C> pk = groth16::proving_key_of(zkeys.back());
      const ipc::PartitionLayout layout{pk.domain_size, pk.n_vars};
      keys[i] = KeyContext<C>{pk, layout, std::move(backend)};
    }
    return Status::ok();
  }
  size_t count() const {
    return size_t(std::count_if(keys.begin(), keys.end(), [](const auto& k) { return bool(k); }));
  }
  // The intake, from the first key's backend (copy when there are no keys).
  Status choose_intake() {
    if (count() == 0) return Status::ok();
    PP_ASSIGN_OR_RETURN(take, take_intake(first_backend(keys)));
    return Status::ok();
  }
  // Widens (domain, vars) to this side's keys when it copies records.
  void grow_record(uint64_t& domain, uint64_t& vars) const {
    if (take) return;
    for (const auto& k : keys) {
      if (!k) continue;
      domain = std::max<uint64_t>(domain, k->layout.domain_size);
      vars = std::max<uint64_t>(vars, k->layout.n_vars);
    }
  }
  // The worker over these keys, if any; pin: this curve has the run's first
  // key, whose backend page-locks the process's memory.
  Status start(ipc::WorkerSession& s, RecordBuffers& record, bool pin) {
    if (count() == 0) return Status::ok();
    worker.emplace(s, keys, take, record);
    return worker->prepare(pin);
  }
};

}  // namespace

int run(const ipc::WorkerArgs& args) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  Devices dev;
  dev.visible = visible != nullptr ? visible : "";
  dev.where = visible != nullptr ? fmt::format(" (CUDA_VISIBLE_DEVICES={})", dev.visible) : "";
  auto session = ipc::WorkerSession::start(ipc::Role::kProver, args);
  if (!session) return dev.setup_failed(session.status());
  ipc::WorkerSession& s = **session;
  note_progress("load keys");
  auto kind = groth16::parse_backend_kind(args.backend);
  if (!kind) return dev.setup_failed(kind.status());
  auto key_curves = formats::zkey_curves(args.zkeys);
  if (!key_curves) return dev.setup_failed(key_curves.status());
  const std::vector<curves::CurveId>& curve = *key_curves;
  // The record buffers before the backends (which may page-lock them), then
  // one side per curve, each loading only its own keys.
  RecordBuffers record;
  CurveSide<curves::Bls12_381> bls;
  CurveSide<curves::Bn254> bn;
  bool noticed = false;
  if (Status st = bls.load(args, curve, *kind, &noticed); !st) return dev.setup_failed(st);
  if (Status st = bn.load(args, curve, *kind, &noticed); !st) return dev.setup_failed(st);
  // Each curve's intake from its first key's backend; the copy intake's
  // buffers (one set, for the largest key) only for the sides that copy.
  if (Status st = bls.choose_intake(); !st) return dev.setup_failed(st);
  if (Status st = bn.choose_intake(); !st) return dev.setup_failed(st);
  uint64_t domain = 0, vars = 0;
  bls.grow_record(domain, vars);
  bn.grow_record(domain, vars);
  record.size_for(domain, vars);
  const bool bn_first = curve.front() == curves::CurveId::kBn254;
  if (Status st = bls.start(s, record, !bn_first); !st) return dev.setup_failed(st);
  if (Status st = bn.start(s, record, bn_first); !st) return dev.setup_failed(st);
  // The log line and the hello name the run's first key's backend and intake.
  const std::string name(bn_first ? first_backend(bn.keys).name() : first_backend(bls.keys).name());
  const bool take = bn_first ? bn.take : bls.take;
  spdlog::info("backend {}{}, {} intake, {} bls12381 and {} bn128 key(s)", name, dev.where, take ? "take" : "copy",
               bls.count(), bn.count());
  if (!s.ready(ipc::encode_gpu_hello({name, name == "cuda" ? dev.visible : "", take ? "take" : "copy"})))
    return ipc::kWorkerExitProtocol;
  return ipc::serve(s, MsgType::kDispatch, [&](const ipc::Message& m) {
    const bool to_bn = workers::goes_to_bn254(curve, m.header.key, bls.worker.has_value());
    return to_bn ? bn.worker->handle_dispatch(m.header) : bls.worker->handle_dispatch(m.header);
  });
}

}  // namespace proofpipe::prover
