// SqliteJournal's audits (journal_sqlite.hpp): every attempt of a job, the
// journal's invariants, and the witness directories it still refers to.
#include <fmt/format.h>

#include "journal_sqlite.hpp"
#include "sqlite_db.hpp"

namespace proofpipe::service {
namespace {

// Each invariant as a query for the rows that break it: (job id, partition
// index or -1). Together they say the journal holds only states the
// transitions of job_queue.hpp can reach.
struct Invariant {
  const char* broken;  // what a row means, for the error line
  const char* sql;
};

// "the partition's last attempt is open", for the queries below.
#define PP_OPEN_ATTEMPT                                                                            \
  "EXISTS (SELECT 1 FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND a.result = " \
  "'running')"
#define PP_PARTS "FROM partitions p JOIN jobs j ON j.seq = p.job_seq WHERE "
#define PP_JOB_HAS(cond) "EXISTS (SELECT 1 FROM partitions p WHERE p.job_seq = j.seq AND " cond ")"

constexpr Invariant kInvariants[] = {
    {"a job without partitions",
     "SELECT j.id, -1 FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM partitions p WHERE p.job_seq = j.seq)"},
    {"a partition whose attempt count disagrees with its attempts (numbered 1..n)",
     "SELECT j.id, p.idx " PP_PARTS
     "p.attempts != (SELECT count(*) FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx) "
     "OR p.attempts != (SELECT coalesce(max(a.attempt), 0) FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = "
     "p.idx)"},
    {"an open attempt that is not its partition's last",
     "SELECT j.id, p.idx " PP_PARTS
     "EXISTS (SELECT 1 FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND a.result = 'running' "
     "AND a.attempt != p.attempts)"},
    {"a running partition without an open attempt",
     "SELECT j.id, p.idx " PP_PARTS "p.status = 'running' AND NOT " PP_OPEN_ATTEMPT},
    {"a queued, done or failed partition with an open attempt",
     "SELECT j.id, p.idx " PP_PARTS "p.status IN ('queued', 'done', 'failed') AND " PP_OPEN_ATTEMPT},
    {"a done partition whose last attempt is not its one done attempt",
     "SELECT j.id, p.idx " PP_PARTS
     "p.status = 'done' AND ((SELECT count(*) FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND "
     "a.result = 'done') != 1 OR (SELECT a.result FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx "
     "AND a.attempt = p.attempts) IS NOT 'done')"},
    {"a done attempt on a partition that is not done",
     "SELECT j.id, p.idx " PP_PARTS
     "p.status != 'done' AND EXISTS (SELECT 1 FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND "
     "a.result = 'done')"},
    {"a done partition with an attempt started after it finished",
     "SELECT j.id, p.idx " PP_PARTS
     "p.status = 'done' AND EXISTS (SELECT 1 FROM attempts a WHERE a.job_seq = p.job_seq AND a.idx = p.idx AND "
     "a.started_at > p.finished_at)"},
    {"a done job with a partition not done",
     "SELECT j.id, -1 FROM jobs j WHERE j.state = 'done' AND " PP_JOB_HAS("p.status != 'done'")},
    {"a failed job with a partition not ended, cancelled, or none failed",
     "SELECT j.id, -1 FROM jobs j WHERE j.state = 'failed' AND (" PP_JOB_HAS(
         "p.status IN ('queued', 'running', 'cancelled')") " OR NOT " PP_JOB_HAS("p.status = 'failed'") ")"},
    {"a cancelled job with a partition queued or running",
     "SELECT j.id, -1 FROM jobs j WHERE j.state = 'cancelled' AND " PP_JOB_HAS("p.status IN ('queued', 'running')")},
    {"a queued or running job whose partitions all ended",
     "SELECT j.id, -1 FROM jobs j WHERE j.state IN ('queued', 'running') AND NOT " PP_JOB_HAS(
         "p.status IN ('queued', 'running')")},
    {"a queued job with an attempt",
     "SELECT j.id, -1 FROM jobs j WHERE j.state = 'queued' AND EXISTS (SELECT 1 FROM attempts a WHERE a.job_seq = "
     "j.seq)"},
    {"a job whose finished_at disagrees with its state (set exactly when it ended)",
     "SELECT j.id, -1 FROM jobs j WHERE (j.state IN ('done', 'failed', 'cancelled')) != (j.finished_at > 0)"},
};

#undef PP_OPEN_ATTEMPT
#undef PP_PARTS
#undef PP_JOB_HAS

}  // namespace

Result<std::vector<AttemptRecord>> SqliteJournal::attempts(std::string_view job_id) {
  std::lock_guard lock(mu_);
  PP_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, seq_of(job_id));
  if (!seq) return make_error(ErrorCode::kNotFound, "journal '{}': no job '{}'", db_->file().string(), job_id);
  PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query("SELECT idx, attempt, life, started_at, ended_at, result, error "
                                              "FROM attempts WHERE job_seq = ? ORDER BY idx, attempt",
                                              *seq));
  std::vector<AttemptRecord> out;
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return out;
    out.push_back(
        {uint32_t(s.i64(0)), uint32_t(s.i64(1)), uint64_t(s.i64(2)), s.f64(3), s.f64(4), s.text(5), s.text(6)});
  }
}

Status SqliteJournal::check_integrity() {
  std::lock_guard lock(mu_);
  const std::string file = db_->file().string();
  for (const char* pragma : {"PRAGMA integrity_check", "PRAGMA foreign_key_check"}) {
    PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query(pragma));
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    // integrity_check answers one row "ok"; foreign_key_check answers none.
    const bool ok = std::string_view(pragma) == "PRAGMA integrity_check" ? row && s.text(0) == "ok" : !row;
    if (!ok) {
      return make_error(ErrorCode::kBadFormat, "journal '{}': {} failed: {}", file, pragma,
                        row ? s.text(0) : std::string("no answer"));
    }
  }
  size_t broken = 0;
  std::string first;  // the first few, for the one line
  for (const Invariant& inv : kInvariants) {
    PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query(inv.sql));
    for (;;) {
      PP_ASSIGN_OR_RETURN(bool row, s.step());
      if (!row) break;
      if (++broken <= 3) {
        first += fmt::format("{}{} (job '{}'{})", first.empty() ? "" : "; ", inv.broken, s.text(0),
                             s.i64(1) >= 0 ? fmt::format(", partition {}", s.i64(1)) : std::string());
      }
    }
  }
  if (broken == 0) return Status::ok();
  return make_error(ErrorCode::kInternal, "journal '{}': {} broken invariant(s): {}{}", file, broken, first,
                    broken > 3 ? "; ..." : "");
}

Result<std::set<std::filesystem::path>> SqliteJournal::witness_dirs() {
  std::lock_guard lock(mu_);
  // Only jobs not yet ended: a done, failed or cancelled job's copies are
  // nobody's, and a start must not keep them (a client could fill the disk
  // by submitting and cancelling).
  PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query("SELECT DISTINCT p.witness FROM partitions p JOIN jobs j ON "
                                              "j.seq = p.job_seq WHERE j.state IN ('queued', 'running')"));
  std::set<std::filesystem::path> dirs;
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return dirs;
    dirs.insert(std::filesystem::path(s.text(0)).parent_path());
  }
}

}  // namespace proofpipe::service
