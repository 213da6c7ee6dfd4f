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

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::coord {

enum class PartState { kPending, kWriting, kReady, kProving, kDone, kFailed };
const char* part_state_name(PartState s);

struct Partition {
  uint64_t request = 0;
  uint32_t index = 0;
  std::string stem;  // output name: <stem>.proof.json
  std::filesystem::path wtns;
  std::vector<ff::Fr> public_signals;  // w[1..nPublic], read at start

  PartState state = PartState::kPending;
  uint32_t attempt = 0;                      // attempts started; the current one's number
  std::optional<uint8_t> seat;               // the worker that holds it (WRITING, PROVING)
  std::optional<uint32_t> slot;              // its slot (WRITING, READY, PROVING until released)
  uint64_t epoch = 0;                        // the slot word's epoch as last known
  std::vector<std::string> causes;           // one per failed attempt
  double started_s = 0, done_s = 0;          // run clock: first grant, commit
  double write_started_s = 0, sealed_s = 0;  // of the last attempt
  double synth_s = 0, prove_s = 0;           // last attempt: grant -> seal, seal -> commit (queueing included)
  ipc::ProveStages stages;                   // the committed proof's, as its proving worker timed them
};

class Ledger {
 public:
  Ledger(std::vector<Partition> parts, uint32_t max_attempts) : parts_(std::move(parts)), max_attempts_(max_attempts) {}

  size_t size() const { return parts_.size(); }
  Partition& at(size_t i) { return parts_[i]; }
  const Partition& at(size_t i) const { return parts_[i]; }
  const std::vector<Partition>& all() const { return parts_; }

  // The next partition to synthesize: oldest request first, then lowest index.
  std::optional<uint32_t> next_pending() const;
  // PENDING -> WRITING (attempt + 1).
  void start_write(uint32_t i, uint8_t seat, uint32_t slot, uint64_t epoch, double now);
  // WRITING -> READY.
  void sealed(uint32_t i, uint64_t epoch, double now);
  // READY -> PROVING by `seat` (the slot stays until released).
  void proving(uint32_t i, uint8_t seat);
  // READY/PROVING -> READY after the coordinator reclaimed the slot of a dead
  // consumer (CONSUMING -> READY): the record is intact and is proved again
  // without re-synthesis. The cause counts against max_attempts like a
  // requeue; returns kFailed when the budget is spent (the caller frees the slot).
  PartState back_to_ready(uint32_t i, uint64_t epoch, std::string cause);
  // Back to PENDING with the cause, or FAILED once `max_attempts` attempts
  // have failed (or at once when permanent). Returns the new state.
  PartState requeue(uint32_t i, std::string cause, bool permanent = false);
  // PROVING -> DONE exactly once; false for a duplicate or stale commit.
  bool commit(uint32_t i, double now);

  size_t count(PartState s) const;
  bool finished() const { return count(PartState::kDone) + count(PartState::kFailed) == parts_.size(); }

 private:
  std::vector<Partition> parts_;
  uint32_t max_attempts_;
};

}  // namespace proofpipe::coord
