// The coordinator's handling of worker messages (pipeline.hpp, protocol in
// ipc/messages.hpp): every message is checked against the ledger and the
// slot word it talks about; a stale or unexpected one is dropped and counted.
// A proof is verified before it is committed, and committed once.
#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "outputs.hpp"
#include "pipeline_impl.hpp"

namespace proofpipe::coord {

using ipc::MsgHeader;
using ipc::MsgType;
using shm::SlotState;

void Pipeline::on_message(const ipc::Envelope& env) {
  const MsgHeader& h = env.message.header;
  if (h.type == MsgType::kStatusRequest && h.role == ipc::Role::kClient) {
    MsgHeader reply;
    reply.type = MsgType::kStatusReply;
    reply.role = ipc::Role::kClient;
    router_->send(env.peer, ipc::Message{reply, status_json().dump()});
    return;
  }
  // Only the live incarnation of a known seat may speak; anything else is a
  // stale or forged message and is dropped (and counted).
  WorkerSlot* w = h.seat < workers_.size() ? &workers_[h.seat] : nullptr;
  if (w == nullptr || w->role != h.role || w->incarnation != h.incarnation || !w->child || env.peer != w->peer) {
    ++report_.stale_messages;
    spdlog::debug("dropped stale {}", ipc::describe(h));
    return;
  }
  spdlog::trace("{}", ipc::describe(h));
  if (h.type == MsgType::kHello) {
    w->hello = true;
    w->ever_hello = true;
    if (w->role == ipc::Role::kGpu) {
      ipc::GpuHello hello = ipc::decode_gpu_hello(env.message.body);
      w->report.backend = std::move(hello.backend);
      w->report.devices = std::move(hello.devices);
      w->report.intake = std::move(hello.intake);
    }
    return;
  }
  if (w->role == ipc::Role::kSynth) {
    switch (h.type) {
      case MsgType::kWantSlot:
        if (!w->waiting && w->partition == kNone) {
          w->waiting = true;
          grant_queue_.push_back(w->seat);
        }
        return;
      case MsgType::kSealed: return on_sealed(*w, h);
      case MsgType::kSynthFailed: return on_synth_failed(*w, env.message);
      default: break;
    }
  } else {
    return on_gpu_message(*w, env.message);
  }
  ++report_.stale_messages;
  spdlog::warn("unexpected {}", ipc::describe(h));
}

// The message is about the partition this seat holds, in this attempt.
static bool names_partition(const WorkerSlot& w, const Partition& p, const MsgHeader& h) {
  return w.partition == int(p.index) && h.partition == p.index && h.attempt == p.attempt && p.seat == w.seat;
}

void Pipeline::on_sealed(WorkerSlot& w, const MsgHeader& h) {
  if (w.partition == kNone || h.partition >= ledger_.size()) return void(++report_.stale_messages);
  Partition& p = ledger_.at(h.partition);
  const shm::SlotWord word = ring_->slots().load(h.slot);
  if (!names_partition(w, p, h) || p.state != PartState::kWriting || int(h.slot) != p.slot ||
      word.state != SlotState::kReady || word.epoch != h.epoch) {
    return void(++report_.stale_messages);  // reconcile() settles what really happened
  }
  ledger_.sealed(p.index, h.epoch, now());
  ready_queue_.push_back(p.index);
  w.partition = kNone;
  w.consecutive_deaths = 0;
  sample("seal", int(p.index));
}

void Pipeline::on_synth_failed(WorkerSlot& w, const ipc::Message& m) {
  const MsgHeader& h = m.header;
  if (w.partition == kNone || h.partition >= ledger_.size()) return void(++report_.stale_messages);
  Partition& p = ledger_.at(h.partition);
  if (!names_partition(w, p, h) || p.state != PartState::kWriting) return void(++report_.stale_messages);
  // The worker aborted its write (WRITING -> FREE) before saying so.
  if (p.slot != kNone && slot_part_[p.slot] == int(p.index)) slot_part_[p.slot] = kNone;
  w.partition = kNone;
  const bool permanent = (h.flags & ipc::kFlagPermanent) != 0;
  const PartState st = ledger_.requeue(p.index, m.body, permanent);
  spdlog::error("{}: {} ({})", p.stem, m.body, st == PartState::kFailed ? "failed" : "will retry");
}

void Pipeline::on_gpu_message(WorkerSlot& w, const ipc::Message& m) {
  const MsgHeader& h = m.header;
  if (w.partition == kNone || h.partition >= ledger_.size()) return void(++report_.stale_messages);
  Partition& p = ledger_.at(h.partition);
  if (w.partition != int(p.index) || h.attempt != p.attempt) return void(++report_.stale_messages);
  switch (h.type) {
    case MsgType::kClaimed:
      if (p.state == PartState::kReady) {
        ledger_.proving(p.index, w.seat);
        p.epoch = h.epoch;
      }
      sample("claim", int(p.index));
      return;
    case MsgType::kClaimLost:
      // The dispatch was stale; reconcile() re-queues the slot if still READY.
      w.partition = kNone;
      return;
    case MsgType::kQuarantined: {
      spdlog::error("{}: slot {} quarantined: {}", p.stem, h.slot, m.body);
      if (ring_->slots().release_quarantined(h.slot, h.epoch)) slot_part_[h.slot] = kNone;
      w.partition = kNone;
      if (p.state == PartState::kReady || p.state == PartState::kProving) {
        ledger_.requeue(p.index, "corrupt slot record: " + m.body);
      }
      return;
    }
    case MsgType::kReleased:
      if (int(h.slot) == p.slot && slot_part_[h.slot] == int(p.index)) slot_part_[h.slot] = kNone;
      if (int(h.slot) == p.slot) p.slot = kNone;
      sample("release", int(p.index));
      return;
    case MsgType::kProof: return on_proof(w, m);
    case MsgType::kProveFailed:
      w.partition = kNone;
      if (p.state == PartState::kProving) {
        const PartState st = ledger_.requeue(p.index, "prover error: " + m.body);
        spdlog::error("{}: prover error: {} ({})", p.stem, m.body, st == PartState::kFailed ? "failed" : "will retry");
      }
      return;
    default:
      ++report_.stale_messages;
  }
}

void Pipeline::on_proof(WorkerSlot& w, const ipc::Message& m) {
  Partition& p = ledger_.at(m.header.partition);
  w.partition = kNone;
  w.consecutive_deaths = 0;
  if (p.state != PartState::kProving || p.seat != w.seat) return void(++report_.duplicate_proofs);
  groth16::Proof proof{};
  ipc::ProveStages stages;
  if (!ipc::decode_proof(m.body, &proof, &stages)) {
    ledger_.requeue(p.index, fmt::format("malformed proof message ({} bytes)", m.body.size()));
    return;
  }
  // Every proof is checked before it is committed (DESIGN.md §5).
  auto verdict = groth16::verify(vk_, p.public_signals, proof);
  if (!verdict || !verdict->valid) {
    const std::string why = verdict ? verdict->reason : verdict.status().message();
    spdlog::error("{}: invalid proof from gpu.{} ({}): retrying", p.stem, w.seat, why);
    // The wording `prove` uses; `prove` on this witness tells which it is.
    ledger_.requeue(p.index, fmt::format("invalid proof ({}): the witness does not satisfy the circuit's constraints "
                                         "(the proof does not verify), or the key is corrupt",
                                         why));
    return;
  }
  if (Status st = write_partition_outputs(cfg_.out, p.stem, proof, p.public_signals); !st) {
    ledger_.requeue(p.index, st.message(), /*permanent=*/true);
    spdlog::error("{}", st.message());
    return;
  }
  if (!ledger_.commit(p.index, now())) return void(++report_.duplicate_proofs);
  p.stages = stages;
  ++committed_;
  sample("commit", int(p.index));
  if (!tty_) {
    std::fprintf(stderr, "proofpipe: [%zu/%zu] %s proved (attempt %u, %.2f s)\n", committed_, ledger_.size(),
                 p.stem.c_str(), p.attempt, p.done_s - p.started_s);
  }
}

}  // namespace proofpipe::coord
