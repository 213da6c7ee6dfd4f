// The job queue behind `proofpipe serve` (docs/service.md): jobs, their
// partitions and every attempt, durable before a call returns. One small
// interface with two homes: the embedded SQLite journal (journal_sqlite.hpp)
// for one host, and PostgreSQL for many hosts sharing one queue (queue_pg.hpp,
// docs/scale-out.md).
//
// The engine PULLS: each node claims only as many partitions as its free
// capacity takes (claim), keeps its claims alive (renew), and ends each one
// with commit / fail_partition / release. Every claim carries a fencing token
// that only rises; a call with a token that is no longer the partition's
// current one is refused with ErrorCode::kStale (another node took the
// partition after this node's lease ran out). One node on SQLite: a claim is
// local and its token is trivially current.
//
//   job:        queued --first attempt--> running --all partitions ended--> done | failed
//                  \__________________ cancel (before all ended) ___________> cancelled
//   partition:  queued --attempt_started--> running --partition_done--> done
//                  ^                          |  \--partition_failed----> failed
//                  +----attempt_failed--------+   (max attempts spent, or bad input)
//               a cancel turns every partition not yet done into cancelled;
//               a proof that lands after the cancel still counts (done).
//
// All methods are safe to call from any thread (the HTTP threads and the
// engine's); the implementation serialises writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/timings.hpp"

namespace proofpipe::service {

// A write the queue refused for want of space on this node's disk (the
// service backs off and says so on /readyz, docs/service.md): SQLITE_FULL
// (kResourceExhausted), or ENOSPC or EDQUOT from a file the queue writes.
bool out_of_space(const Status& st);

enum class JobState : uint8_t { kQueued, kRunning, kDone, kFailed, kCancelled };
const char* job_state_name(JobState s);  // "queued", "running", "done", "failed", "cancelled"
std::optional<JobState> parse_job_state(std::string_view name);

enum class PartStatus : uint8_t { kQueued, kRunning, kDone, kFailed, kCancelled };
const char* part_status_name(PartStatus s);  // the same five words

// One witness of a job: the partition's name (its output stem, unique in the
// job) and the service's own copy of the file (under --state-dir, made at
// intake: a job never depends on the client's file after the answer).
struct WitnessEntry {
  std::string name;
  std::filesystem::path path;
  // true: `path` is circom input JSON, and the key's witness generator
  // (serve --witness-gen) makes the witness in a synthesis worker
  // (docs/witness-gen.md); false: a .wtns.
  bool input = false;
};

struct JobSpec {
  std::string id;        // the client's id, or one the service generated
  std::string key;       // the NAME of a loaded key
  int64_t priority = 0;  // higher first; then older first
  // BLAKE2b of the key name, priority, and every (name, witness bytes): the
  // same id with the same digest is the same job (idempotent resubmission);
  // with another digest it is a conflict.
  std::string digest;
  std::vector<WitnessEntry> witnesses;
};

// Where a committed proof's time went (seconds; the run clock of the service
// that proved it).
// A done partition's stage seconds, as the engine times them
// (engine::PartitionTimes): the queue stores wait (queued -> the grant of
// the attempt that succeeded), synthesis (grant -> sealed), proving (sealed
// -> committed, queueing for a prover included) and the proving worker's
// own stages; the other fields stay 0.
using PartTimes = engine::PartitionTimes;
inline PartTimes part_times(double wait_s, double synth_s, double prove_s, ipc::ProveStages stages) {
  PartTimes t;
  t.wait_s = wait_s;
  t.synth_s = synth_s;
  t.prove_s = prove_s;
  t.stages = stages;
  return t;
}

struct PartitionInfo {
  uint32_t index = 0;
  std::string name;
  std::filesystem::path witness;
  bool input = false;  // `witness` is input JSON (WitnessEntry::input)
  PartStatus status = PartStatus::kQueued;
  uint32_t attempts = 0;                   // attempts started, over every life of the service
  std::string last_error;                  // of the last failed attempt; empty if none
  double started_at = 0, finished_at = 0;  // unix seconds; 0: not yet
  PartTimes times;                         // of the committed proof (done only)
};

struct Job {
  uint64_t seq = 0;  // the queue's order of arrival (older first within a priority)
  std::string id, key, digest;
  int64_t priority = 0;
  JobState state = JobState::kQueued;
  double submitted_at = 0, started_at = 0, finished_at = 0;  // unix seconds; 0: not yet
  uint32_t total = 0, done = 0, failed = 0, cancelled = 0;   // partition counts
  std::vector<PartitionInfo> partitions;                     // by index; list() leaves them empty
};

enum class SubmitOutcome : uint8_t { kCreated, kExisting, kConflict };
struct SubmitResult {
  SubmitOutcome outcome = SubmitOutcome::kCreated;
  Job job;  // kCreated: the new job; kExisting/kConflict: the one already under that id
};

// A proof as stored and served (snarkjs proof.json and public.json).
struct ProofFiles {
  std::string proof_json;
  std::string public_json;
};

// A partition the engine still has to prove.
struct WorkItem {
  uint64_t job_seq = 0;
  std::string job_id;
  std::string key;
  int64_t priority = 0;
  double submitted_at = 0;
  uint32_t index = 0;
  std::string name;
  std::filesystem::path witness;  // a file on this node (PostgreSQL: written there at the claim)
  bool input = false;             // `witness` is input JSON: the key's generator makes the witness
  uint64_t fence = 0;             // the claim's fencing token
};

// One claim a node holds: the partition and the token it was claimed with.
struct Claim {
  uint64_t job_seq = 0;
  uint32_t index = 0;
  uint64_t fence = 0;
  auto operator<=>(const Claim&) const = default;
};

struct ClaimRequest {
  std::vector<std::string> keys;  // only partitions of these keys (the node's --key names)
  size_t max_n = 0;               // the node's free capacity
  // Partitions given as input JSON only of these keys (those this node has a
  // --witness-gen for): the others wait for a node that can generate them.
  std::vector<std::string> input_keys = {};  // "= {}": older {keys, max_n} initializers stay complete

