// The job journal of one host: JobQueue (job_queue.hpp) in an SQLite file
// under --state-dir, in WAL mode with synchronous=FULL, so every call that
// changes the queue is one transaction that is on disk when it returns, and a
// `kill -9` at any moment leaves the journal as it was after the last call
// that returned (tests/service/journal_crash_test.cpp).
//
// Tables (schema version 2: kSchema in journal_sqlite.cpp and its migrations):
//   jobs(seq, id, key, priority, digest, state, submitted_at, started_at, finished_at)
//   partitions(job_seq, idx, name, witness, status, attempts, last_error,
//              started_at, finished_at, wait_s .. msms_s,
//              kind: 'witness', or 'input' when `witness` is circom input JSON (v2))
//   attempts(job_seq, idx, attempt, life, started_at, ended_at, result, error)
//   lives(life, opened_at): one row per open(); an attempt left `running` by
//              an earlier life was cut short by a crash (unfinished() marks it lost)
// States are stored as their words ("queued", ...) so `sqlite3 journal.db`
// reads plainly.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/service/job_queue.hpp"

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
  static constexpr int64_t kSchemaVersion = 2;

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

  Result<uint64_t> depth() override;

  // The claim side for one node: a claim hands out partitions queued (or
  // left running by an earlier life: the first claim of a life marks those
  // attempts lost, as unfinished() does) that this life does not hold yet;
  // every token is 0 and always current. The calls below forward to the
  // per-partition calls further down.
  Result<std::vector<WorkItem>> claim(const ClaimRequest& request, double now) override;
  Result<Renewal> renew(std::span<const Claim> held, double now) override;
  Result<uint32_t> start_attempt(const Claim& c, double now) override;
  Status fail_attempt(const Claim& c, std::string_view cause, double now) override;
  // commit and fail_partition: a claim whose write failed stays held (not
  // claimed again in this life) until a retry lands.
  Status commit(const Claim& c, const PartTimes& times, const ProofFiles& proof, double now) override;
  Status fail_partition(const Claim& c, std::string_view cause, double now) override;
  Status release(const Claim& c, double now) override;
  // Proofs live as files beside the database, in proofs/<job>/<name>.proof.json
  // and .public.json (journal_sqlite_proofs.cpp), written before the done mark.
  Result<std::optional<ProofFiles>> read_proof(std::string_view job_id, std::string_view name) override;
  void forget_witnesses(std::string_view job_id) override;
  // Retention (journal_sqlite_retain.cpp): proof bytes are counted once at
  // open, then as proofs are stored and expired.
  Result<size_t> expire(double ended_before, size_t max_jobs) override;
  Result<StoredBytes> stored_bytes() override;

  // --- the per-partition engine calls (the claim side and the tests) ------
  // Every partition still queued or running of a job neither ended nor
  // cancelled, by priority (high first), then job age, then index. A
  // partition left `running` by an EARLIER life is queued again by this call
  // (its attempt recorded as lost); an attempt this life has in flight is
  // never requeued.
  Result<std::vector<WorkItem>> unfinished();
  // The partitions of one job (a new one, just submitted), as unfinished() would list them.
  Result<std::vector<WorkItem>> job_work(std::string_view id);
  // A new attempt at a partition began (the grant); returns its number over
  // every life of the service (1, 2, ...). The job becomes running.
  // kInternal on a partition that is done, failed or cancelled (the engine
  // must never start one). On a partition still `running` (no end reported
  // for its last attempt), that attempt is closed as lost first.
  Result<uint32_t> attempt_started(uint64_t job_seq, uint32_t index, double now);
  // The attempt failed and the partition will be tried again.
  // kInternal unless the partition has an attempt open. On a cancelled
  // partition the attempt is recorded and the partition stays cancelled.
  Status attempt_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now);
  // The proof's files are durable: the partition is done, for good.
  // kInternal unless an attempt is open (so a partition is never done twice).
  // A cancelled partition becomes done (the proof counts); its job stays cancelled.
  Status partition_done(uint64_t job_seq, uint32_t index, const PartTimes& times, double now);
  // No attempt is left, or the input is bad: failed for good.
  // kInternal on a done or failed partition. A cancelled one stays cancelled.
  Status partition_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now);

  // --- beyond JobQueue ----------------------------------------------------
  // Every attempt of a job by partition, then attempt; kNotFound: no such job.
  Result<std::vector<AttemptRecord>> attempts(std::string_view job_id);
  // PRAGMA integrity_check and foreign_key_check, then the journal's own
  // invariants (a done partition has exactly one `done` attempt, its last, and
  // none started after it finished; attempt counts agree with the attempts
  // table; a job's state agrees with its partitions'). kInternal, one line
  // naming the first violations.
  Status check_integrity();
  // The directories holding the witness copies of every job not yet ended
  // (queued or running): what intake's sweep_staging must keep at start.
  // An ended job's copies are swept (forget_witnesses may not have run: a
  // crash, or a cancel the engine never saw).
  Result<std::set<std::filesystem::path>> witness_dirs();
  // This open()'s number (1 for a new journal).
  uint64_t life() const { return life_; }

 private:
  explicit SqliteJournal(std::unique_ptr<sql::Db> db);
  // A done partition's two files, both or neither, in its job's folder.
  Status store_proof(const Claim& c, const ProofFiles& proof);
  std::filesystem::path proofs_dir_;  // <the database's folder>/proofs
  uint64_t count_proof_bytes() const;
  std::atomic<uint64_t> proof_bytes_{0};  // the files under proofs_dir_
  Status init();
  // At open: every page readable and well formed (PRAGMA quick_check), and
  // every table and column this version uses present. kBadFormat, one line
  // naming the file: the service refuses to start on it.
  Status check_pages();
  Status check_schema();
  Result<Job> load_job(uint64_t seq, bool with_partitions);
  Result<std::optional<uint64_t>> seq_of(std::string_view id);
  // `limit` 0: all.
  Result<std::vector<WorkItem>> work_items(std::optional<uint64_t> job_seq, size_t limit = 0);
  Result<std::vector<WorkItem>> reset_and_list(size_t limit);
  void release_held(const Claim& c);
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
  bool claimed_once_ = false;                     // the first claim resets what earlier lives left running
  std::set<std::pair<uint64_t, uint32_t>> held_;  // (job seq, index) claimed by this life and not yet ended
};

}  // namespace proofpipe::service
