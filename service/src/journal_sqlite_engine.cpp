// SqliteJournal, the engine's side of JobQueue: what is left to prove, and
// every attempt's start and end, each one transaction (journal_sqlite.hpp).
// The checks here are what the crash tests rely on: a partition that is done,
// failed or cancelled is never started again, and one is never done twice.
#include <algorithm>
#include <string>

#include "journal_sqlite.hpp"
#include "sqlite_db.hpp"

namespace proofpipe::service {

Result<std::vector<WorkItem>> SqliteJournal::work_items(std::optional<uint64_t> job_seq, size_t limit) {
  // Priority first (high first), then the job's age, then the partition.
  static constexpr const char* kSelect =
      "SELECT j.seq, j.id, j.key, j.priority, j.submitted_at, p.idx, p.name, p.witness, p.kind "
      "FROM partitions p JOIN jobs j ON j.seq = p.job_seq "
      "WHERE p.status IN ('queued', 'running') AND j.state IN ('queued', 'running') ";
  const auto n = limit == 0 ? int64_t(-1) : int64_t(std::min<size_t>(limit, INT64_MAX));  // -1: no limit
  PP_ASSIGN_OR_RETURN(sql::Stmt s,
                      job_seq ? db_->query(std::string(kSelect) + "AND j.seq = ? ORDER BY p.idx LIMIT ?", *job_seq, n)
                              : db_->query(std::string(kSelect) + "ORDER BY j.priority DESC, j.seq, p.idx LIMIT ?", n));
  std::vector<WorkItem> items;
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return items;
    WorkItem w;
    w.job_seq = uint64_t(s.i64(0));
    w.job_id = s.text(1);
    w.key = s.text(2);
    w.priority = s.i64(3);
    w.submitted_at = s.f64(4);
    w.index = uint32_t(s.i64(5));
    w.name = s.text(6);
    w.witness = s.text(7);
    w.input = s.text(8) == "input";
    items.push_back(std::move(w));
  }
}

Result<std::vector<WorkItem>> SqliteJournal::unfinished() {
  std::lock_guard lock(mu_);
  return reset_and_list(0);
}

Result<std::vector<WorkItem>> SqliteJournal::reset_and_list(size_t limit) {
  return db_->transaction_with<std::vector<WorkItem>>([&](std::vector<WorkItem>& items) -> Status {
    // Attempts an earlier life left open died with it: their partitions go
    // back to the queue (a cancelled one stays cancelled), the attempts are
    // lost. Their end time is unknown, so ended_at stays 0.
    PP_RETURN_IF_ERROR(db_->exec(
        "UPDATE partitions SET status = 'queued' WHERE status = 'running' AND EXISTS (SELECT 1 FROM attempts a "
        "WHERE a.job_seq = partitions.job_seq AND a.idx = partitions.idx AND a.attempt = partitions.attempts "
        "AND a.result = 'running' AND a.life < ?)",
        life_));
    PP_RETURN_IF_ERROR(db_->exec("UPDATE attempts SET result = 'lost' WHERE result = 'running' AND life < ?", life_));
    PP_ASSIGN_OR_RETURN(items, work_items(std::nullopt, limit));
    return Status::ok();
  });
}

Result<uint64_t> SqliteJournal::depth() {
  std::lock_guard lock(mu_);
  PP_ASSIGN_OR_RETURN(int64_t n, db_->scalar("SELECT count(*) FROM partitions p JOIN jobs j ON j.seq = p.job_seq "
                                             "WHERE p.status IN ('queued', 'running') AND "
                                             "j.state IN ('queued', 'running')"));
  return uint64_t(n) - std::min<uint64_t>(uint64_t(n), held_.size());
}

// One node: the held set stands in for a lease (nothing else can take a
// partition from this process), so the list is the journal's own order
// with what this life holds left out.
Result<std::vector<WorkItem>> SqliteJournal::claim(const ClaimRequest& request, double /*now*/) {
  std::lock_guard lock(mu_);
  std::vector<WorkItem> out;
  if (request.max_n == 0) return out;
  std::vector<WorkItem> items;
  if (!claimed_once_) {
    PP_ASSIGN_OR_RETURN(items, reset_and_list(0));
    claimed_once_ = true;
  } else {
    // Held partitions come first in the same order only if nothing above
    // them arrived; asking for max_n past all of them is always enough.
    PP_ASSIGN_OR_RETURN(items, work_items(std::nullopt, request.max_n + held_.size()));
    // Partitions of a key this service lacks (or inputs of a key it has no
    // --witness-gen for) wait there; past them, read all.
    if (items.size() == request.max_n + held_.size()) {
      size_t usable = 0;
      for (const WorkItem& w : items) {
        usable += !held_.contains({w.job_seq, w.index}) && request.takes(w.key, w.input);
      }
      if (usable < request.max_n) {
        PP_ASSIGN_OR_RETURN(items, work_items(std::nullopt, 0));
      }
    }
  }
  for (WorkItem& w : items) {
    if (out.size() == request.max_n) break;
    if (!request.takes(w.key, w.input)) continue;
    if (!held_.insert({w.job_seq, w.index}).second) continue;
    out.push_back(std::move(w));
  }
  return out;
}

