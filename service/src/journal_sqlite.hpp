// The job journal of one host: JobQueue (job_queue.hpp) in an SQLite file
// under --state-dir, in WAL mode with synchronous=FULL, so every call that
// changes the queue is one transaction that is on disk when it returns, and a
// `kill -9` at any moment leaves the journal as it was after the last call
// that returned (tests/service/journal_crash_test.cpp).
//
// Tables (schema version 1; the text of kSchema in journal_sqlite.cpp):
//   jobs(seq, id, key, priority, digest, state, submitted_at, started_at, finished_at)
//   partitions(job_seq, idx, name, witness, status, attempts, last_error,
//              started_at, finished_at, wait_s .. msms_s)
//   attempts(job_seq, idx, attempt, life, started_at, ended_at, result, error)
//   lives(life, opened_at): one row per open(); an attempt left `running` by
//              an earlier life was cut short by a crash (unfinished() marks it lost)
// States are stored as their words ("queued", ...) so `sqlite3 journal.db`
// reads plainly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "job_queue.hpp"

namespace proofpipe::service {

namespace sql {
class Db;
}

// One attempt at a partition, for tests and audits.
struct AttemptRecord {
  uint32_t index = 0;    // the partition
  uint32_t attempt = 0;  // 1, 2, ... over every life of the service
  uint64_t life = 0;     // the open() of the journal that started it
  double started_at = 0;
  double ended_at = 0;  // 0: still running, or lost (the service died at an unknown moment)
  std::string result;   // "running", "failed", "done" or "lost"
  std::string error;    // the cause given to attempt_failed / partition_failed
};

class SqliteJournal final : public JobQueue {
 public:
  static constexpr int64_t kSchemaVersion = 1;

  // Opens `db_file`, creating it (0600) if absent. The caller made its
  // directory (owner-only). Refused with one line naming the file: a symbolic
  // link, FIFO, directory or device at the path (or at its -wal/-shm names), a
  // file that is not an SQLite database or not a proofpipe journal, and a
  // journal of a newer schema than this build reads.
  static Result<std::unique_ptr<SqliteJournal>> open(const std::filesystem::path& db_file);
  ~SqliteJournal() override;

  Result<SubmitResult> submit(const JobSpec& spec, double now) override;
  Result<std::optional<Job>> get(std::string_view id) override;
  Result<std::vector<Job>> list(std::optional<JobState> state, size_t limit) override;
  Result<std::optional<Job>> cancel(std::string_view id, double now) override;

  // Resets only what EARLIER lives left running: safe to call at any time,
  // it never requeues an attempt this life has in flight.
  Result<std::vector<WorkItem>> unfinished() override;
  Result<std::vector<WorkItem>> job_work(std::string_view id) override;
  // kInternal on a partition that is done, failed or cancelled (the engine
  // must never start one). On a partition still `running` (no end reported
  // for its last attempt), that attempt is closed as lost first.
  Result<uint32_t> attempt_started(uint64_t job_seq, uint32_t index, double now) override;
  // kInternal unless the partition has an attempt open. On a cancelled
  // partition the attempt is recorded and the partition stays cancelled.
  Status attempt_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) override;
  // kInternal unless an attempt is open (so a partition is never done twice).
  // A cancelled partition becomes done (the proof counts); its job stays cancelled.
  Status partition_done(uint64_t job_seq, uint32_t index, const PartTimes& times, double now) override;
  // kInternal on a done or failed partition. A cancelled one stays cancelled.
  Status partition_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) override;

  // --- beyond JobQueue ----------------------------------------------------
  // Every attempt of a job by partition, then attempt; kNotFound: no such job.
  Result<std::vector<AttemptRecord>> attempts(std::string_view job_id);
  // PRAGMA integrity_check and foreign_key_check, then the journal's own
  // invariants (a done partition has exactly one `done` attempt, its last, and
  // none started after it finished; attempt counts agree with the attempts
  // table; a job's state agrees with its partitions'). kInternal, one line
  // naming the first violations.
  Status check_integrity();
  // The directories holding the witness copies of every job in the journal:
  // what intake's sweep_staging must keep at start.
  Result<std::set<std::filesystem::path>> witness_dirs();
  // This open()'s number (1 for a new journal).
  uint64_t life() const { return life_; }

 private:
  explicit SqliteJournal(std::unique_ptr<sql::Db> db);
  Status init();
  Result<Job> load_job(uint64_t seq, bool with_partitions);
  Result<std::optional<uint64_t>> seq_of(std::string_view id);
  Result<std::vector<WorkItem>> work_items(std::optional<uint64_t> job_seq);
  Status end_job_if_complete(uint64_t job_seq, double now);
  // The partition's status word and the number of its last attempt, with
  // whether that attempt is still open; kInternal when there is no such partition.
  struct PartState {
    std::string status, name, job_id;
    uint32_t attempts = 0;
    bool open = false;
  };
  Result<PartState> part_state(uint64_t job_seq, uint32_t index);
  Status close_attempt(uint64_t job_seq, uint32_t index, uint32_t attempt, std::string_view result,
                       std::string_view error, double now);

  std::mutex mu_;  // one connection, one caller at a time
  std::unique_ptr<sql::Db> db_;
  uint64_t life_ = 0;
};

}  // namespace proofpipe::service
