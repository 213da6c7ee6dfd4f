// The job queue behind `proofpipe serve` (docs/service.md): jobs, their
// partitions and every attempt, durable before a call returns. One small
// interface with two homes: the embedded SQLite journal (journal_sqlite.hpp)
// for one host, and PostgreSQL for many hosts sharing one queue (next).
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
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::service {

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
struct PartTimes {
  double wait_s = 0;                         // queued -> the grant of the attempt that succeeded
  double synth_s = 0;                        // grant -> sealed
  double prove_s = 0;                        // sealed -> committed (queueing for a prover included)
  double intake_s = 0, h_s = 0, msms_s = 0;  // the proving worker's own stages
};

struct PartitionInfo {
  uint32_t index = 0;
  std::string name;
  std::filesystem::path witness;
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

// A partition the engine still has to prove.
struct WorkItem {
  uint64_t job_seq = 0;
  std::string job_id;
  std::string key;
  int64_t priority = 0;
  double submitted_at = 0;
  uint32_t index = 0;
  std::string name;
  std::filesystem::path witness;
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

  // --- the engine's side ------------------------------------------------
  // Every partition still queued or running of a job neither ended nor
  // cancelled, by priority (high first), then job age, then index: what a
  // (re)started service must prove. A partition left `running` by a killed
  // service is queued again by this call (its attempt recorded as lost).
  virtual Result<std::vector<WorkItem>> unfinished() = 0;
  // The partitions of one job (a new one, just submitted), as unfinished() would list them.
  virtual Result<std::vector<WorkItem>> job_work(std::string_view id) = 0;
  // A new attempt at a partition began (the grant); returns its number over
  // every life of the service (1, 2, ...). The job becomes running.
  virtual Result<uint32_t> attempt_started(uint64_t job_seq, uint32_t index, double now) = 0;
  // The attempt failed and the partition will be tried again.
  virtual Status attempt_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) = 0;
  // The proof is stored (its files are durable): the partition is done, for
  // good. The job ends when its last partition does.
  virtual Status partition_done(uint64_t job_seq, uint32_t index, const PartTimes& times, double now) = 0;
  // No attempt is left, or the input is bad: failed for good.
  virtual Status partition_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) = 0;
};

}  // namespace proofpipe::service
