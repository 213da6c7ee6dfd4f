// The control segment's fixed, versioned layout: header, per-seat heartbeat
// records, K slot headers, and the packed slot word. Types and offsets only;
// the state machine that moves the words lives in slot_ring.hpp. See
// docs/shm-layout.md.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "proofpipe/common/status.hpp"

namespace proofpipe::shm {

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

// "PPSHMCTL" read as a little-endian u64: a hexdump of the segment shows it.
inline constexpr uint64_t kControlMagic = 0x4C54434D48535050ull;
// Bump on any change to a struct below, to the slot word encoding or to what
// a field means: a worker built from another revision then refuses the
// segment instead of misreading it. 2: the checksum is record_checksum.
// 3: SeatRecord::phase (set-up or work: which hang deadline applies).
inline constexpr uint32_t kLayoutVersion = 3;

inline constexpr uint64_t kCacheLine = 64;
// Slots start on page boundaries, so a worker can map just its own slot
// (mmap offsets must be page-aligned) and prefault it with MAP_POPULATE.
inline constexpr uint64_t kSlotAlign = 4096;
// K is a handful of multi-GiB slots in practice; 4096 bounds a corrupt header.
inline constexpr uint32_t kMaxSlots = 4096;
// 255 seats: the seat field is 8 bits and 0xFF is kNoSeat.
inline constexpr uint32_t kMaxSeats = 255;
// 256 TiB: far above any /dev/shm, low enough that K * slot_size cannot wrap.
inline constexpr uint64_t kMaxPayloadBytes = 1ull << 48;

using Seat = uint8_t;
using Epoch = uint64_t;
inline constexpr Seat kNoSeat = 0xFF;

// ---------------------------------------------------------------------------
// The slot word: one u64 per slot, changed only by compare-and-swap.
//
//   63        56 55        48 47                                        0
//  +------------+------------+-------------------------------------------+
//  |   state    |    seat    |                  epoch                    |
//  +------------+------------+-------------------------------------------+
//
// state: SlotState below. seat: in WRITING and CONSUMING the owner; in READY
// the writer that sealed it; in FREE the consumer that released it after
// consuming (the coordinator reads this to learn who holds the partition
// now); kNoSeat where no worker made the last move (init, reclaim, abort,
// quarantine release). epoch: +1 on every successful transition, so a word
// value never repeats and (slot, epoch) names one state of one slot. 48 bits
// at 10^6 transitions per second last 8.9 years; a slot moves ~4 times per
// partition, and partitions take seconds.
// ---------------------------------------------------------------------------

enum class SlotState : uint8_t {
  kInvalid = 0,  // never written by this code: a zero word means "not initialised"
  kFree = 1,
  kWriting = 2,
  kReady = 3,
  kConsuming = 4,
  kQuarantined = 5,
};

const char* slot_state_name(SlotState state);
constexpr bool is_known_state(SlotState s) { return s >= SlotState::kFree && s <= SlotState::kQuarantined; }

struct SlotWord {
  static constexpr unsigned kStateShift = 56;
  static constexpr unsigned kSeatShift = 48;
  static constexpr Epoch kEpochMask = (Epoch{1} << 48) - 1;

  SlotState state = SlotState::kInvalid;
  Seat seat = kNoSeat;
  Epoch epoch = 0;