  // Whether this node may take a partition of `key` given as a witness or input.
  bool takes(std::string_view key, bool input) const;
};

// What renew() learned of a node's claims.
struct Renewal {
  std::vector<Claim> cancelled;  // their job was cancelled (on any node): drop them
  std::vector<Claim> lost;       // another node holds them now (the lease ran out): drop them
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  // --- the API's side ---------------------------------------------------
  // Durable before it returns. An existing id: kExisting (same digest) or
  // kConflict (another), and nothing is written.
  virtual Result<SubmitResult> submit(const JobSpec& spec, double now) = 0;
  virtual Result<std::optional<Job>> get(std::string_view id) = 0;
  // Newest first, at most `limit`; partitions left empty.
  virtual Result<std::vector<Job>> list(std::optional<JobState> state, size_t limit) = 0;
  // Marks the job and its partitions not yet done cancelled (durable); a job
  // that already ended is returned unchanged. nullopt: no such job.
  virtual Result<std::optional<Job>> cancel(std::string_view id, double now) = 0;

  // Partitions queued (or claimed by no live node) of jobs neither ended nor
  // cancelled: the cluster's queue depth.
  virtual Result<uint64_t> depth() = 0;

  // --- the engine's side: a node's claims -------------------------------
  // Up to max_n partitions of the given keys, by priority (high first), then
  // job age, then index, each now held by this node under a fresh token. A
  // partition whose holder's lease ran out is claimed again (SQLite: one
  // left `running` by a killed service). The job becomes running.
  virtual Result<std::vector<WorkItem>> claim(const ClaimRequest& request, double now) = 0;
  // Keeps this node alive and its claims' leases running; says which of
  // `held` were cancelled or taken by another node since.
  virtual Result<Renewal> renew(std::span<const Claim> held, double now) = 0;
  // A new attempt at a held partition began (the grant); returns its number
  // (1, 2, ...).
  virtual Result<uint32_t> start_attempt(const Claim& c, double now) = 0;
  // The attempt failed and this node will try again.
  virtual Status fail_attempt(const Claim& c, std::string_view cause, double now) = 0;
  // The proof is verified: it is stored the queue's own way (the SQLite
  // journal: two files under the state directory, durable before the done
  // mark; PostgreSQL: in the same transaction) and the partition is done,
  // for good. The job ends when its last partition does. kStale: the token
  // is not current; nothing was written.
  virtual Status commit(const Claim& c, const PartTimes& times, const ProofFiles& proof, double now) = 0;
  // No attempt is left, or the input is bad: failed for good. kStale as above.
  virtual Status fail_partition(const Claim& c, std::string_view cause, double now) = 0;
  // The node gives a claim back unfinished (drain, cancel): queued again
  // unless cancelled; the claim does not count as an attempt.
  virtual Status release(const Claim& c, double now) = 0;

  // --- what the queue stores, and the connection -------------------------
  // A done partition's proof and public inputs, as commit() stored them.
  virtual Result<std::optional<ProofFiles>> read_proof(std::string_view job_id, std::string_view name) = 0;
  // A job ended (done, failed, cancelled): the witness copies intake made
  // for it are nobody's now. A queue that keeps witness bytes itself
  // (PostgreSQL) removed its copies when it stored them.
  virtual void forget_witnesses(std::string_view job_id) = 0;
  // --- retention (serve --retain) ---------------------------------------
  // Removes at most `max_jobs` jobs that ended (done, failed, cancelled)
  // before `ended_before` (unix seconds), oldest first: their rows, stored
  // proofs and any witness copy left. Their ids are unknown afterwards (404;
  // a submit under one is a new job). Returns how many were removed.
  virtual Result<size_t> expire(double ended_before, size_t max_jobs) = 0;
  // What the queue holds on its disk or in its database, in bytes.
  struct StoredBytes {
    uint64_t proofs = 0;   // stored proofs and public inputs
    uint64_t journal = 0;  // the journal's files (SQLite), or the tables (PostgreSQL)
  };
  virtual Result<StoredBytes> stored_bytes() = 0;
  // Empty while the queue is reachable, else why not (/readyz says it).
  virtual std::string unavailable_reason() const { return {}; }
};

}  // namespace proofpipe::service
