// The job ledger: the coordinator's record of every partition of the run,
// the single place that decides whether a partition is pending, in flight,
// proved (committed exactly once) or failed. Shared memory says where the
// bytes are; the ledger says what they mean.
//
//   PENDING --grant--> WRITING --sealed--> READY --dispatch--> PROVING --proof ok--> DONE
//      ^                  |                  ^                   |
//      |   worker death,  |                  | gpu died holding  |  gpu died after release,
//      +---abort, invalid-+------------------|---the slot--------+  invalid proof: requeue
//      |                                     | (slot reclaimed   |
//      |        attempt+1 < max              |  to READY)        |
//      +-------------------------------------+-------------------+
//   any requeue with attempt == max, or a permanent (input) error --> FAILED
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::engine {

// One public signal: an Fr of the partition's key's curve, Montgomery form,
// as a slot and a SEALED message carry it. Fr is 32 bytes on both curves;
// the key (key.hpp) gives the words their type.
using FrWords = std::array<uint64_t, 4>;

enum class PartState { kPending, kWriting, kReady, kProving, kDone, kFailed };
const char* part_state_name(PartState s);

struct Partition {
  uint64_t job = 0;        // the job it belongs to (run: 0; serve: the journal's job seq)
  uint32_t index = 0;      // its place in the ledger (the messages' `partition`)
  uint8_t key = 0;         // which of PipelineConfig::keys proves it
  int64_t priority = 0;    // higher first (serve); then older request, then lower index
  bool cancelled = false;  // serve: its job was cancelled; never dispatched again (Scheduler::cancel)
  std::string stem;        // output name: <stem>.proof.json
  std::filesystem::path wtns;
  // --inputs (docs/witness-gen.md): the input JSON the synthesis worker runs
  // `generator` on (wtns empty); the public signals then come with its SEALED.
  std::filesystem::path input;
  std::vector<std::string> generator;
  std::vector<FrWords> public_signals;  // w[1..nPublic], read at start (or sent with SEALED)
  bool signals_known = true;            // false for a generated witness until its SEALED carried them

  PartState state = PartState::kPending;
  uint32_t attempt = 0;                      // attempts started; the current one's number
  std::optional<uint8_t> seat;               // the worker that holds it (WRITING, PROVING)
  std::optional<uint32_t> slot;              // its slot (WRITING, READY, PROVING until released)
  uint64_t epoch = 0;                        // the slot word's epoch as last known
  std::vector<std::string> causes;           // one per failed attempt
  double queued_s = 0;                       // run clock: when it joined the queue (run: 0, the run's start)
  double started_s = 0, done_s = 0;          // run clock: first grant, commit
  double write_started_s = 0, sealed_s = 0;  // of the last attempt
  double claimed_s = 0;                      // a proving worker claimed its slot (last claim)
  double synth_s = 0, prove_s = 0;           // last attempt: grant -> seal, seal -> commit (timings.hpp splits it)
  double generate_s = 0;                     // --inputs, last attempt: generating and reading the witness (in synth_s)
  ipc::ProveStages stages;                   // the committed proof's, as its proving worker timed them
};

// The cause a signal gives the partitions it stopped (Pipeline::loop): they
// did not fail, they were not reached; summaries say "interrupted".
inline constexpr std::string_view kInterruptedCause = "interrupted by a signal";
inline bool was_interrupted(const Partition& p) {
  return p.state == PartState::kFailed && !p.causes.empty() && p.causes.back() == kInterruptedCause;
}

// What an owner that keeps its own record (the service's journal) is told
// of each transition, from inside the transition.
enum class LedgerEvent : uint8_t {
  kAttemptStarted,  // PENDING -> WRITING: a grant
  kRequeued,        // back to PENDING after a failed attempt (cause)
  kFailed,          // FAILED for good (cause); also a cancelled partition's end
  kDone,            // committed
};
using LedgerObserver = std::function<void(const Partition&, LedgerEvent, std::string_view cause)>;

class Ledger {
 public:
  Ledger(std::vector<Partition> parts, uint32_t max_attempts);

  // Every partition ever added (the next one's index), dropped ones included.
  size_t size() const { return base_ + parts_.size(); }
  // The lowest index still held: drop_ended_before() releases a resident
  // service's ended partitions, so indices below this one name nothing.
  uint32_t first_held() const { return base_; }
  bool holds(size_t i) const { return i >= base_ && i < size(); }
  Partition& at(size_t i) {
    PP_ASSERT(holds(i), "ledger index not held");
    return parts_[i - base_];
  }
  const Partition& at(size_t i) const {
    PP_ASSERT(holds(i), "ledger index not held");
    return parts_[i - base_];
  }
  // Every partition held; a batch (which never drops any) has them all.
  const std::deque<Partition>& all() const { return parts_; }

  // A new PENDING partition at the end (serve: a job arrived); returns its index.
  uint32_t append(Partition p);
  void set_observer(LedgerObserver observer) { observer_ = std::move(observer); }
  // Partitions before this index are all DONE or FAILED: scans start here,
  // so a resident service's loop does not grow with the partitions it ended.
  uint32_t open_begin() const { return open_begin_; }
  // Frees what an ended partition no longer needs (its public signals and
  // causes): a resident service keeps ~200 bytes per ended partition.
  void forget_payload(uint32_t i);
  // Releases the ended partitions at the front, below `limit` (the lowest
  // index anything else still names): a service's memory then stays flat in
  // the partitions it served. Returns how many were dropped.
  size_t drop_ended_before(uint32_t limit);

  // The next partition to synthesize: highest priority first, then oldest
  // request, then lowest index.
  std::optional<uint32_t> next_pending() const;
  // PENDING -> WRITING (attempt + 1).
  void start_write(uint32_t i, uint8_t seat, uint32_t slot, uint64_t epoch, double now);
  // WRITING -> READY.
  void sealed(uint32_t i, uint64_t epoch, double now);
  // READY -> PROVING by `seat` (the slot stays until released).
  void proving(uint32_t i, uint8_t seat, double now);
  // READY/PROVING -> READY after the coordinator reclaimed the slot of a dead
  // consumer (CONSUMING -> READY): the record is intact and is proved again
  // without re-synthesis. The cause counts against max_attempts like a
  // requeue; returns kFailed when the budget is spent (the caller frees the slot).
  PartState back_to_ready(uint32_t i, uint64_t epoch, std::string cause);
  // Back to PENDING with the cause, or FAILED once `max_attempts` attempts
  // have failed (or at once when permanent). Returns the new state.
  PartState requeue(uint32_t i, std::string cause, bool permanent = false);
  // PROVING -> DONE exactly once, with the proving worker's stage times;
  // false for a duplicate or stale commit.
  bool commit(uint32_t i, double now, const ipc::ProveStages& stages);

  size_t count(PartState s) const { return counts_[size_t(s)]; }
  bool finished() const { return count(PartState::kDone) + count(PartState::kFailed) == size(); }
  // WRITING, READY or PROVING: granted and not yet ended.
  size_t in_flight() const {
    return count(PartState::kWriting) + count(PartState::kReady) + count(PartState::kProving);
  }

 private:
  void set_state(Partition& p, PartState s);
  void notify(const Partition& p, LedgerEvent e, std::string_view cause) const {
    if (observer_) observer_(p, e, cause);
  }

  std::deque<Partition> parts_;  // indices base_ ..
  uint32_t base_ = 0;
  uint32_t max_attempts_;
  std::array<size_t, 6> counts_{};  // by PartState
  uint32_t open_begin_ = 0;
  LedgerObserver observer_;
};

}  // namespace proofpipe::engine
