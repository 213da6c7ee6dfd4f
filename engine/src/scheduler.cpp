// Scheduler (scheduler.hpp): grants, dispatch, and the checks of every
// message. Deaths and the reconcile scan are in scheduler_recovery.cpp.
#include "scheduler.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "proofpipe/common/assert.hpp"

namespace proofpipe::engine {

using ipc::MsgHeader;
using ipc::MsgType;
using shm::SlotState;

Scheduler::Scheduler(Ledger& ledger, shm::SlotRing& slots, uint32_t synth_seats, uint32_t gpu_seats,
                     std::vector<size_t> proof_bytes)
    : ledger_(ledger),
      slots_(slots),
      proof_bytes_(std::move(proof_bytes)),
      seats_(synth_seats + gpu_seats),
      slot_part_(slots.slot_count()) {
  for (uint32_t s = 0; s < seats_.size(); ++s) {
    seats_[s].role = s < synth_seats ? ipc::Role::kSynth : ipc::Role::kProver;
    seats_[s].seat = uint8_t(s);
  }
}

void Scheduler::seat_started(uint8_t seat, uint32_t incarnation) {
  SeatState& w = seats_[seat];
  w.incarnation = incarnation;
  w.alive = true;
  w.hello = false;
  w.waiting = false;
  w.partition.reset();
}

Action Scheduler::send(const SeatState& w, MsgType type, MsgHeader h, std::string body) const {
  h.type = type;
  h.role = w.role;
  h.seat = w.seat;
  h.incarnation = w.incarnation;
  Action a;
  a.kind = Action::Kind::kSend;
  a.seat = w.seat;
  a.message = ipc::Message{h, std::move(body)};
  return a;
}

Action Scheduler::sample(const char* event, std::optional<uint32_t> part) {
  Action a;
  a.kind = Action::Kind::kSample;
  a.event = event;
  a.partition = part;
  return a;
}

// A header field no message of ours can hold: the sender is broken or not
// ours. Checked before anything indexes by it.
static bool carries_job(MsgType t) {
  switch (t) {
    case MsgType::kSealed:
    case MsgType::kSynthFailed:
    case MsgType::kClaimed:
    case MsgType::kClaimLost:
    case MsgType::kQuarantined:
    case MsgType::kReleased:
    case MsgType::kProof:
    case MsgType::kProveFailed: return true;
    default: return false;
  }
}

Actions Scheduler::on_message(const std::string& peer, const ipc::Message& m, double now) {
  const MsgHeader& h = m.header;
  if (carries_job(h.type) && h.slot < slots_.slot_count() && h.partition < ledger_.first_held()) {
    // A partition that ended and was dropped: no seat holds it any more
    // (lowest_named), so whatever this says is stale.
    ++counts_.stale_messages;
    spdlog::debug("dropped stale {} (its partition ended)", ipc::describe(h));
    return {};
  }
  if (carries_job(h.type) && (h.slot >= slots_.slot_count() || h.partition >= ledger_.size())) {
    ++counts_.malformed_messages;
    spdlog::warn("dropped malformed {} (the run has {} slots, {} partitions)", ipc::describe(h), slots_.slot_count(),
                 ledger_.size());
    return {};
  }
  // Only the live incarnation of a known seat may speak; anything else is a
  // stale or forged message and is dropped (and counted).
  SeatState* w = h.seat < seats_.size() ? &seats_[h.seat] : nullptr;
  if (w == nullptr || w->role != h.role || w->incarnation != h.incarnation || !w->alive ||
      peer != ipc::routing_id(w->role, w->seat, w->incarnation)) {
    ++counts_.stale_messages;
    spdlog::debug("dropped stale {}", ipc::describe(h));
    return {};
  }
  spdlog::trace("{}", ipc::describe(h));
  if (h.type == MsgType::kHello) {
    w->hello = true;
    if (w->role == ipc::Role::kProver) gpu_gate_ = false;
    Action a;
    a.kind = Action::Kind::kHello;
    a.seat = w->seat;
    a.message = m;
    return {a};
  }
  return w->role == ipc::Role::kSynth ? on_synth_message(*w, m, now) : on_gpu_message(*w, m, now);
}

// The message is about the partition this seat holds, in this attempt.
static bool names_partition(const SeatState& w, const Partition& p, const MsgHeader& h) {
  return w.partition == p.index && h.partition == p.index && h.attempt == p.attempt && p.seat == w.seat;
}

Actions Scheduler::on_synth_message(SeatState& w, const ipc::Message& m, double now) {
  const MsgHeader& h = m.header;
  if (h.type == MsgType::kWantSlot) {
    if (!w.waiting && !w.partition) {
      w.waiting = true;
      grant_queue_.push_back(w.seat);
    }
    return {};
  }
  if (h.type != MsgType::kSealed && h.type != MsgType::kSynthFailed) {
    ++counts_.stale_messages;
    spdlog::warn("unexpected {}", ipc::describe(h));
    return {};
  }
  Partition& p = ledger_.at(h.partition);
  if (!names_partition(w, p, h) || p.state != PartState::kWriting) return ++counts_.stale_messages, Actions{};
  if (h.type == MsgType::kSealed) {
    const shm::SlotWord word = slots_.load(h.slot);
    if (h.slot != p.slot || word.state != SlotState::kReady || word.epoch != h.epoch) {
      return ++counts_.stale_messages, Actions{};  // reconcile() settles what really happened
    }
    if (!p.input.empty()) take_signals(p, m.body);
    ledger_.sealed(p.index, h.epoch, now);
    ready_queue_.push_back(p.index);
    w.partition.reset();
    Action done;
    done.kind = Action::Kind::kWorkDone;
    done.seat = w.seat;
    return {done, sample("seal", p.index)};
  }
  // SYNTH_FAILED: the worker aborted its write (WRITING -> FREE) before saying so.
  unmap_slot(p);
  w.partition.reset();
  const bool permanent = (h.flags & ipc::kFlagPermanent) != 0;
  const PartState st = ledger_.requeue(p.index, m.body, permanent);
  spdlog::error("{}: {} ({})", p.stem, m.body, st == PartState::kFailed ? "failed" : "will retry");
  return {};
}

Actions Scheduler::on_gpu_message(SeatState& w, const ipc::Message& m, double now) {
  const MsgHeader& h = m.header;
  Partition& p = ledger_.at(h.partition);
  if (w.partition != p.index || h.attempt != p.attempt) return ++counts_.stale_messages, Actions{};
  switch (h.type) {
    case MsgType::kClaimed:
      if (p.state == PartState::kReady && h.slot == p.slot) {
        ledger_.proving(p.index, w.seat, now);
        p.epoch = h.epoch;
      }
      return {sample("claim", p.index)};
    case MsgType::kClaimLost:
      // The dispatch was stale; reconcile() re-queues the slot if still READY.
      w.partition.reset();
      return {};
    case MsgType::kQuarantined:
      spdlog::error("{}: slot {} quarantined: {}", p.stem, h.slot, m.body);
      w.partition.reset();
      if (h.slot != p.slot) return ++counts_.stale_messages, Actions{};
      if (slots_.release_quarantined(h.slot, h.epoch)) slot_part_[h.slot].reset();
      if (p.state == PartState::kReady || p.state == PartState::kProving) {
        ledger_.requeue(p.index, "corrupt slot record: " + m.body);
      }
      return {};
    case MsgType::kReleased:
      if (h.slot == p.slot && slot_part_[h.slot] == p.index) slot_part_[h.slot].reset();
      if (h.slot == p.slot) p.slot.reset();
      return {sample("release", p.index)};
    case MsgType::kProof: return on_proof(w, m);
    case MsgType::kProveFailed:
      w.partition.reset();
      if (p.state == PartState::kProving) {
        const PartState st = ledger_.requeue(p.index, "prover error: " + m.body);
        spdlog::error("{}: prover error: {} ({})", p.stem, m.body, st == PartState::kFailed ? "failed" : "will retry");
      }
      return {};
    default:
      ++counts_.stale_messages;
      spdlog::warn("unexpected {}", ipc::describe(h));
      return {};
  }
}

Actions Scheduler::on_proof(SeatState& w, const ipc::Message& m) {
  Partition& p = ledger_.at(m.header.partition);
  w.partition.reset();
  Action done;
  done.kind = Action::Kind::kWorkDone;
  done.seat = w.seat;
  if (p.state != PartState::kProving || p.seat != w.seat) return ++counts_.duplicate_proofs, Actions{done};
  Action verify;
  verify.kind = Action::Kind::kVerify;
  verify.seat = w.seat;
  verify.partition = p.index;
  if (p.key >= proof_bytes_.size() || !ipc::split_proof(m.body, proof_bytes_[p.key], &verify.proof, &verify.stages)) {
    ++counts_.malformed_messages;
    ledger_.requeue(p.index, fmt::format("malformed proof message ({} bytes)", m.body.size()));
    return {done};
  }
  return {done, verify};
}

Actions Scheduler::committed(uint32_t part, const ipc::ProveStages& stages, double now) {
  if (!ledger_.commit(part, now, stages)) return ++counts_.duplicate_proofs, Actions{};
  return {sample("commit", part)};
}

void Scheduler::proof_rejected(uint32_t part, const std::string& cause, bool permanent) {
  const PartState s = ledger_.at(part).state;
  if (s != PartState::kDone && s != PartState::kFailed) ledger_.requeue(part, cause, permanent);
}

Actions Scheduler::schedule(double now) {
  Actions out;
  grant_slots(now, out);
  dispatch_ready(out);
  return out;
}

void Scheduler::grant_slots(double now, Actions& out) {
  while (!grant_queue_.empty() && !hold_grants_ && !gpu_gate_) {
    SeatState& w = seats_[grant_queue_.front()];
    if (!w.alive || !w.waiting) {
      grant_queue_.pop_front();
      continue;
    }
    const auto part = ledger_.next_pending();
    if (!part) return;
    std::optional<uint32_t> slot;
    shm::SlotWord word;
    for (uint32_t s = 0; s < slots_.slot_count() && !slot; ++s) {
      word = slots_.load(s);
      if (word.state == SlotState::kFree && !slot_part_[s]) slot = s;
    }
    if (!slot) return;  // backpressure: the worker waits for a release
    const auto granted = slots_.grant(*slot, word.epoch, w.seat);
    if (!granted) continue;  // moved under us: look again
    Partition& p = ledger_.at(*part);
    ledger_.start_write(p.index, w.seat, *slot, *granted, now);
    slot_part_[*slot] = p.index;
    grant_queue_.pop_front();
    w.waiting = false;
    w.partition = p.index;
    MsgHeader h;
    h.slot = *slot;
    h.epoch = *granted;
    h.job = p.job;
    h.partition = p.index;
    h.attempt = p.attempt;
    h.key = p.key;
    std::string body = p.wtns.string();
    if (!p.input.empty()) {  // generate the witness first (docs/witness-gen.md)
      h.flags = ipc::kFlagGenerate;
      body = ipc::encode_generate({p.generator, p.input.string()});
      p.signals_known = false;
    }
    out.push_back(send(w, MsgType::kGrant, h, std::move(body)));
    out.push_back(sample("grant", p.index));
  }
}

void Scheduler::dispatch_ready(Actions& out) {
  // Stale entries out first, and the records of cancelled partitions
  // discarded, so that the choice below is among live ones.
  for (auto it = ready_queue_.begin(); it != ready_queue_.end();) {
    Partition& p = ledger_.at(*it);
    if (p.state != PartState::kReady || p.seat || held_by_gpu(p.index)) {
      it = ready_queue_.erase(it);
    } else if (p.cancelled) {  // sealed after its job was cancelled
      it = ready_queue_.erase(it);
      drop_cancelled_record(p);
    } else {
      ++it;
    }
  }
  while (!ready_queue_.empty()) {
    auto gpu = std::find_if(seats_.begin(), seats_.end(), [](const SeatState& w) {
      return w.role == ipc::Role::kProver && w.alive && w.hello && !w.partition;
    });
    if (gpu == seats_.end()) return;
    // The highest priority first, so a job submitted later with a higher
    // priority overtakes records already sealed for lower ones; the oldest
    // (the queue's order) among equals.
    auto best = ready_queue_.begin();
    for (auto it = best; it != ready_queue_.end(); ++it) {
      if (ledger_.at(*it).priority > ledger_.at(*best).priority) best = it;
    }
    Partition& p = ledger_.at(*best);
    ready_queue_.erase(best);
    gpu->partition = p.index;
    MsgHeader h;
    h.slot = *p.slot;
    h.epoch = p.epoch;
    h.job = p.job;
    h.partition = p.index;
    h.attempt = p.attempt;
    h.key = p.key;
    out.push_back(send(*gpu, MsgType::kDispatch, h));
  }
}

void Scheduler::cancel(uint32_t part) {
  Partition& p = ledger_.at(part);
  p.cancelled = true;
  if (p.state == PartState::kPending) {
    ledger_.requeue(part, "cancelled", /*permanent=*/true);
  } else if (p.state == PartState::kReady && !held_by_gpu(part)) {
    ready_queue_.erase(std::remove(ready_queue_.begin(), ready_queue_.end(), part), ready_queue_.end());
    drop_cancelled_record(p);
  }
}

// A READY record of a cancelled partition: discarded (READY -> FREE), and
// the partition ends. If the word moved, reconcile() settles it.
void Scheduler::drop_cancelled_record(Partition& p) {
  if (p.slot) {
    const shm::SlotWord word = slots_.load(*p.slot);
    if (word.state == SlotState::kReady && word.epoch == p.epoch && slots_.discard(*p.slot, p.epoch)) unmap_slot(p);
  }
  ledger_.requeue(p.index, "cancelled", /*permanent=*/true);
}

uint32_t Scheduler::lowest_named() const {
  uint32_t low = uint32_t(ledger_.size());
  for (const SeatState& w : seats_) {
    if (w.partition) low = std::min(low, *w.partition);
  }
  for (const auto& part : slot_part_) {
    if (part) low = std::min(low, *part);
  }
  for (uint32_t part : ready_queue_) low = std::min(low, part);
  return low;
}

bool Scheduler::held_by_gpu(uint32_t part) const {
  return std::any_of(seats_.begin(), seats_.end(), [&](const SeatState& w) {
    return w.role == ipc::Role::kProver && w.alive && w.partition == part;
  });
}

void Scheduler::queue_ready(uint32_t part, bool front) {
  if (std::find(ready_queue_.begin(), ready_queue_.end(), part) != ready_queue_.end()) return;
  if (front) {
    ready_queue_.push_front(part);
  } else {
    ready_queue_.push_back(part);
  }
}

// A generated witness's SEALED body: the generator's seconds (a double),
// then its public signals, w[1..nPublic] as raw Fr. A body of the wrong size
// is counted and the signals stay unknown: the proof is then not verified but
// the partition generated again (Supervisor::verify_and_commit).
void Scheduler::take_signals(Partition& p, const std::string& body) {
  const size_t signals = p.public_signals.size() * sizeof(FrWords);
  if (body.size() != sizeof(double) + signals) {
    ++counts_.malformed_messages;
    spdlog::warn("{}: SEALED carries {} bytes, {} expected", p.stem, body.size(), sizeof(double) + signals);
    return;
  }
  std::memcpy(&p.generate_s, body.data(), sizeof(double));
  std::memcpy(static_cast<void*>(p.public_signals.data()), body.data() + sizeof(double), signals);
  p.signals_known = true;
}

void Scheduler::unmap_slot(const Partition& p) {
  if (p.slot && slot_part_[*p.slot] == p.index) slot_part_[*p.slot].reset();
}

void Scheduler::restore(Snapshot s) {
  PP_ASSERT(s.seats.size() == seats_.size() && s.slot_part.size() == slot_part_.size(),
            "restore of a snapshot of a Scheduler of another shape");
  seats_ = std::move(s.seats);
  slot_part_ = std::move(s.slot_part);
  grant_queue_ = std::move(s.grant_queue);
  ready_queue_ = std::move(s.ready_queue);
  counts_ = s.counts;
}

void Scheduler::fail_remaining(const std::string& cause) {
  for (uint32_t i = ledger_.open_begin(); i < ledger_.size(); ++i) {
    const PartState s = ledger_.at(i).state;
    if (s != PartState::kDone && s != PartState::kFailed) ledger_.requeue(i, cause, /*permanent=*/true);
  }
}

}  // namespace proofpipe::engine