Result<Renewal> SqliteJournal::renew(std::span<const Claim> /*held*/, double /*now*/) {
  return Renewal{};  // cancels reach the one node through its own inbox
}

Result<uint32_t> SqliteJournal::start_attempt(const Claim& c, double now) {
  return attempt_started(c.job_seq, c.index, now);
}

Status SqliteJournal::fail_attempt(const Claim& c, std::string_view cause, double now) {
  return attempt_failed(c.job_seq, c.index, cause, now);
}

Status SqliteJournal::commit(const Claim& c, const PartTimes& times, const ProofFiles& proof, double now) {
  // The files first: a crash between them and the done mark proves the
  // partition again, and its files are written again.
  Status st = store_proof(c, proof);
  if (st) st = partition_done(c.job_seq, c.index, times, now);
  // A write that did not land (a full disk) leaves the row unfinished: the
  // claim stays this life's, so claim() does not hand the partition out to
  // be proved again while the service retries the write.
  if (st) release_held(c);
  return st;
}

Status SqliteJournal::fail_partition(const Claim& c, std::string_view cause, double now) {
  Status st = partition_failed(c.job_seq, c.index, cause, now);
  if (st) release_held(c);  // as in commit()
  return st;
}

Status SqliteJournal::release(const Claim& c, double /*now*/) {
  // Its row stays as it is: `queued`, or `running` with an attempt this life
  // opened, which the next life's first claim marks lost.
  release_held(c);
  return Status::ok();
}

void SqliteJournal::release_held(const Claim& c) {
  std::lock_guard lock(mu_);
  held_.erase({c.job_seq, c.index});
}

Result<std::vector<WorkItem>> SqliteJournal::job_work(std::string_view id) {
  std::lock_guard lock(mu_);
  PP_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, seq_of(id));
  if (!seq) return make_error(ErrorCode::kNotFound, "journal '{}': no job '{}'", db_->file().string(), id);
  return work_items(*seq);
}

Result<SqliteJournal::PartState> SqliteJournal::part_state(uint64_t job_seq, uint32_t index) {
  PP_ASSIGN_OR_RETURN(
      sql::Stmt s,
      db_->query("SELECT p.status, p.name, j.id, p.attempts, coalesce((SELECT a.result = 'running' FROM attempts a "
                 "WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND a.attempt = p.attempts), 0) "
                 "FROM partitions p JOIN jobs j ON j.seq = p.job_seq WHERE p.job_seq = ? AND p.idx = ?",
                 job_seq, index));
  PP_ASSIGN_OR_RETURN(bool row, s.step());
  if (!row) {
    return make_error(ErrorCode::kInternal, "journal '{}': no partition {} of job #{}", db_->file().string(), index,
                      job_seq);
  }
  return PartState{s.text(0), s.text(1), s.text(2), uint32_t(s.i64(3)), s.i64(4) != 0};
}

Status SqliteJournal::close_attempt(uint64_t job_seq, uint32_t index, uint32_t attempt, std::string_view result,
                                    std::string_view error, double now) {
  return db_->exec(
      "UPDATE attempts SET result = ?, error = ?, ended_at = ? WHERE job_seq = ? AND idx = ? AND attempt = ?", result,
      error, now, job_seq, index, attempt);
}

// A job still queued or running ends when its last partition does: done if
// every partition is, else failed. A cancelled job stays cancelled.
Status SqliteJournal::end_job_if_complete(uint64_t job_seq, double now) {
  return db_->exec(
      "UPDATE jobs SET finished_at = ?1, state = CASE WHEN EXISTS (SELECT 1 FROM partitions p WHERE p.job_seq = ?2 "
      "AND p.status = 'failed') THEN 'failed' ELSE 'done' END "
      "WHERE seq = ?2 AND state IN ('queued', 'running') AND NOT EXISTS (SELECT 1 FROM partitions p "
      "WHERE p.job_seq = ?2 AND p.status NOT IN ('done', 'failed'))",
      now, job_seq);
}