  constexpr uint64_t pack() const {
    return (uint64_t(state) << kStateShift) | (uint64_t(seat) << kSeatShift) | (epoch & kEpochMask);
  }
  static constexpr SlotWord unpack(uint64_t w) {
    return {SlotState(w >> kStateShift), Seat((w >> kSeatShift) & 0xFF), w & kEpochMask};
  }
  bool operator==(const SlotWord&) const = default;
};

// ---------------------------------------------------------------------------
// Shared-memory structs. Plain integers only: every field that more than one
// process touches is accessed through std::atomic_ref (shared_ref below), so
// the structs stay trivially copyable and zero-filled memory is a valid
// object, while every access is still an atomic instruction.
// ---------------------------------------------------------------------------

// Offset 0 of the control segment. Written once by the coordinator before any
// worker starts; magic is stored last (release), so an opener that sees the
// magic sees every other field.
struct alignas(kCacheLine) ControlHeader {
  uint64_t magic;
  uint32_t layout_version;
  uint32_t header_bytes;  // sizeof(ControlHeader): catches a struct change without a version bump
  uint64_t run_id;
  uint32_t slot_count;  // K
  uint32_t seat_count;
  uint64_t slot_size;       // bytes per slot, a multiple of kSlotAlign
  uint64_t payload_bytes;   // size of the data segment = payload_offset + K * slot_size
  uint64_t payload_offset;  // data-segment offset of slot 0 (0 in this layout: slots start the segment)
  uint64_t seats_offset;    // control-segment offset of SeatRecord[seat_count]
  uint64_t slots_offset;    // control-segment offset of SlotHeader[slot_count]
  uint64_t control_bytes;   // bytes of the control segment the layout uses
  uint32_t seat_record_bytes;
  uint32_t slot_header_bytes;
  uint64_t reserved[5];
};

// One per worker seat. pid_incarnation packs (incarnation << 32 | pid) into one
// word so a reader never pairs one incarnation's pid with another's counter;
// 0 means the seat is vacant. last_beat_ms is CLOCK_MONOTONIC milliseconds of
// the worker's last progress (ipc/worker.hpp). phase is a SeatPhase: the
// coordinator holds a worker in set-up to a longer deadline than one at work.
// One cache line each, so one worker's beats never bounce another's line.
struct alignas(kCacheLine) SeatRecord {
  uint64_t pid_incarnation;
  uint64_t last_beat_ms;
  uint64_t phase;
  uint64_t reserved[5];
};

// SeatRecord::phase. Zero is set-up, so a fresh or reset record is in set-up.
enum class SeatPhase : uint64_t {
  kSetup = 0,    // spawned, loading the key, preparing the backend
  kWorking = 1,  // said HELLO: serving, or idle in its serve loop
};

// One per slot, one cache line each. `word` is the state machine; the rest is
// written by the owning writer before its seal (release) and read by the
// consumer after its claim (acquire).
struct alignas(kCacheLine) SlotHeader {
  uint64_t word;
  uint64_t job_id;
  uint64_t meta_epoch;   // the WRITING epoch under which the fields below were written
  uint64_t payload_len;  // bytes of the slot that hold the record
  uint64_t checksum;     // record_checksum (slot_ring.hpp) of those bytes
  uint32_t partition_id;
  uint32_t attempt;
  uint64_t reserved[2];
};

static_assert(std::atomic<uint64_t>::is_always_lock_free, "slot words must be lock-free to work across processes");
static_assert(std::atomic_ref<uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<uint32_t>::is_always_lock_free);
static_assert(std::atomic_ref<uint64_t>::required_alignment <= alignof(uint64_t));
static_assert(std::is_trivially_copyable_v<ControlHeader> && std::is_standard_layout_v<ControlHeader>);
static_assert(std::is_trivially_copyable_v<SeatRecord> && std::is_standard_layout_v<SeatRecord>);
static_assert(std::is_trivially_copyable_v<SlotHeader> && std::is_standard_layout_v<SlotHeader>);
static_assert(sizeof(ControlHeader) == 128 && alignof(ControlHeader) == kCacheLine);
static_assert(sizeof(SeatRecord) == kCacheLine);
static_assert(alignof(SeatRecord) == kCacheLine);
static_assert(sizeof(SlotHeader) == kCacheLine);
static_assert(alignof(SlotHeader) == kCacheLine);
static_assert(std::has_unique_object_representations_v<SlotHeader>, "no padding: headers are compared bytewise");
static_assert(offsetof(SlotHeader, word) == 0);

// The atomic view of a shared field. Const access casts away const because
// std::atomic_ref<const T> is C++26; loads never write.
template <class T>
std::atomic_ref<T> shared_ref(T& field) {
  return std::atomic_ref<T>(field);
}
template <class T>
std::atomic_ref<T> shared_ref(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field));
}

// ---------------------------------------------------------------------------
// Where things are, derived from (K, slot size, seats) alone, so the creator
// and every opener compute the same offsets and can cross-check the header.
// ---------------------------------------------------------------------------
struct LayoutPlan {
  uint32_t slot_count = 0;
  uint32_t seat_count = 0;
  uint64_t slot_size = 0;  // rounded up to kSlotAlign
  uint64_t payload_bytes = 0;
  uint64_t seats_offset = 0;
  uint64_t slots_offset = 0;
  uint64_t control_bytes = 0;  // rounded up to a page
};

// Validates the arguments (kInvalidArgument naming the bad one) and computes
// the plan. slot_size is rounded up to kSlotAlign.
Result<LayoutPlan> plan_layout(uint32_t slot_count, uint64_t slot_size, uint32_t seat_count);

// Initialises a zero-or-garbage control area of at least plan.control_bytes:
// every slot FREE at epoch 0, every seat vacant, the magic stored last.
// Not concurrent: only the creator calls it, before any worker exists.
void init_control(std::byte* base, const LayoutPlan& plan, uint64_t run_id);

// Checks an existing control area (magic, version, struct sizes, counts and
// offsets against a recomputed plan, and that it fits in segment_bytes).
// Fails with kBadFormat and a message that names the field, what was found
// and what was expected.
Result<LayoutPlan> validate_control(const std::byte* base, uint64_t segment_bytes);

inline ControlHeader* control_header(std::byte* base) { return reinterpret_cast<ControlHeader*>(base); }
inline SeatRecord* seat_records(std::byte* base, const LayoutPlan& plan) {
  return reinterpret_cast<SeatRecord*>(base + plan.seats_offset);
}
inline SlotHeader* slot_headers(std::byte* base, const LayoutPlan& plan) {
  return reinterpret_cast<SlotHeader*>(base + plan.slots_offset);
}

}  // namespace proofpipe::shm
