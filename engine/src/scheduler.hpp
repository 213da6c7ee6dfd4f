// The coordinator's decisions, over plain memory: the ledger, the grant
// queue, the ready queue, which partition each slot carries, the dispatch
// order, every check of a worker's message, and every reclaim and requeue
// after a death or a scan. It does no I/O and reads no clock: the Supervisor
// (supervisor.hpp) feeds it events and a run-clock value and executes the
// actions it returns, so a unit test drives it over a SlotRing on a
// std::vector (tests/engine/scheduler_test.cpp). Only loads and CASes on the
// slot words touch the ring (docs/shm-layout.md, "Reclaim rules").
//
//   Supervisor (inputs)                     Scheduler                      actions (Supervisor runs them)
//   -------------------                     ---------                      ------------------------------
//   seat_started(seat, incarnation) --->  seats: incarnation, alive,  ---> kSend    GRANT / DISPATCH to a seat
//   on_message(peer, message, now) ---->    hello, waiting, held part ---> kVerify  a PROOF to verify + write,
//   committed / proof_rejected -------->  ledger: PENDING .. DONE              then committed() / proof_rejected()
//   seat_died(seat, cause, now) ------->  grant FIFO, ready queue     ---> kSample  an event for the Reporter
//   schedule(now), reconcile(now) ----->  slot -> partition           ---> kWorkDone  a seat finished a unit of work
//                                              |      ^                ---> kHello  a gpu seat's HELLO body
//                                              v      |
//                                      SlotRing&: load, grant, reclaim_*, discard, quarantine
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/groth16/verifier.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/shm/slot_ring.hpp"

namespace proofpipe::engine {

// What the Scheduler knows of one worker seat.
struct SeatState {
  ipc::Role role = ipc::Role::kSynth;
  uint8_t seat = 0;
  uint32_t incarnation = 0;           // of the current (or last) child
  bool alive = false;                 // a child runs (between seat_started and seat_died)
  bool hello = false;                 // it finished its set-up
  bool waiting = false;               // synth: asked for a slot
  std::optional<uint32_t> partition;  // synth: the one it writes; gpu: dispatched or proving
};

struct Action {
  enum class Kind : uint8_t { kSend, kVerify, kSample, kWorkDone, kHello };
  Kind kind = Kind::kSend;
  uint8_t seat = 0;
  ipc::Message message;               // kSend: header complete (role, seat, incarnation); kHello: the body
  const char* event = "";             // kSample
  std::optional<uint32_t> partition;  // kSample, kVerify
  std::string proof;                  // kVerify: the proof's bytes (the key's PipelineKey::proof_bytes())
  ipc::ProveStages stages;            // kVerify
};
using Actions = std::vector<Action>;

struct SchedulerCounts {
  uint64_t stale_messages = 0;      // from a dead or replaced incarnation, or about a partition it no longer holds
  uint64_t malformed_messages = 0;  // a field no message of ours can hold (slot >= K, partition >= N, body size)
  uint64_t duplicate_proofs = 0;
};

class Scheduler {
 public:
  // Seats 0..synth_seats-1 write, the next gpu_seats prove (the ring's seats).
  // proof_bytes[k]: the size of a proof for key k (its curve's), which a
  // PROOF body must hold exactly, before its ProveStages.
  Scheduler(Ledger& ledger, shm::SlotRing& slots, uint32_t synth_seats, uint32_t gpu_seats,
            std::vector<size_t> proof_bytes);

