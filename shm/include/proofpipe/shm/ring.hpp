// Ring: the facade a process uses. The coordinator create()s the control and
// payload segments of a run; workers open() them by the same name prefix.
// It owns the mappings and hands out the SlotRing view and the seat records.
// It does not decide anything: grants, reclaims and the ledger are the engine's (engine/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/shm/layout.hpp"
#include "proofpipe/shm/segment.hpp"
#include "proofpipe/shm/slot_ring.hpp"

namespace proofpipe::shm {

// A fresh 64-bit run id from getrandom(2); never 0.
Result<uint64_t> make_run_id();
// "/proofpipe-<16 hex digits>": the run-specific prefix both segment names
// start with, so two runs (or two test processes) never share a ring.
std::string ring_prefix(uint64_t run_id);
// "/proofpipe-<pid>-<16 hex digits>": the coordinator's prefix. Its pid lets
// a later run recognise a ring whose coordinator was killed (parse_ring_name).
std::string ring_prefix(long pid, uint64_t run_id);
// A /dev/shm entry of a coordinator's ring, parsed.
struct RingName {
  long pid = 0;
  uint64_t run_id = 0;
  std::string segment;  // "ctl" or "data"
  bool operator==(const RingName&) const = default;
};
// "proofpipe-<pid>-<16 hex>-ctl" or "-data", with or without the leading '/';
// nullopt for any other name (another program's, a test ring without a pid).
std::optional<RingName> parse_ring_name(std::string_view name);
// CLOCK_MONOTONIC in milliseconds, the clock of SeatRecord::last_beat_ms.
uint64_t monotonic_ms();

// A seat record as read (two separate atomic loads: a beat may land between).
struct SeatStatus {
  uint32_t pid = 0;          // 0: seat vacant
  uint32_t incarnation = 0;  // never reused within a run
  uint64_t last_beat_ms = 0;
  SeatPhase phase = SeatPhase::kSetup;
};

class Ring {
 public:
  // Coordinator, before any worker starts. Creates "<prefix>-data" (K slots
  // of slot_size rounded up to 4 KiB, fallocated) and "<prefix>-ctl" (the
  // layout.hpp header, seats vacant, every slot FREE at epoch 0). Errors:
  // kInvalidArgument (counts, sizes, prefix), kResourceExhausted (/dev/shm
  // too small: names both sizes), kIo ("already exists" for a stale ring of
  // the same prefix). On failure nothing is left under /dev/shm.
  static Result<Ring> create(std::string_view name_prefix, uint32_t slot_count, uint64_t slot_size, uint32_t seat_count,
                             uint64_t run_id);
  // Workers. Validates the control header (magic, version, sizes, offsets:
  // kBadFormat naming what differs) and that the payload segment is as large
  // as the header says. kNotFound if either segment is missing.
  static Result<Ring> open(std::string_view name_prefix);
  // Removes both names; ok when neither existed (cleanup is idempotent).
  // Processes that have the ring mapped keep using it.
  static Status unlink(std::string_view name_prefix);

  static std::string control_name(std::string_view name_prefix) { return std::string(name_prefix) + "-ctl"; }
  static std::string data_name(std::string_view name_prefix) { return std::string(name_prefix) + "-data"; }

  uint64_t run_id() const { return run_id_; }
  uint32_t slot_count() const { return slots_.slot_count(); }
  uint32_t seat_count() const { return seat_count_; }
  uint64_t slot_size() const { return slots_.slot_size(); }
  uint64_t payload_bytes() const { return data_.size(); }
  // "4 slots x 16.00 GiB = 64.00 GiB (run 0x..., 3 seats)": printed at start.
  std::string describe() const;

  // The slot state machine over this ring's memory. The view is a copy of
  // pointers into the mappings: valid while this Ring lives.
  SlotRing& slots() { return slots_; }
  const SlotRing& slots() const { return slots_; }

  // Seat records (heartbeats). The coordinator sets the owner at spawn, the
  // worker beats; the coordinator reads ages only to decide to SIGKILL a hung
  // worker, never to reclaim (reclaim waits for the reap). Seat < seat_count.
  void set_seat_owner(Seat seat, uint32_t pid, uint32_t incarnation);
  void clear_seat(Seat seat);
  void beat(Seat seat, uint64_t now_ms);
  // The worker, when its set-up is done (set_seat_owner resets it to kSetup).
  void set_seat_phase(Seat seat, SeatPhase phase);
  SeatStatus seat_status(Seat seat) const;

 private:
  Ring(Segment control, Segment data, const LayoutPlan& plan);
  SeatRecord& seat(Seat seat) const;

  Segment control_;
  Segment data_;
  SeatRecord* seats_ = nullptr;
  uint32_t seat_count_ = 0;
  uint64_t run_id_ = 0;
  SlotRing slots_;
};

}  // namespace proofpipe::shm
