// The model's actors (slot_model.hpp). Each step is one atomic action of one
// worker or one call into the real engine::Scheduler; every slot-word change
// goes through the real SlotRing code.
#include "slot_model.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "proofpipe/groth16/verifier.hpp"
#include "proofpipe/ipc/channel.hpp"

namespace proofpipe::shm::model {
namespace {

using ipc::MsgType;

bool is_producer(uint8_t seat) { return seat < kProducers; }
bool alive(uint8_t p) { return p != kDead && p != kReaped; }
ipc::Role role_of(uint8_t seat) { return is_producer(seat) ? ipc::Role::kSynth : ipc::Role::kProver; }

const char* kind_name(StepKind k) {
  switch (k) {
    case StepKind::kRequest: return "want-slot";
    case StepKind::kWriteHalf: return "write-half";
    case StepKind::kWriteRest: return "write-rest";
    case StepKind::kSeal: return "seal";
    case StepKind::kClaim: return "claim";
    case StepKind::kVerify: return "verify";
    case StepKind::kQuarantine: return "quarantine";
    case StepKind::kRelease: return "release";
    case StepKind::kProve: return "prove";
    case StepKind::kDie: return "DIE";
    case StepKind::kCorrupt: return "CORRUPT";
    case StepKind::kDeliver: return "deliver";
    case StepKind::kSchedule: return "schedule";
    case StepKind::kReconcile: return "reconcile";
    case StepKind::kReap: return "reap";
    case StepKind::kRespawn: return "respawn";
  }
  return "?";
}

// The real Scheduler over the state's Ledger and slot headers, for one step.
class Coordinator {
 public:
  explicit Coordinator(State& s)
      : s_(s),
        ring_(ring_over(s.flat)),
        sched_(s.ledger, ring_, kProducers, 1, {sizeof(groth16::ProofT<curves::Bls12_381>)}) {
    sched_.restore(std::move(s.sched));
  }
  ~Coordinator() { s_.sched = sched_.snapshot(); }
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  engine::Scheduler& sched() { return sched_; }

  // Runs what the Scheduler asked for: GRANT/DISPATCH into the addressee's
  // inbox, a kVerify as a valid proof (the model's records are intact or
  // caught by the consumer's check) committed at once.
  std::string run(const engine::Actions& actions) {
    for (const engine::Action& a : actions) {
      if (a.kind == engine::Action::Kind::kVerify) {
        const uint32_t part = *a.partition;
        if (!sched_.committed(part, a.stages, 0).empty()) s_.flat.commits[part]++;
        if (s_.flat.commits[part] > 1)
          return fmt::format("partition {} committed {} times", part, s_.flat.commits[part]);
        continue;
      }
      if (a.kind != engine::Action::Kind::kSend) continue;
      Actor& to = s_.flat.actors[a.seat];
      if (!alive(to.phase)) continue;  // a message nobody reads
      const ipc::MsgHeader& h = a.message.header;
      if (to.inbox.type != 0)
        return fmt::format("a {} to seat {} before it acted on the last one", ipc::msg_type_name(h.type), a.seat);
      to.inbox = Msg{h.epoch, uint8_t(h.type), uint8_t(h.slot), uint8_t(h.partition), uint8_t(h.attempt), {}};
    }
    return "";
  }

  std::string deliver(uint8_t seat) {
    Actor& a = s_.flat.actors[seat];
    const Msg m = a.outbox[0];
    for (uint32_t i = 1; i < a.outbox_len; ++i) a.outbox[i - 1] = a.outbox[i];
    a.outbox[--a.outbox_len] = Msg{};
    return run(sched_.on_message(ipc::routing_id(role_of(seat), seat, a.incarnation), message(seat, m), 0));
  }

  ipc::Message message(uint8_t seat, const Msg& m) const {
    ipc::MsgHeader h;
    h.type = MsgType(m.type);
    h.role = role_of(seat);
    h.seat = seat;
    h.incarnation = s_.flat.actors[seat].incarnation;
    h.slot = m.slot;
    h.epoch = m.epoch;
    h.job = 100u + m.partition;
    h.partition = m.partition;
    h.attempt = m.attempt;
    std::string body;
    if (h.type == MsgType::kProof)
      body.assign(sizeof(groth16::ProofT<curves::Bls12_381>) + sizeof(ipc::ProveStages), '\0');
    if (h.type == MsgType::kQuarantined) body = "checksum mismatch";
    return {h, std::move(body)};
  }

  // A worker (re)started: the Supervisor's seat_started, then its HELLO.
  std::string start(uint8_t seat) {
    Actor& a = s_.flat.actors[seat];
    a = Actor{0, kIdle, kNone, kNone, 0, uint8_t(a.incarnation + 1), 0, {}, {}, {}};
    sched_.seat_started(seat, a.incarnation);
    return run(sched_.on_message(ipc::routing_id(role_of(seat), seat, a.incarnation),
                                 message(seat, Msg{0, uint8_t(MsgType::kHello), 0, 0, 0, {}}), 0));
  }

