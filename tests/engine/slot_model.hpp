// The slot-ring model: a whole pipeline (coordinator, 2 producers, 1 consumer,
// K=2 slots, 3 partitions) whose every decision is the shipping code's:
// slot words change only through the real SlotRing, and the coordinator is
// the real engine::Scheduler over the real engine::Ledger
// (engine/src/scheduler.hpp), fed the messages the real workers send
// (synth_loop.cpp, prover_loop.cpp). slot_model_test.cpp explores every
// interleaving. Protocol being modelled: docs/shm-layout.md "Reclaim rules",
// docs/pipeline.md.
//
// A state is two parts:
//  - Flat: the slot headers and payload, the workers (actors) with their
//    undelivered messages, the fault budget and commit counts; flat and
//    padding-free, hashed as bytes.
//  - the coordinator: a engine::Ledger (copyable) and a Scheduler::Snapshot.
//    Each step builds a Scheduler over the state's Ledger and a SlotRing on
//    the state's headers, restores the snapshot, makes one call and takes a
//    new snapshot. For the hash, encode_coordinator() writes exactly the
//    decision-relevant part of both (per partition: state, attempt, seat,
//    slot, epoch, number of failed attempts; per seat: incarnation, alive,
//    hello, waiting, partition; the slot map; both queues): times, cause
//    texts and counters never change a decision, so two states that differ
//    only there are one state. Copying the objects (rather than decoding a
//    compact form back into them) keeps restore trivially faithful.
//
// Messages: a worker's message to the coordinator goes into its outbox (a
// FIFO, as on its socket) and reaches the Scheduler in a later "deliver"
// step; a worker that dies keeps its outbox until the reap, so a message sent
// just before a death may arrive or be lost. GRANT and DISPATCH go into the
// addressee's inbox at once (or nowhere if it is dead).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/shm/slot_ring.hpp"
#include "scheduler.hpp"

namespace proofpipe::shm::model {

inline constexpr uint32_t kSlots = 2;
inline constexpr uint32_t kProducers = 2;  // seats 0 and 1
inline constexpr Seat kConsumer = 2;       // the GPU worker's seat
inline constexpr uint32_t kSeats = 3;
inline constexpr uint32_t kPartitions = 3;
inline constexpr uint32_t kMaxAttempts = 6;    // more than any budget can spend: FAILED means lost
inline constexpr uint64_t kPayloadBytes = 16;  // per slot: two "half" writes of 8
inline constexpr uint32_t kOutbox = 4;  // messages a worker sends before it blocks (its socket's high-water mark)
inline constexpr uint8_t kNone = 0xFF;

// Faults the explorer may inject, each at most this many times per run.
struct Budget {
  uint8_t producer_deaths = 0;  // SIGKILL of a producer at any point of its loop
  uint8_t consumer_deaths = 0;  // SIGKILL of the consumer at any point of its loop
  uint8_t corruptions = 0;      // a flipped payload byte in a READY slot
};

enum Phase : uint8_t {
  kIdle,         // producer: will send WANT_SLOT; consumer: waits for a DISPATCH
  kWaiting,      // producer: sent WANT_SLOT, waits for a GRANT
  kGranted,      // producer: owns WRITING(slot, epoch), nothing written yet
  kHalfWritten,  // producer: first half of the record written
  kWritten,      // producer: whole record written, not sealed
  kClaimed,      // consumer: owns CONSUMING(slot, epoch), not verified yet
  kVerified,     // consumer: header and checksum good, record "uploaded"
  kBad,          // consumer: verify failed, will quarantine
  kReleased,     // consumer: slot released, proof not yet sent
  kDead,         // killed, not yet reaped by the coordinator
  kReaped,       // reaped; the coordinator will respawn it
};

// A message header, the fields the Scheduler reads.
struct Msg {
  uint64_t epoch;
  uint8_t type;  // ipc::MsgType; 0: none
  uint8_t slot;
  uint8_t partition;
  uint8_t attempt;
  uint8_t pad[4];
};

struct Actor {
  uint64_t epoch;  // the epoch of the word it believes it owns
  uint8_t phase;
  uint8_t slot;
  uint8_t partition;
  uint8_t attempt;
  uint8_t incarnation;
  uint8_t outbox_len;
  uint8_t pad[2];
  Msg inbox;            // GRANT / DISPATCH not yet acted on
  Msg outbox[kOutbox];  // sent, not yet delivered, oldest first
};

// The bytes of a state, hashed as they are.
struct Flat {
  SlotHeader headers[kSlots];
  std::byte payload[kSlots * kPayloadBytes];
  Actor actors[kSeats];
  Budget budget;
  uint8_t commits[kPartitions];  // successful Scheduler::committed() per partition
  uint8_t pad[58];               // to the 64-byte multiple the headers' alignment gives
};
static_assert(sizeof(Flat) == 512);
static_assert(std::has_unique_object_representations_v<Flat>, "Flat must hash bytewise");

struct State {
  Flat flat;
  engine::Ledger ledger;
  engine::Scheduler::Snapshot sched;
};

enum class StepKind : uint8_t {
  // producers
  kRequest,
  kWriteHalf,
  kWriteRest,
  kSeal,
  // consumer
  kClaim,
  kVerify,
  kQuarantine,
  kRelease,
  kProve,
  // faults
  kDie,
  kCorrupt,
  // coordinator (the real Scheduler)
  kDeliver,
  kSchedule,
  kReconcile,
  kReap,
  kRespawn,
};

struct Step {
  StepKind kind;
  uint8_t seat;  // the acting or affected seat (kNone for the coordinator)
  uint8_t slot;  // the slot acted on (kNone when none)
};

// Up to 32 steps are enabled at once (a handful per actor).
struct StepList {
  std::array<Step, 32> items{};
  size_t size = 0;
  void push(Step s) { items[size++] = s; }
};

State initial_state(const Budget& budget);
SlotRing ring_over(Flat& s);
StepList enabled_steps(const State& s);
// Applies one atomic step. Returns "" or a protocol violation: a CAS that a
// rightful owner lost, a record the ledger does not place where it is read.
std::string apply_step(State& s, Step step);
std::string describe(Step step);
// The decision-relevant part of the Ledger and Scheduler, for the hash.
std::vector<uint64_t> encode_coordinator(const State& s);

// The record a producer writes for (partition, attempt): a fixed pattern the
// consumer checks byte by byte as well as by checksum (invariant I5).
std::byte pattern_byte(uint8_t partition, uint8_t attempt, uint64_t i);

}  // namespace proofpipe::shm::model
