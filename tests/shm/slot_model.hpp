// The slot-ring model: a whole pipeline (coordinator, 2 producers, 1 consumer,
// K=2 slots, 3 partitions) as one flat state whose slot headers are driven by
// the real SlotRing code. slot_model_test.cpp explores every interleaving.
// Protocol being modelled: shared/reference/shm-recovery.md §2.3-§2.4.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "proofpipe/shm/slot_ring.hpp"

namespace proofpipe::shm::model {

inline constexpr uint32_t kSlots = 2;
inline constexpr uint32_t kProducers = 2;  // seats 0 and 1
inline constexpr Seat kConsumer = 2;       // the GPU worker's seat
inline constexpr uint32_t kSeats = 3;
inline constexpr uint32_t kPartitions = 3;
inline constexpr uint64_t kPayloadBytes = 16;  // per slot: two "half" writes of 8
inline constexpr uint8_t kNone = 0xFF;

// Faults the explorer may inject, each at most this many times per run.
struct Budget {
  uint8_t producer_deaths = 0;  // SIGKILL of a producer at any point of its loop
  uint8_t consumer_deaths = 0;  // SIGKILL of the consumer at any point of its loop
  uint8_t corruptions = 0;      // a flipped payload byte in a READY slot
};

enum Phase : uint8_t {
  kIdle,         // producer: will ask for a slot; consumer: will claim a READY slot
  kWaiting,      // producer: in the coordinator's FIFO
  kGranted,      // producer: owns WRITING(slot, epoch), nothing written yet
  kHalfWritten,  // producer: first half of the record written
  kWritten,      // producer: whole record written, not sealed
  kClaimed,      // consumer: owns CONSUMING(slot, epoch), not verified yet
  kVerified,     // consumer: header and checksum good, record "uploaded"
  kBad,          // consumer: verify failed, will quarantine
  kReleased,     // consumer: slot released, proof not yet handed over
  kDead,         // killed, not yet reaped by the coordinator
  kReaped,       // reaped; the coordinator will reclaim, then respawn
};

struct Actor {
  uint64_t epoch;  // the epoch of the word it believes it owns
  uint8_t phase;
  uint8_t slot;
  uint8_t partition;
  uint8_t attempt;
  uint8_t incarnation;
  uint8_t pad[3];
};

enum LedgerStatus : uint8_t { kPending, kInSlot, kWithConsumer, kCommitted };

// The coordinator's job ledger, one entry per partition.
struct Ledger {
  uint8_t status;
  uint8_t slot;    // kInSlot: which slot holds (or will hold) the record
  uint8_t holder;  // kWithConsumer: which consumer seat holds it
  uint8_t attempt;
  uint8_t commits;
  uint8_t pad[3];
};

// Everything, flat and padding-free, so a state is hashed and compared as bytes.
struct alignas(64) State {
  SlotHeader headers[kSlots];
  std::byte payload[kSlots * kPayloadBytes];
  Actor actors[kSeats];
  Ledger ledger[kPartitions];
  uint8_t fifo[kSeats];  // seats waiting for a grant, oldest first
  uint8_t fifo_len;
  uint8_t slot_partition[kSlots];  // coordinator: partition last granted into each slot
  Budget budget;
  uint8_t pad[15];
};
static_assert(std::has_unique_object_representations_v<State>, "State must hash bytewise");
static_assert(sizeof(State) == 256);

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
  kDeliver,
  // faults
  kDie,
  kCorrupt,
  // coordinator
  kGrant,
  kReap,
  kReclaim,
  kRespawn,
  kFreeQuarantined,
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
SlotRing ring_over(State& s);
StepList enabled_steps(const State& s);
// Applies one atomic step. Returns "" or a protocol violation: a CAS that a
// rightful owner lost, a partition freed without requeue, a stale delivery.
std::string apply_step(State& s, Step step);
std::string describe(Step step);

// The record a producer writes for (partition, attempt): a fixed pattern the
// consumer checks byte by byte as well as by checksum (invariant I5).
std::byte pattern_byte(uint8_t partition, uint8_t attempt, uint64_t i);

}  // namespace proofpipe::shm::model