 private:
  State& s_;
  SlotRing ring_;
  engine::Scheduler sched_;
};

std::string send(Actor& a, MsgType type, uint32_t slot, uint64_t epoch, uint8_t partition, uint8_t attempt) {
  if (a.outbox_len == kOutbox) return "a worker's outbox overflowed (model too small)";
  a.outbox[a.outbox_len++] = Msg{epoch, uint8_t(type), uint8_t(slot), partition, attempt, {}};
  return "";
}

}  // namespace

std::byte pattern_byte(uint8_t partition, uint8_t attempt, uint64_t i) {
  return std::byte(uint8_t(partition * 37 + attempt * 11 + i * 3 + 1));
}

SlotRing ring_over(Flat& s) { return SlotRing(s.headers, kSlots, kSeats, s.payload, kPayloadBytes); }

State initial_state(const Budget& budget) {
  std::vector<engine::Partition> parts(kPartitions);
  for (uint32_t i = 0; i < kPartitions; ++i) {
    parts[i].index = i;
    parts[i].job = 100;
    parts[i].stem = fmt::format("p{}", i);
  }
  State s{Flat{}, engine::Ledger(std::move(parts), kMaxAttempts), {}};
  for (uint32_t i = 0; i < kSlots; ++i) s.flat.headers[i].word = SlotWord{SlotState::kFree, kNoSeat, 0}.pack();
  s.flat.budget = budget;
  {
    SlotRing ring = ring_over(s.flat);
    engine::Scheduler sched(s.ledger, ring, kProducers, 1, {sizeof(groth16::ProofT<curves::Bls12_381>)});
    s.sched = sched.snapshot();
  }
  for (uint8_t seat = 0; seat < kSeats; ++seat) {
    Coordinator c(s);
    (void)c.start(seat);
  }
  return s;
}

std::vector<uint64_t> encode_coordinator(const State& s) {
  std::vector<uint64_t> out;
  out.reserve(32);
  auto opt = [](const auto& o) -> uint64_t { return o ? uint64_t(*o) : 0xFF; };
  for (const engine::Partition& p : s.ledger.all()) {
    out.push_back(uint64_t(p.state) | uint64_t(p.attempt) << 8 | opt(p.seat) << 16 | opt(p.slot) << 24 |
                  uint64_t(p.causes.size()) << 32);
    out.push_back(p.epoch);
  }
  for (const engine::SeatState& w : s.sched.seats) {
    out.push_back(uint64_t(w.incarnation) | uint64_t(w.alive) << 32 | uint64_t(w.hello) << 33 |
                  uint64_t(w.waiting) << 34 | opt(w.partition) << 40);
  }
  for (const auto& p : s.sched.slot_part) out.push_back(opt(p));
  out.push_back(0xA000 + s.sched.grant_queue.size());
  for (uint8_t q : s.sched.grant_queue) out.push_back(q);
  out.push_back(0xB000 + s.sched.ready_queue.size());
  for (uint32_t q : s.sched.ready_queue) out.push_back(q);
  return out;
}

StepList enabled_steps(const State& s) {
  StepList out;
  Flat copy = s.flat;  // load() is const, but the view wants mutable memory
  SlotRing ring = ring_over(copy);
  const uint8_t none = kNone;
  for (uint8_t seat = 0; seat < kSeats; ++seat) {
    const Actor& a = s.flat.actors[seat];
    if (a.phase == kDead) out.push({StepKind::kReap, seat, none});
    if (a.phase == kReaped) out.push({StepKind::kRespawn, seat, none});
    if (a.outbox_len > 0 && a.phase != kReaped) out.push({StepKind::kDeliver, seat, none});
    if (!alive(a.phase)) continue;
    // A full outbox blocks the worker, as a socket at its high-water mark
    // (it can still die): the model stays finite.
    if (a.outbox_len == kOutbox) {
      const uint8_t deaths = is_producer(seat) ? s.flat.budget.producer_deaths : s.flat.budget.consumer_deaths;
      if (deaths > 0) out.push({StepKind::kDie, seat, none});
      continue;
    }
    if (is_producer(seat)) {
      if (a.phase == kIdle) out.push({StepKind::kRequest, seat, none});
      if (a.phase == kWaiting && a.inbox.type != 0) out.push({StepKind::kWriteHalf, seat, a.inbox.slot});
      if (a.phase == kHalfWritten) out.push({StepKind::kWriteRest, seat, a.slot});
      if (a.phase == kWritten) out.push({StepKind::kSeal, seat, a.slot});
      // Deaths while holding nothing (idle) only replay the respawn path; the
      // explorer spends its budget where a death leaves something behind.
      if (s.flat.budget.producer_deaths > 0 && a.phase != kIdle) out.push({StepKind::kDie, seat, none});
    } else {
      if (a.phase == kIdle && a.inbox.type != 0) out.push({StepKind::kClaim, seat, a.inbox.slot});
      if (a.phase == kClaimed) out.push({StepKind::kVerify, seat, a.slot});
      if (a.phase == kBad) out.push({StepKind::kQuarantine, seat, a.slot});
      if (a.phase == kVerified) out.push({StepKind::kRelease, seat, a.slot});
      if (a.phase == kReleased) out.push({StepKind::kProve, seat, none});
      if (s.flat.budget.consumer_deaths > 0 && (a.phase != kIdle || a.inbox.type != 0))
        out.push({StepKind::kDie, seat, none});
    }
  }
  for (uint8_t i = 0; i < kSlots; ++i) {
    if (ring.load(i).state == SlotState::kReady && s.flat.budget.corruptions > 0)
      out.push({StepKind::kCorrupt, none, i});
  }
  // The explorer drops these where they change nothing.
  out.push({StepKind::kSchedule, none, none});
  out.push({StepKind::kReconcile, none, none});
  return out;
}

std::string apply_step(State& s, Step step) {
  Flat& f = s.flat;
  SlotRing ring = ring_over(f);
  Actor* a = step.seat < kSeats ? &f.actors[step.seat] : nullptr;
  const uint32_t slot = step.slot;
  switch (step.kind) {
    case StepKind::kRequest: a->phase = kWaiting; return send(*a, MsgType::kWantSlot, 0, 0, 0, 0);
    case StepKind::kWriteHalf:
      // Takes the GRANT: slot and epoch from its header, as synth_loop.cpp.
      a->epoch = a->inbox.epoch;
      a->slot = a->inbox.slot;
      a->partition = a->inbox.partition;
      a->attempt = a->inbox.attempt;
      a->inbox = Msg{};
      [[fallthrough]];
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
      const auto sealed = ring.seal(slot, step.seat, a->epoch, info);
      if (!sealed) return "a live writer's seal lost its CAS";
      a->phase = kIdle;
      return send(*a, MsgType::kSealed, slot, *sealed, a->partition, a->attempt);
    }
    case StepKind::kClaim: {
      const Msg d = a->inbox;
      a->inbox = Msg{};
      const auto claimed = ring.claim(slot, step.seat, d.epoch);
      if (!claimed) return send(*a, MsgType::kClaimLost, slot, d.epoch, d.partition, d.attempt);
      a->epoch = *claimed;
      a->phase = kClaimed;
      a->slot = uint8_t(slot);
      a->partition = d.partition;
      a->attempt = d.attempt;
      return send(*a, MsgType::kClaimed, slot, *claimed, d.partition, d.attempt);
    }
    case StepKind::kVerify: {
      auto meta = ring.verify(slot);
      bool good = meta.is_ok();
      if (good) {
        for (uint64_t i = 0; i < meta->payload_len; ++i) {
          good &= ring.payload(slot)[i] == pattern_byte(uint8_t(meta->partition_id), uint8_t(meta->attempt), i);
        }
        if (!good) return "checksum passed on a payload that is not the sealed record";
        if (meta->partition_id != a->partition || meta->attempt != a->attempt)
          return fmt::format("slot {} holds partition {} attempt {}, dispatched as partition {} attempt {}", slot,
                             meta->partition_id, meta->attempt, a->partition, a->attempt);
      }
      a->phase = good ? kVerified : kBad;
      return "";
    }
    case StepKind::kQuarantine: {
      const auto q = ring.quarantine(slot, {SlotState::kConsuming, step.seat, a->epoch});
      if (!q) return "owner's quarantine lost its CAS";
      a->phase = kIdle;
      a->slot = kNone;
      return send(*a, MsgType::kQuarantined, slot, *q, a->partition, a->attempt);
    }
    case StepKind::kRelease: {
      const auto freed = ring.release(slot, step.seat, a->epoch);
      if (!freed) return "a live consumer's release lost its CAS";
      a->phase = kReleased;
      a->slot = kNone;
      a->epoch = *freed;
      return send(*a, MsgType::kReleased, slot, *freed, a->partition, a->attempt);
    }
    case StepKind::kProve: {
      a->phase = kIdle;
      return send(*a, MsgType::kProof, 0, a->epoch, a->partition, a->attempt);
    }
    case StepKind::kDie:
      (is_producer(step.seat) ? f.budget.producer_deaths : f.budget.consumer_deaths)--;
      a->phase = kDead;
      return "";
    case StepKind::kCorrupt:
      f.budget.corruptions--;
      ring.payload(slot)[0] ^= std::byte{0x01};
      return "";
    case StepKind::kDeliver: {
      Coordinator c(s);
      return c.deliver(step.seat);
    }
    case StepKind::kSchedule: {
      Coordinator c(s);
      return c.run(c.sched().schedule(0));
    }
    case StepKind::kReconcile: {
      Coordinator c(s);
      return c.run(c.sched().reconcile(0));
    }
    case StepKind::kReap: {
      a->phase = kReaped;  // its undelivered messages die with it
      a->inbox = Msg{};
      for (auto& m : a->outbox) m = Msg{};
      a->outbox_len = 0;
      Coordinator c(s);
      return c.run(c.sched().seat_died(step.seat, "killed", 0));
    }
    case StepKind::kRespawn: {
      Coordinator c(s);
      return c.start(step.seat);
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