  // --- inputs from the Supervisor --------------------------------------
  void seat_started(uint8_t seat, uint32_t incarnation);
  // After the reap only: reclaims every slot word that names the seat, and
  // settles the partition it held (requeue, re-dispatch, keep a seal).
  Actions seat_died(uint8_t seat, const std::string& cause, double now);
  // Every message is checked here: sender (seat, role, incarnation, peer),
  // then every field against the ledger and the slot word it names. A bad
  // one is dropped and counted, never trusted.
  Actions on_message(const std::string& peer, const ipc::Message& message, double now);
  // The outcome of a kVerify: the proof was valid and is written.
  Actions committed(uint32_t part, const ipc::ProveStages& stages, double now);
  // ... or it was not (invalid: retried; permanent: an output error).
  void proof_rejected(uint32_t part, const std::string& cause, bool permanent);
  // Grants FREE slots to waiting writers (FIFO), dispatches READY partitions
  // to idle provers (oldest first).
  Actions schedule(double now);
  // The level-triggered scan: every slot word and every READY partition
  // against the ledger; settles what messages lost with a death left behind.
  Actions reconcile(double now);
  void fail_remaining(const std::string& cause);
  // serve: the partition's job was cancelled; none of it is dispatched
  // after this returns. PENDING, and READY not yet dispatched, end now
  // (FAILED, "cancelled"; the READY record is discarded); WRITING is
  // discarded when sealed; PROVING finishes (its proof counts) or ends
  // without a retry (Ledger::requeue).
  void cancel(uint32_t part);
  // The lowest ledger index a seat, a slot or the ready queue still names
  // (the ledger's size when none): ended partitions below it may be dropped.
  uint32_t lowest_named() const;
  // serve, draining: no new grants; what was granted finishes.
  void hold_grants(bool hold) { hold_grants_ = hold; }
  // run --backend cuda: no grant before a proving worker has said HELLO, so
  // a device that cannot be used is a set-up error before any partition
  // starts (Supervisor::abort_if_no_workers), not every partition failed.
  void grants_after_gpu_hello() { gpu_gate_ = true; }

  // --- views ------------------------------------------------------------
  const SeatState& seat(uint8_t s) const { return seats_[s]; }
  size_t seat_count() const { return seats_.size(); }
  const SchedulerCounts& counts() const { return counts_; }
  std::optional<uint32_t> slot_partition(uint32_t slot) const { return slot_part_[slot]; }
  const std::deque<uint32_t>& ready_queue() const { return ready_queue_; }
  const std::deque<uint8_t>& grant_queue() const { return grant_queue_; }

  // --- branching (the slot model, tests/engine/slot_model.hpp) ----------
  // The Scheduler's own state; the Ledger and the ring are the caller's and
  // are copied by it. A Scheduler over a copy of the Ledger and ring, given
  // restore(snapshot()), decides as this one: the model checker branches a
  // run at every step this way.
  struct Snapshot {
    std::vector<SeatState> seats;
    std::vector<std::optional<uint32_t>> slot_part;
    std::deque<uint8_t> grant_queue;
    std::deque<uint32_t> ready_queue;
    SchedulerCounts counts;
  };
  Snapshot snapshot() const { return {seats_, slot_part_, grant_queue_, ready_queue_, counts_}; }
  void restore(Snapshot s);

 private:
  Actions on_synth_message(SeatState& w, const ipc::Message& m, double now);
  Actions on_gpu_message(SeatState& w, const ipc::Message& m, double now);
  Actions on_proof(SeatState& w, const ipc::Message& m);
  void grant_slots(double now, Actions& out);
  void dispatch_ready(Actions& out);
  void recover_partition(uint32_t part, const std::string& cause, double now);
  void reclaim_slot(uint32_t slot, shm::SlotWord word, const std::string& cause);
  void settle_slot(uint32_t slot);
  bool held_by_gpu(uint32_t part) const;
  void queue_ready(uint32_t part, bool front);
  void drop_cancelled_record(Partition& p);
  void unmap_slot(const Partition& p);
  void take_signals(Partition& p, const std::string& body);
  Action send(const SeatState& w, ipc::MsgType type, ipc::MsgHeader h, std::string body = {}) const;
  static Action sample(const char* event, std::optional<uint32_t> part);

  Ledger& ledger_;
  shm::SlotRing& slots_;
  const std::vector<size_t> proof_bytes_;           // by key
  std::vector<SeatState> seats_;                    // index = seat
  std::vector<std::optional<uint32_t>> slot_part_;  // slot -> the partition it carries
  std::deque<uint8_t> grant_queue_;                 // synth seats waiting for a slot, FIFO
  std::deque<uint32_t> ready_queue_;                // READY partitions, oldest first
  SchedulerCounts counts_;
  bool hold_grants_ = false;
  bool gpu_gate_ = false;  // grants_after_gpu_hello(), until the first proving worker's HELLO
};

}  // namespace proofpipe::engine