namespace {
// The engine broke the protocol of job_queue.hpp: a bug, reported, never applied.
Status misuse(const std::filesystem::path& file, const char* call, std::string_view name, std::string_view job,
              std::string_view why) {
  return make_error(ErrorCode::kInternal, "journal '{}': {} on partition '{}' of job '{}', which {}", file.string(),
                    call, name, job, why);
}
}  // namespace

Result<uint32_t> SqliteJournal::attempt_started(uint64_t job_seq, uint32_t index, double now) {
  std::lock_guard lock(mu_);
  return db_->transaction_with<uint32_t>([&](uint32_t& attempt) -> Status {
    PP_ASSIGN_OR_RETURN(PartState p, part_state(job_seq, index));
    if (p.status != "queued" && p.status != "running") {
      return misuse(db_->file(), "attempt_started", p.name, p.job_id, "is " + p.status);
    }
    if (p.open) {  // no end was reported for the last attempt: record it as lost
      PP_RETURN_IF_ERROR(close_attempt(job_seq, index, p.attempts, "lost", "a new attempt started", now));
    }
    attempt = p.attempts + 1;
    PP_RETURN_IF_ERROR(
        db_->exec("UPDATE partitions SET status = 'running', attempts = ?, started_at = "
                  "CASE WHEN started_at = 0 THEN ? ELSE started_at END WHERE job_seq = ? AND idx = ?",
                  attempt, now, job_seq, index));
    PP_RETURN_IF_ERROR(
        db_->exec("INSERT INTO attempts (job_seq, idx, attempt, life, started_at, result) "
                  "VALUES (?, ?, ?, ?, ?, 'running')",
                  job_seq, index, attempt, life_, now));
    return db_->exec("UPDATE jobs SET state = 'running', started_at = ? WHERE seq = ? AND state = 'queued'", now,
                     job_seq);
  });
}

Status SqliteJournal::attempt_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) {
  std::lock_guard lock(mu_);
  return db_->transaction([&]() -> Status {
    PP_ASSIGN_OR_RETURN(PartState p, part_state(job_seq, index));
    if (!p.open) return misuse(db_->file(), "attempt_failed", p.name, p.job_id, "has no attempt open");
    PP_RETURN_IF_ERROR(close_attempt(job_seq, index, p.attempts, "failed", cause, now));
    return db_->exec(
        "UPDATE partitions SET last_error = ?, status = CASE status WHEN 'running' THEN 'queued' "
        "ELSE status END WHERE job_seq = ? AND idx = ?",
        cause, job_seq, index);
  });
}

Status SqliteJournal::partition_done(uint64_t job_seq, uint32_t index, const PartTimes& t, double now) {
  std::lock_guard lock(mu_);
  return db_->transaction([&]() -> Status {
    PP_ASSIGN_OR_RETURN(PartState p, part_state(job_seq, index));
    if (!p.open) {
      return misuse(db_->file(), "partition_done", p.name, p.job_id,
                    p.status == "done" ? std::string("is already done") : "has no attempt open");
    }
    PP_RETURN_IF_ERROR(close_attempt(job_seq, index, p.attempts, "done", "", now));
    PP_RETURN_IF_ERROR(db_->exec(
        "UPDATE partitions SET status = 'done', finished_at = ?, wait_s = ?, synth_s = ?, "
        "prove_s = ?, intake_s = ?, h_s = ?, msms_s = ? WHERE job_seq = ? AND idx = ?",
        now, t.wait_s, t.synth_s, t.prove_s, t.stages.intake_s, t.stages.h_s, t.stages.msms_s, job_seq, index));
    return end_job_if_complete(job_seq, now);
  });
}

Status SqliteJournal::partition_failed(uint64_t job_seq, uint32_t index, std::string_view cause, double now) {
  std::lock_guard lock(mu_);
  return db_->transaction([&]() -> Status {
    PP_ASSIGN_OR_RETURN(PartState p, part_state(job_seq, index));
    if (p.status == "done" || p.status == "failed") {
      return misuse(db_->file(), "partition_failed", p.name, p.job_id, "is " + p.status);
    }
    if (p.open) PP_RETURN_IF_ERROR(close_attempt(job_seq, index, p.attempts, "failed", cause, now));
    PP_RETURN_IF_ERROR(db_->exec(
        "UPDATE partitions SET last_error = ?1, status = CASE status WHEN 'cancelled' THEN 'cancelled' ELSE 'failed' "
        "END, finished_at = CASE WHEN finished_at = 0 THEN ?2 ELSE finished_at END WHERE job_seq = ?3 AND idx = ?4",
        cause, now, job_seq, index));
    return end_job_if_complete(job_seq, now);
  });
}

}  // namespace proofpipe::service
