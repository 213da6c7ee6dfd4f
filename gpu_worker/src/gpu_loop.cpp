// Proving worker loop (gpu_loop.hpp). Fault sites, in the order a partition
// reaches them (shm-recovery.md §3): gpu.after_claim, gpu.mid_compute (H done,
// slot still held), gpu.after_release, gpu.before_proof_msg.
#include "gpu_loop.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <type_traits>

#include "proofpipe/common/fault.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/ipc/partition_layout.hpp"

namespace proofpipe::gpu {
namespace {

using ipc::MsgHeader;
using ipc::MsgType;

static_assert(std::is_trivially_copyable_v<groth16::Proof>, "proofs travel as raw bytes");

class GpuWorker {
 public:
  GpuWorker(ipc::WorkerSession& session, const groth16::ProvingKey& pk, groth16::ProverBackend& backend)
      : s_(session), pk_(pk), backend_(backend), layout_{pk.domain_size, pk.n_vars} {}

  Status handle_dispatch(const MsgHeader& d) {
    shm::SlotRing& slots = s_.ring().slots();
    if (d.slot >= slots.slot_count() || !slots.claim(d.slot, s_.seat(), d.epoch)) {
      return s_.send(MsgType::kClaimLost, d);
    }
    shm::Epoch epoch = d.epoch + 1;  // CONSUMING(us)
    MsgHeader h = d;
    h.epoch = epoch;
    PP_RETURN_IF_ERROR(s_.send(MsgType::kClaimed, h));
    fault_point("gpu.after_claim");

    if (Status bad = check_record(d); !bad) {
      spdlog::error("slot {}: {}", d.slot, bad.message());
      if (!slots.quarantine(d.slot, shm::SlotWord{shm::SlotState::kConsuming, s_.seat(), epoch})) {
        spdlog::warn("quarantine lost: slot {} moved", d.slot);
      }
      h.epoch = epoch + 1;
      return s_.send(MsgType::kQuarantined, h, bad.message());
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::byte* base = slots.payload(d.slot).data();
    auto fr_span = [&](uint64_t offset, uint64_t count) {
      return std::span<ff::Fr>(reinterpret_cast<ff::Fr*>(base + offset), count);
    };
    auto prepared = groth16::prove_start(backend_, pk_, fr_span(layout_.witness_offset(), layout_.n_vars),
                                         fr_span(layout_.a_offset(), layout_.domain_size),
                                         fr_span(layout_.b_offset(), layout_.domain_size),
                                         fr_span(layout_.c_offset(), layout_.domain_size));
    fault_point("gpu.mid_compute");
    // The slot's bytes are consumed (H and the witness copy are private now):
    // hand the slot back before the MSMs, so synthesis can refill it.
    if (!slots.release(d.slot, s_.seat(), epoch)) spdlog::warn("release lost: slot {} moved", d.slot);
    h.epoch = epoch + 1;
    PP_RETURN_IF_ERROR(s_.send(MsgType::kReleased, h));
    fault_point("gpu.after_release");
    if (!prepared) return s_.send(MsgType::kProveFailed, h, prepared.status().message());

    auto proof = groth16::prove_finish(backend_, pk_, *prepared);
    if (!proof) return s_.send(MsgType::kProveFailed, h, proof.status().message());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spdlog::debug("proved job {}/{} ({:.3f} s)", d.request, d.partition, secs);
    fault_point("gpu.before_proof_msg");
    std::string body(sizeof(groth16::Proof), '\0');
    std::memcpy(body.data(), &*proof, sizeof(groth16::Proof));
    return s_.send(MsgType::kProof, h, std::move(body));
  }

 private:
  // The record must be the one the dispatch names, sealed under the current
  // layout, with an intact checksum.
  Status check_record(const MsgHeader& d) const {
    PP_ASSIGN_OR_RETURN(auto meta, s_.ring().slots().verify(d.slot));
    if (meta.request_id != d.request || meta.partition_id != d.partition || meta.attempt != d.attempt) {
      return make_error(ErrorCode::kBadFormat, "record is job {}/{} attempt {}, dispatch said {}/{} attempt {}",
                        meta.request_id, meta.partition_id, meta.attempt, d.request, d.partition, d.attempt);
    }
    if (meta.payload_len != layout_.payload_len()) {
      return make_error(ErrorCode::kBadFormat, "record is {} bytes, the key needs {}", meta.payload_len,
                        layout_.payload_len());
    }
    return Status::ok();
  }

  ipc::WorkerSession& s_;
  const groth16::ProvingKey& pk_;
  groth16::ProverBackend& backend_;
  ipc::PartitionLayout layout_;
};

}  // namespace

int run(const ipc::WorkerArgs& args) {
  auto session = ipc::WorkerSession::start(ipc::Role::kGpu, args);
  if (!session) {
    spdlog::error("set-up failed: {}", session.status().message());
    return ipc::kWorkerExitSetup;
  }
  auto kind = groth16::parse_backend_kind(args.backend);
  auto backend = kind ? groth16::make_backend(*kind) : Result<std::unique_ptr<groth16::ProverBackend>>(kind.status());
  auto zkey = formats::load_zkey(args.zkey);
  for (const Status& st : {backend.status(), zkey.status()}) {
    if (!st) {
      spdlog::error("set-up failed: {}", st.message());
      return ipc::kWorkerExitSetup;
    }
  }
  const groth16::ProvingKey pk = groth16::proving_key_of(*zkey);
  ipc::WorkerSession& s = **session;
  spdlog::debug("backend {}", (*backend)->name());
  GpuWorker worker(s, pk, **backend);
  for (;;) {
    auto msg = s.recv(std::chrono::milliseconds(500));
    if (!msg) {
      spdlog::error("{}", msg.status().message());
      return ipc::kWorkerExitProtocol;
    }
    if (!msg->has_value()) {
      if (!s.parent_alive()) return ipc::kWorkerExitOrphaned;
      continue;
    }
    const ipc::Message& m = **msg;
    switch (m.header.type) {
      case MsgType::kShutdown:
        return ipc::kWorkerExitOk;
      case MsgType::kDispatch:
        if (Status st = worker.handle_dispatch(m.header); !st) {
          spdlog::error("{}", st.message());
          return ipc::kWorkerExitProtocol;
        }
        break;
      default:
        spdlog::warn("unexpected {}", ipc::describe(m.header));
    }
  }
}

}  // namespace proofpipe::gpu
