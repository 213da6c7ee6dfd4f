// Scheduler (scheduler.hpp) after a death, and the reconcile scan: reclaiming
// a dead worker's slots (called only after the Supervisor reaped it),
// requeueing or re-dispatching its partition, and settling what lost messages
// left behind. Rules: docs/shm-layout.md "Reclaim rules", docs/pipeline.md.
#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "scheduler.hpp"

namespace proofpipe::engine {

using shm::SlotState;

Actions Scheduler::seat_died(uint8_t seat, const std::string& cause, double now) {
  SeatState& w = seats_[seat];
  w.alive = false;
  Actions out{sample("death", w.partition)};
  // Every slot word that still names this seat as its owner.
  for (uint32_t s = 0; s < slots_.slot_count(); ++s) {
    const shm::SlotWord word = slots_.load(s);
    if (word.seat == w.seat) reclaim_slot(s, word, cause);
  }
  if (w.partition) recover_partition(*w.partition, cause, now);
  w.partition.reset();
  w.waiting = false;
  w.hello = false;
  return out;
}

// A WRITING or CONSUMING word of a seat that is not alive (reaped): WRITING
// goes back to FREE and its partition to pending; CONSUMING goes back to
// READY and its intact record is proved again, or discarded once its
// partition has spent its attempts.
void Scheduler::reclaim_slot(uint32_t s, shm::SlotWord word, const std::string& cause) {
  const auto part = slot_part_[s];
  if (word.state == SlotState::kWriting) {
    if (!slots_.reclaim_writing(s, word.seat, word.epoch)) return;
    spdlog::warn("slot {} reclaimed WRITING -> FREE", s);
    slot_part_[s].reset();
    if (part && ledger_.at(*part).state == PartState::kWriting) ledger_.requeue(*part, cause + " while writing");
  } else if (word.state == SlotState::kConsuming) {
    const auto ready = slots_.reclaim_consuming(s, word.seat, word.epoch);
    if (!ready) return;
    spdlog::warn("slot {} reclaimed CONSUMING -> READY: proved again without re-synthesis", s);
    if (!part) return;
    Partition& p = ledger_.at(*part);
    if (p.state != PartState::kReady && p.state != PartState::kProving) return;
    if (ledger_.back_to_ready(p.index, *ready, cause + " while proving") == PartState::kReady) {
      queue_ready(p.index, /*front=*/true);
    } else if (slots_.discard(s, *ready)) {
      slot_part_[s].reset();  // failed for good: its slot goes back to the pool
    }
  }
}

// One slot word against the ledger, for the scan (docs/shm-layout.md,
// "Reclaim rules"): an insane word is quarantined; a QUARANTINED slot whose
// quarantining prover is gone (it may have died before saying so) has its
// partition requeued and is freed, while a live prover that still holds the
// partition is left to send its QUARANTINED message, which names the cause
// (never reclaim from a live process); a WRITING/CONSUMING word of a seat that is not alive is reclaimed;
// a FREE slot still mapped to a partition that no longer holds it is unmapped.
void Scheduler::settle_slot(uint32_t s) {
  shm::SlotWord word = slots_.load(s);
  const auto part = slot_part_[s];
  bool quarantined_here = false;
  if (!slots_.is_sane(word)) {
    spdlog::error("slot {} holds an insane word {:#x}: quarantined", s, word.pack());
    const auto quarantined = slots_.quarantine(s, word);
    if (!quarantined) return;  // it moved: the next scan looks again
    word = shm::SlotWord{SlotState::kQuarantined, word.seat, *quarantined};
    quarantined_here = true;
  }
  const bool holds = part && ledger_.at(*part).slot == s;
  const PartState st = part ? ledger_.at(*part).state : PartState::kDone;
  switch (word.state) {
    case SlotState::kQuarantined: {
      const bool owner_will_say = !quarantined_here && word.seat < seats_.size() && seats_[word.seat].alive && part &&
                                  seats_[word.seat].partition == part;
      if (owner_will_say) return;
      if (holds && (st == PartState::kWriting || st == PartState::kReady || st == PartState::kProving)) {
        spdlog::error("{}: slot {} was quarantined: synthesizing again", ledger_.at(*part).stem, s);
        for (SeatState& w : seats_) {
          if (w.partition == part) w.partition.reset();  // its message about it is now stale
        }
        ledger_.requeue(*part, fmt::format("slot {} quarantined (corrupt record or slot word)", s));
      }
      if (slots_.release_quarantined(s, word.epoch)) slot_part_[s].reset();
      return;
    }
    case SlotState::kWriting:
    case SlotState::kConsuming:
      if (!seats_[word.seat].alive)
        reclaim_slot(s, word, fmt::format("{}.{} gone", ipc::role_name(seats_[word.seat].role), word.seat));
      return;
    case SlotState::kFree:
      if (part && (!holds || (st != PartState::kWriting && st != PartState::kProving))) slot_part_[s].reset();
      return;
    default: return;
  }
}

// The partition a dead worker held, where the slot scan above did not settle
// it: sealed but the SEALED message was lost, aborted, dispatched but never
// claimed, or released before the proof came back.
void Scheduler::recover_partition(uint32_t part, const std::string& cause, double now) {
  Partition& p = ledger_.at(part);
  const shm::SlotWord word = p.slot ? slots_.load(*p.slot) : shm::SlotWord{};
  switch (p.state) {
    case PartState::kWriting: {
      const auto meta = p.slot ? slots_.meta(*p.slot) : shm::SlotRing::Meta{};
      if (word.state == SlotState::kReady && meta.partition_id == p.index && meta.attempt == p.attempt) {
        ledger_.sealed(part, word.epoch, now);  // the seal happened; only the message died
        queue_ready(part, /*front=*/false);
        spdlog::warn("{}: sealed in slot {} before the death: kept, no re-synthesis", p.stem, *p.slot);
      } else {
        unmap_slot(p);
        ledger_.requeue(part, cause + " while writing");
      }
      return;
    }
    case PartState::kReady:
      // Dispatched to the dead worker. Still READY: prove it elsewhere. Else
      // the worker claimed it and released it (its CLAIMED/RELEASED died
      // with it): the bytes are gone, synthesize again.
      if (word.state == SlotState::kReady && word.epoch == p.epoch) return queue_ready(part, /*front=*/true);
      unmap_slot(p);
      [[fallthrough]];
    case PartState::kProving:
      // Released already: the slot bytes are gone, so synthesize again.
      spdlog::warn("{}: the prover died after releasing its slot: synthesizing again", p.stem);
      ledger_.requeue(part, cause + " after releasing its slot");
      return;
    default: return;
  }
}

Actions Scheduler::reconcile(double now) {
  (void)now;
  for (uint32_t s = 0; s < slots_.slot_count(); ++s) settle_slot(s);
  // A READY partition must be either queued or held by a gpu worker; one that
  // is neither lost its dispatch (CLAIM_LOST, a dead gpu) and is queued again.
  if (ledger_.count(PartState::kReady) == 0) return {};
  for (uint32_t i = ledger_.open_begin(); i < ledger_.size(); ++i) {
    const Partition& p = ledger_.at(i);
    if (p.state != PartState::kReady) continue;
    if (held_by_gpu(i) || std::find(ready_queue_.begin(), ready_queue_.end(), i) != ready_queue_.end()) continue;
    const shm::SlotWord word = slots_.load(*p.slot);
    if (word.state == SlotState::kReady && word.epoch == p.epoch) {
      ready_queue_.push_back(i);
    } else {
      spdlog::error("{}: slot {} is {} at epoch {}, expected READY at {}: resynthesizing", p.stem, *p.slot,
                    shm::slot_state_name(word.state), word.epoch, p.epoch);
      unmap_slot(p);
      ledger_.requeue(i, "slot record lost");
    }
  }
  return {};
}

}  // namespace proofpipe::engine
