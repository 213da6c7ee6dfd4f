// The model's actors (slot_model.hpp). Each step is one atomic action of one
// actor; every slot-word change goes through the real SlotRing code. The
// coordinator follows shm-recovery.md §2.4: reap, scan, reclaim, requeue.
#include "slot_model.hpp"

#include <fmt/format.h>

#include <string>

namespace proofpipe::shm::model {
namespace {

bool is_producer(uint8_t seat) { return seat < kProducers; }
bool alive(uint8_t p) { return p != kDead && p != kReaped; }

const char* kind_name(StepKind k) {
  switch (k) {
    case StepKind::kRequest:
      return "request";
    case StepKind::kWriteHalf:
      return "write-half";
    case StepKind::kWriteRest:
      return "write-rest";
    case StepKind::kSeal:
      return "seal";
    case StepKind::kClaim:
      return "claim";
    case StepKind::kVerify:
      return "verify";
    case StepKind::kQuarantine:
      return "quarantine";
    case StepKind::kRelease:
      return "release";
    case StepKind::kDeliver:
      return "deliver";
    case StepKind::kDie:
      return "DIE";
    case StepKind::kCorrupt:
      return "CORRUPT";
    case StepKind::kGrant:
      return "grant";
    case StepKind::kReap:
      return "reap";
    case StepKind::kReclaim:
      return "reclaim";
    case StepKind::kRespawn:
      return "respawn";
    case StepKind::kFreeQuarantined:
      return "free-quarantined";
  }
  return "?";
}

void requeue(Ledger& l) {
  l.status = kPending;
  l.attempt = uint8_t(l.attempt + 1);
  l.slot = kNone;
  l.holder = kNone;
}

// The coordinator's level-triggered look at one slot: a FREE word whose seat
// is a consumer means that consumer released the partition we put there and
// now holds it privately (until it hands over the proof).
std::string reconcile_slot(State& s, SlotRing& ring, uint32_t slot) {
  const uint8_t p = s.slot_partition[slot];
  if (p == kNone) return "";
  Ledger& l = s.ledger[p];
  if (l.status != kInSlot || l.slot != slot) return "";
  const SlotWord w = ring.load(slot);
  if (w.state != SlotState::kFree) return "";
  if (w.seat == kNoSeat) return fmt::format("partition {} lost: slot {} freed without a requeue", p, slot);
  l.status = kWithConsumer;
  l.holder = w.seat;
  return "";
}

}  // namespace

std::byte pattern_byte(uint8_t partition, uint8_t attempt, uint64_t i) {
  return std::byte(uint8_t(partition * 37 + attempt * 11 + i * 3 + 1));
}

SlotRing ring_over(State& s) { return SlotRing(s.headers, kSlots, kSeats, s.payload, kPayloadBytes); }

State initial_state(const Budget& budget) {
  State s{};  // aggregate: every member zeroed, and State has no padding
  for (uint32_t i = 0; i < kSlots; ++i) s.headers[i].word = SlotWord{SlotState::kFree, kNoSeat, 0}.pack();
  for (auto& a : s.actors) {
    a.phase = kIdle;
    a.slot = a.partition = kNone;
  }
  for (auto& l : s.ledger) l = Ledger{kPending, kNone, kNone, 0, 0, {}};
  for (auto& p : s.slot_partition) p = kNone;
  s.budget = budget;
  return s;
}

StepList enabled_steps(const State& s) {
  StepList out;
  State copy = s;  // load() is const, but the view wants mutable memory
  SlotRing ring = ring_over(copy);
  for (uint8_t seat = 0; seat < kSeats; ++seat) {
    const Actor& a = s.actors[seat];
    if (!alive(a.phase)) continue;
    const uint8_t none = kNone;
    if (is_producer(seat)) {
      if (a.phase == kIdle) out.push({StepKind::kRequest, seat, none});
      if (a.phase == kGranted) out.push({StepKind::kWriteHalf, seat, a.slot});
      if (a.phase == kHalfWritten) out.push({StepKind::kWriteRest, seat, a.slot});
      if (a.phase == kWritten) out.push({StepKind::kSeal, seat, a.slot});
      // Deaths while holding nothing (idle) only replay the respawn path; the
      // explorer spends its budget where a death leaves something behind.
      if (s.budget.producer_deaths > 0 && a.phase != kIdle) out.push({StepKind::kDie, seat, none});
    } else {
      if (a.phase == kIdle) {
        for (uint8_t i = 0; i < kSlots; ++i) {
          if (ring.load(i).state == SlotState::kReady) out.push({StepKind::kClaim, seat, i});
        }
      }
      if (a.phase == kClaimed) out.push({StepKind::kVerify, seat, a.slot});
      if (a.phase == kBad) out.push({StepKind::kQuarantine, seat, a.slot});
      if (a.phase == kVerified) out.push({StepKind::kRelease, seat, a.slot});
      if (a.phase == kReleased) out.push({StepKind::kDeliver, seat, none});
      if (s.budget.consumer_deaths > 0 && a.phase != kIdle) out.push({StepKind::kDie, seat, none});
    }
  }
  bool any_pending = false;
  for (const Ledger& l : s.ledger) any_pending |= l.status == kPending;
  for (uint8_t i = 0; i < kSlots; ++i) {
    const SlotWord w = ring.load(i);
    if (w.state == SlotState::kFree && s.fifo_len > 0 && any_pending) out.push({StepKind::kGrant, kNone, i});
    if (w.state == SlotState::kQuarantined) out.push({StepKind::kFreeQuarantined, kNone, i});
    if (w.state == SlotState::kReady && s.budget.corruptions > 0) out.push({StepKind::kCorrupt, kNone, i});
    const bool owned = w.state == SlotState::kWriting || w.state == SlotState::kConsuming;
    if (owned && s.actors[w.seat].phase == kReaped) out.push({StepKind::kReclaim, w.seat, i});
  }
  for (uint8_t seat = 0; seat < kSeats; ++seat) {
    if (s.actors[seat].phase == kDead) out.push({StepKind::kReap, seat, kNone});
    if (s.actors[seat].phase != kReaped) continue;
    bool owns_slot = false;
    for (uint8_t i = 0; i < kSlots; ++i) {
      const SlotWord w = ring.load(i);
      owns_slot |= (w.state == SlotState::kWriting || w.state == SlotState::kConsuming) && w.seat == seat;
    }
    if (!owns_slot) out.push({StepKind::kRespawn, seat, kNone});
  }
  return out;
}

std::string apply_step(State& s, Step step) {
  SlotRing ring = ring_over(s);
  Actor* a = step.seat < kSeats ? &s.actors[step.seat] : nullptr;
  const uint32_t slot = step.slot;
  switch (step.kind) {
    case StepKind::kRequest:
      s.fifo[s.fifo_len++] = step.seat;
      a->phase = kWaiting;
      return "";
    case StepKind::kWriteHalf:
    case StepKind::kWriteRest: {
      if (!ring.owns(slot, SlotState::kWriting, step.seat, a->epoch)) return "writer lost its slot while alive";
      const uint64_t half = kPayloadBytes / 2;
      const uint64_t from = step.kind == StepKind::kWriteHalf ? 0 : half;
      for (uint64_t i = from; i < from + half; ++i) ring.payload(slot)[i] = pattern_byte(a->partition, a->attempt, i);
      a->phase = step.kind == StepKind::kWriteHalf ? kHalfWritten : kWritten;
      return "";
    }
    case StepKind::kSeal: {
      SlotRing::SealInfo info{100u + a->partition, a->partition, a->attempt, kPayloadBytes,
                              record_checksum(ring.payload(slot))};
      if (!ring.seal(slot, step.seat, a->epoch, info)) return "a live writer's seal lost its CAS";
      *a = Actor{0, kIdle, kNone, kNone, 0, a->incarnation, {}};
      return "";
    }
    case StepKind::kClaim: {
      const auto claimed = ring.claim(slot, step.seat, ring.load(slot).epoch);
      if (!claimed) return "claim of a READY slot lost with no rival";
      *a = Actor{*claimed, kClaimed, uint8_t(slot), kNone, 0, a->incarnation, {}};
      return "";
    }
    case StepKind::kVerify: {
      auto meta = ring.verify(slot);
      bool good = meta.is_ok();
      if (good) {
        for (uint64_t i = 0; i < meta->payload_len; ++i) {
          good &= ring.payload(slot)[i] == pattern_byte(uint8_t(meta->partition_id), uint8_t(meta->attempt), i);
        }
        if (!good) return "checksum passed on a payload that is not the sealed record";
        const Ledger& l = s.ledger[meta->partition_id];
        if (l.status != kInSlot || l.slot != slot)
          return fmt::format("slot {} holds partition {} the ledger does not place there", slot, meta->partition_id);
        a->partition = uint8_t(meta->partition_id);
        a->attempt = uint8_t(meta->attempt);
      }
      a->phase = good ? kVerified : kBad;
      return "";
    }
    case StepKind::kQuarantine:
      if (!ring.quarantine(slot, {SlotState::kConsuming, step.seat, a->epoch}))
        return "owner's quarantine lost its CAS";
      *a = Actor{0, kIdle, kNone, kNone, 0, a->incarnation, {}};
      return "";
    case StepKind::kRelease:
      if (!ring.release(slot, step.seat, a->epoch)) return "a live consumer's release lost its CAS";
      a->phase = kReleased;
      a->slot = kNone;
      return "";
    case StepKind::kDeliver: {
      Ledger& l = s.ledger[a->partition];
      if (l.status == kPending)
        return fmt::format("partition {} was requeued while its consumer was alive", a->partition);
      l.commits++;
      l.status = kCommitted;
      *a = Actor{0, kIdle, kNone, kNone, 0, a->incarnation, {}};
      return "";
    }
    case StepKind::kDie:
      (is_producer(step.seat) ? s.budget.producer_deaths : s.budget.consumer_deaths)--;
      a->phase = kDead;
      return "";
    case StepKind::kCorrupt:
      s.budget.corruptions--;
      ring.payload(slot)[0] ^= std::byte{0x01};
      return "";
    case StepKind::kGrant: {
      const uint8_t seat = s.fifo[0];
      for (uint8_t i = 1; i < s.fifo_len; ++i) s.fifo[i - 1] = s.fifo[i];
      s.fifo[--s.fifo_len] = 0;
      uint8_t p = 0;
      while (s.ledger[p].status != kPending) ++p;
      if (auto err = reconcile_slot(s, ring, slot); !err.empty()) return err;
      const auto granted = ring.grant(slot, ring.load(slot).epoch, seat);
      if (!granted) return "grant of a FREE slot lost with no rival";
      s.ledger[p].status = kInSlot;
      s.ledger[p].slot = uint8_t(slot);
      s.slot_partition[slot] = p;
      Actor& to = s.actors[seat];
      // A grant to a seat that died in the queue is a message nobody reads;
      // the slot stays WRITING(dead seat) until the reap and reclaim.
      if (to.phase == kWaiting)
        to = Actor{*granted, kGranted, uint8_t(slot), p, s.ledger[p].attempt, to.incarnation, {}};
      return "";
    }
    case StepKind::kReap: {
      a->phase = kReaped;
      uint8_t kept = 0;
      for (uint8_t i = 0; i < s.fifo_len; ++i) {
        if (s.fifo[i] != step.seat) s.fifo[kept++] = s.fifo[i];
      }
      for (uint8_t i = kept; i < s.fifo_len; ++i) s.fifo[i] = 0;
      s.fifo_len = kept;
      for (uint32_t i = 0; i < kSlots; ++i) {
        if (auto err = reconcile_slot(s, ring, i); !err.empty()) return err;
      }
      for (Ledger& l : s.ledger) {
        if (l.status == kWithConsumer && l.holder == step.seat) requeue(l);
      }
      return "";
    }
    case StepKind::kReclaim: {
      const SlotWord w = ring.load(slot);
      if (w.state == SlotState::kWriting) {
        if (!ring.reclaim_writing(slot, step.seat, w.epoch)) return "reclaim of a dead writer's slot lost";
        requeue(s.ledger[s.slot_partition[slot]]);
      } else if (!ring.reclaim_consuming(slot, step.seat, w.epoch)) {
        return "reclaim of a dead consumer's slot lost";
      }
      return "";
    }
    case StepKind::kRespawn:
      *a = Actor{0, kIdle, kNone, kNone, 0, uint8_t(a->incarnation + 1), {}};
      return "";
    case StepKind::kFreeQuarantined: {
      const uint8_t p = s.slot_partition[slot];
      if (p != kNone && s.ledger[p].status == kInSlot && s.ledger[p].slot == slot) requeue(s.ledger[p]);
      if (!ring.release_quarantined(slot, ring.load(slot).epoch)) return "release of a quarantined slot lost";
      return "";
    }
  }
  return "unknown step";
}

std::string describe(Step step) {
  std::string out = kind_name(step.kind);
  if (step.seat != kNone) out += fmt::format(" seat={}", step.seat);
  if (step.slot != kNone) out += fmt::format(" slot={}", step.slot);
  return out;
}

}  // namespace proofpipe::shm::model
