// SqliteJournal (journal_sqlite.hpp): opening the file safely, the schema, and
// the API's side of JobQueue (submit, get, list, cancel). The engine's side is
// journal_sqlite_engine.cpp, the audits journal_sqlite_audit.cpp.
#include "journal_sqlite.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "intake.hpp"  // replace_all
#include "proofpipe/common/safe_file.hpp"
#include "sqlite_db.hpp"

namespace proofpipe::service {
namespace fs = std::filesystem;
namespace {

// Version 1; kMigrations take it to kSchemaVersion, a new journal too (so
// every journal runs the same statements). A build never opens a journal
// newer than it knows.
constexpr const char* kSchema = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE lives (life INTEGER PRIMARY KEY AUTOINCREMENT, opened_at REAL NOT NULL);
CREATE TABLE jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL,
  priority INTEGER NOT NULL,
  digest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  submitted_at REAL NOT NULL,
  started_at REAL NOT NULL DEFAULT 0,
  finished_at REAL NOT NULL DEFAULT 0
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
CREATE TABLE partitions (
  job_seq INTEGER NOT NULL REFERENCES jobs (seq),
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  witness TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  started_at REAL NOT NULL DEFAULT 0,
  finished_at REAL NOT NULL DEFAULT 0,
  wait_s REAL NOT NULL DEFAULT 0, synth_s REAL NOT NULL DEFAULT 0, prove_s REAL NOT NULL DEFAULT 0,
  intake_s REAL NOT NULL DEFAULT 0, h_s REAL NOT NULL DEFAULT 0, msms_s REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (job_seq, idx),
  UNIQUE (job_seq, name)
) WITHOUT ROWID;
CREATE INDEX partitions_by_status ON partitions (status);
CREATE TABLE attempts (
  job_seq INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  life INTEGER NOT NULL REFERENCES lives (life),
  started_at REAL NOT NULL,
  ended_at REAL NOT NULL DEFAULT 0,
  result TEXT NOT NULL CHECK (result IN ('running', 'failed', 'done', 'lost')),
  error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (job_seq, idx, attempt),
  FOREIGN KEY (job_seq, idx) REFERENCES partitions (job_seq, idx)
) WITHOUT ROWID;
CREATE INDEX attempts_open ON attempts (life) WHERE result = 'running';
)sql";

// kMigrations[v - 2] takes version v - 1 to v.
constexpr const char* kMigrations[] = {
    // 2: a partition given as circom input JSON (`witness` names the input's
    // copy; the key's --witness-gen makes the witness, docs/witness-gen.md).
    "ALTER TABLE partitions ADD COLUMN kind TEXT NOT NULL DEFAULT 'witness' CHECK (kind IN ('witness', 'input'))",
};
static_assert(std::size(kMigrations) + 1 == SqliteJournal::kSchemaVersion);

// The most the index cross-check at open may take (check_pages).
constexpr double kIndexCheckS = 30;

// A job with its partition counts; the caller appends WHERE/GROUP BY.
constexpr const char* kJobSelect =
    "SELECT j.seq, j.id, j.key, j.digest, j.priority, j.state, j.submitted_at, j.started_at, j.finished_at, "
    "count(p.idx), sum(p.status = 'done'), sum(p.status = 'failed'), sum(p.status = 'cancelled') "
    "FROM jobs j LEFT JOIN partitions p ON p.job_seq = j.seq ";

Job job_from_row(const sql::Stmt& s) {
  Job j;
  j.seq = uint64_t(s.i64(0));
  j.id = s.text(1);
  j.key = s.text(2);
  j.digest = s.text(3);
  j.priority = s.i64(4);
  j.state = parse_job_state(s.text(5)).value_or(JobState::kFailed);  // the CHECK constraint keeps it one of five
  j.submitted_at = s.f64(6);
  j.started_at = s.f64(7);
  j.finished_at = s.f64(8);
  j.total = uint32_t(s.i64(9));
  j.done = uint32_t(s.i64(10));
  j.failed = uint32_t(s.i64(11));
  j.cancelled = uint32_t(s.i64(12));
  return j;
}

// The journal's path (or its -wal/-shm/-journal companion) must be absent or
// a regular file: never a link, FIFO, directory or device.
Status check_plain_or_absent(const fs::path& p, bool* exists) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      if (exists) *exists = false;
      return Status::ok();
    }
    return make_error(ErrorCode::kIo, "journal '{}': {}", p.string(), std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "journal '{}' is a {}, not a regular file", p.string(),
                      file_kind(st.st_mode));
  }
  if (exists) *exists = true;
  return Status::ok();
}

// Creates the file 0600 (SQLite would create it 0644 less the umask; its
// -wal and -shm files take the database file's mode), or tightens an
// existing one to 0600: the journal names every client's witness paths.
Status create_or_tighten(const fs::path& p) {
  for (int tries = 0; tries < 2; ++tries) {
    bool exists = false;
    PP_RETURN_IF_ERROR(check_plain_or_absent(p, &exists));
    const int fd = exists ? ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                          : ::open(p.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      // Raced: created, or removed, by someone else since the lstat: look again.
      if ((!exists && errno == EEXIST) || (exists && errno == ENOENT)) continue;
      return make_error(ErrorCode::kIo, "journal '{}': {}", p.string(), std::strerror(errno));
    }
    struct stat st {};
    Status s;
    if (::fstat(fd, &st) != 0) {
      s = make_error(ErrorCode::kIo, "journal '{}': {}", p.string(), std::strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
      s = make_error(ErrorCode::kInvalidArgument, "journal '{}' is a {}, not a regular file", p.string(),
                     file_kind(st.st_mode));
    } else if ((st.st_mode & 0077) != 0 && ::fchmod(fd, 0600) != 0) {
      s = make_error(ErrorCode::kIo, "journal '{}': chmod 0600: {}", p.string(), std::strerror(errno));
    }
    ::close(fd);
    return s;
  }
  return make_error(ErrorCode::kIo, "journal '{}': created and removed by someone else while opening", p.string());
}

double wall_clock_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The tables of a journal of this version and their columns, taken from
// kSchema and kMigrations run on an empty in-memory database: the check at
// open can never drift from the schema it checks.
using TableColumns = std::vector<std::pair<std::string, std::vector<std::string>>>;
Result<TableColumns> expected_tables() {
  PP_ASSIGN_OR_RETURN(std::unique_ptr<sql::Db> mem, sql::Db::open(":memory:"));
  PP_RETURN_IF_ERROR(mem->exec_script(kSchema));
  for (const char* m : kMigrations) PP_RETURN_IF_ERROR(mem->exec_script(m));
  TableColumns out;
  PP_ASSIGN_OR_RETURN(sql::Stmt t, mem->query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                                              "LIKE 'sqlite_%' ORDER BY name"));
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, t.step());
    if (!row) break;
    out.push_back({t.text(0), {}});
  }
  for (auto& [table, columns] : out) {
    PP_ASSIGN_OR_RETURN(sql::Stmt c, mem->query("SELECT name FROM pragma_table_info(?)", table));
    for (;;) {
      PP_ASSIGN_OR_RETURN(bool row, c.step());
      if (!row) break;
      columns.push_back(c.text(0));
    }
  }
  return out;
}

}  // namespace

SqliteJournal::SqliteJournal(std::unique_ptr<sql::Db> db) : db_(std::move(db)) {}
SqliteJournal::~SqliteJournal() = default;

Result<std::unique_ptr<SqliteJournal>> SqliteJournal::open(const fs::path& db_file) {
  PP_RETURN_IF_ERROR(create_or_tighten(db_file));
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    PP_RETURN_IF_ERROR(check_plain_or_absent(fs::path(db_file.string() + suffix), nullptr));
  }
  PP_ASSIGN_OR_RETURN(std::unique_ptr<sql::Db> db, sql::Db::open(db_file));
  std::unique_ptr<SqliteJournal> j(new SqliteJournal(std::move(db)));
  j->proofs_dir_ = db_file.parent_path() / "proofs";
  PP_RETURN_IF_ERROR(j->init());
  j->proof_bytes_ = j->count_proof_bytes();
  return j;
}

Status SqliteJournal::init() {
  const std::string file = db_->file().string();
  // Read before anything is written: a newer journal is left exactly as it is.
  auto has_version = db_->scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!has_version.is_ok()) {
    if (has_version.status().code() == ErrorCode::kBadFormat) {
      return make_error(ErrorCode::kBadFormat, "journal '{}' is not an SQLite database", file);
    }
    return has_version.status();
  }
  const bool fresh = *has_version == 0;
  int64_t version = 0;
  if (fresh) {
    PP_ASSIGN_OR_RETURN(int64_t tables, db_->scalar("SELECT count(*) FROM sqlite_master"));
    if (tables != 0) {
      return make_error(ErrorCode::kBadFormat,
                        "journal '{}' is an SQLite database but not a proofpipe journal (no schema_version table)",
                        file);
    }
  } else {
    PP_ASSIGN_OR_RETURN(version, db_->scalar("SELECT coalesce(max(version), 0) FROM schema_version"));
    if (version > kSchemaVersion) {
      return make_error(ErrorCode::kBadFormat,
                        "journal '{}' has schema version {}, newer than the version {} this proofpipe reads "
                        "(a newer proofpipe wrote it)",
                        file, version, kSchemaVersion);
    }
    if (version < 1) return make_error(ErrorCode::kBadFormat, "journal '{}' has no schema version", file);
    // Before anything is written, and before the service says it is ready:
    // a damaged page found later would fail reads and submits one by one.
    PP_RETURN_IF_ERROR(check_pages());
  }
  {
    PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query("PRAGMA journal_mode = WAL"));
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row || s.text(0) != "wal") {
      return make_error(ErrorCode::kIo, "journal '{}': cannot switch to WAL mode (journal_mode is '{}')", file,
                        row ? s.text(0) : std::string());
    }
  }
  // FULL: in WAL mode the log is fsynced at every COMMIT, so a transaction
  // that returned survives a power cut, not only a killed process.
  PP_RETURN_IF_ERROR(db_->exec_script("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON"));
  return db_->transaction([&]() -> Status {
    if (fresh) {
      PP_RETURN_IF_ERROR(db_->exec_script(kSchema));
      PP_RETURN_IF_ERROR(db_->exec("INSERT INTO schema_version (version) VALUES (1)"));
      version = 1;
    }
    for (int64_t v = version + 1; v <= kSchemaVersion; ++v) {
      PP_RETURN_IF_ERROR(db_->exec_script(kMigrations[v - 2]));
      PP_RETURN_IF_ERROR(db_->exec("UPDATE schema_version SET version = ?", v));
    }
    PP_RETURN_IF_ERROR(db_->exec("INSERT INTO lives (opened_at) VALUES (?)", wall_clock_now()));
    life_ = uint64_t(db_->last_insert_rowid());
    return check_schema();
  });
}

Status SqliteJournal::check_pages() {
  const std::string file = db_->file().string();
  const auto damaged = [&](std::string what) {
    // quick_check's report spans lines ("*** in database main ***\nPage 32:
    // ..."): the error is one line.
    replace_all(what, "*** in database main ***\n", "");
    for (char& c : what) c = c == '\n' ? ' ' : c;
    return make_error(ErrorCode::kBadFormat,
                      "journal '{}' is damaged ({}): restore it from a backup, or move it aside to start an empty one",
                      file, what);
  };
  // integrity_check reads every page, checks each b-tree's structure (all
  // quick_check does) and also that every index holds exactly its table's
  // rows: an index page whose keys were changed passes quick_check, and a
  // lookup through it then misses a job that is there. It costs
  // 1.3x to 2.7x quick_check (docs/operations.md, "Journal checks at start"),
  // so it is bounded: past kIndexCheckS (a journal far larger than months
  // of jobs) the start goes on with quick_check alone and says so. (1):
  // the first problem is enough to refuse the file.
  const auto first_row = [&](const char* pragma) -> Result<std::string> {
    PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query(pragma));
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return std::string("no answer");
    return s.text(0);
  };
  Result<std::string> verdict = std::string();
  (void)db_->with_deadline(kIndexCheckS, [&] {
    verdict = first_row("PRAGMA integrity_check(1)");
    return Status::ok();
  });
  if (!verdict && verdict.status().code() == ErrorCode::kDeadlineExceeded) {
    spdlog::warn(
        "journal '{}': the index cross-check took over {} s and was cut short; checked the pages alone "
        "(run `sqlite3 {} 'PRAGMA integrity_check'` while the service is stopped)",
        file, kIndexCheckS, file);
    verdict = first_row("PRAGMA quick_check(1)");
  }
  if (!verdict) return damaged(verdict.status().message());
  if (*verdict != "ok") return damaged(*verdict);
  return Status::ok();
}

Status SqliteJournal::check_schema() {
  const std::string file = db_->file().string();
  PP_ASSIGN_OR_RETURN(const TableColumns expected, expected_tables());
  for (const auto& [table, columns] : expected) {
    PP_ASSIGN_OR_RETURN(sql::Stmt c, db_->query("SELECT name FROM pragma_table_info(?)", table));
    std::vector<std::string> have;
    for (;;) {
      PP_ASSIGN_OR_RETURN(bool row, c.step());
      if (!row) break;
      have.push_back(c.text(0));
    }
    if (have.empty()) {
      return make_error(ErrorCode::kBadFormat, "journal '{}' has no table '{}' (dropped or never made)", file, table);
    }
    for (const std::string& col : columns) {
      if (std::find(have.begin(), have.end(), col) == have.end()) {
        return make_error(ErrorCode::kBadFormat, "journal '{}': table '{}' has no column '{}'", file, table, col);
      }
    }
  }
  return Status::ok();
}

Result<std::optional<uint64_t>> SqliteJournal::seq_of(std::string_view id) {
  PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query("SELECT seq FROM jobs WHERE id = ?", id));
  PP_ASSIGN_OR_RETURN(bool row, s.step());
  if (!row) return std::optional<uint64_t>();
  return std::optional<uint64_t>(uint64_t(s.i64(0)));
}

Result<Job> SqliteJournal::load_job(uint64_t seq, bool with_partitions) {
  Job job;
  {
    PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query(std::string(kJobSelect) + "WHERE j.seq = ? GROUP BY j.seq", seq));
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return make_error(ErrorCode::kInternal, "journal '{}': no job #{}", db_->file().string(), seq);
    job = job_from_row(s);
  }
  if (!with_partitions) return job;
  PP_ASSIGN_OR_RETURN(sql::Stmt s, db_->query("SELECT idx, name, witness, status, attempts, last_error, started_at, "
                                              "finished_at, wait_s, synth_s, prove_s, intake_s, h_s, msms_s, kind "
                                              "FROM partitions WHERE job_seq = ? ORDER BY idx",
                                              seq));
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) break;
    PartitionInfo p;
    p.index = uint32_t(s.i64(0));
    p.name = s.text(1);
    p.witness = s.text(2);
    // The five words are the same for jobs and partitions (job_queue.cpp).
    p.status = PartStatus(parse_job_state(s.text(3)).value_or(JobState::kFailed));
    p.attempts = uint32_t(s.i64(4));
    p.last_error = s.text(5);
    p.started_at = s.f64(6);
    p.finished_at = s.f64(7);
    p.times = part_times(s.f64(8), s.f64(9), s.f64(10), {s.f64(11), s.f64(12), s.f64(13)});
    p.input = s.text(14) == "input";
    job.partitions.push_back(std::move(p));
  }
  return job;
}

Result<SubmitResult> SqliteJournal::submit(const JobSpec& spec, double now) {
  if (spec.id.empty() || spec.witnesses.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "journal '{}': a job needs an id and at least one witness",
                      db_->file().string());
  }
  std::lock_guard lock(mu_);
  return db_->transaction_with<SubmitResult>([&](SubmitResult& out) -> Status {
    PP_ASSIGN_OR_RETURN(std::optional<uint64_t> existing, seq_of(spec.id));
    if (existing) {  // nothing is written: the COMMIT ends an empty transaction
      PP_ASSIGN_OR_RETURN(out.job, load_job(*existing, true));
      out.outcome = out.job.digest == spec.digest ? SubmitOutcome::kExisting : SubmitOutcome::kConflict;
      return Status::ok();
    }
    PP_RETURN_IF_ERROR(
        db_->exec("INSERT INTO jobs (id, key, priority, digest, state, submitted_at) VALUES (?, ?, ?, ?, 'queued', ?)",
                  spec.id, spec.key, spec.priority, spec.digest, now));
    const auto seq = uint64_t(db_->last_insert_rowid());
    for (size_t i = 0; i < spec.witnesses.size(); ++i) {
      PP_RETURN_IF_ERROR(db_->exec(
          "INSERT INTO partitions (job_seq, idx, name, witness, kind, status) VALUES (?, ?, ?, ?, ?, 'queued')", seq,
          uint64_t(i), spec.witnesses[i].name, spec.witnesses[i].path.string(),
          spec.witnesses[i].input ? "input" : "witness"));
    }
    out.outcome = SubmitOutcome::kCreated;
    PP_ASSIGN_OR_RETURN(out.job, load_job(seq, true));
    return Status::ok();
  });
}

Result<std::optional<Job>> SqliteJournal::get(std::string_view id) {
  std::lock_guard lock(mu_);
  PP_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, seq_of(id));
  if (!seq) return std::optional<Job>();
  PP_ASSIGN_OR_RETURN(Job job, load_job(*seq, true));
  return std::optional<Job>(std::move(job));
}

Result<std::vector<Job>> SqliteJournal::list(std::optional<JobState> state, size_t limit) {
  std::lock_guard lock(mu_);
  const auto n = int64_t(std::min<size_t>(limit, INT64_MAX));
  PP_ASSIGN_OR_RETURN(
      sql::Stmt s,
      state ? db_->query(std::string(kJobSelect) + "WHERE j.state = ? GROUP BY j.seq ORDER BY j.seq DESC LIMIT ?",
                         job_state_name(*state), n)
            : db_->query(std::string(kJobSelect) + "GROUP BY j.seq ORDER BY j.seq DESC LIMIT ?", n));
  std::vector<Job> jobs;
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return jobs;
    jobs.push_back(job_from_row(s));
  }
}

Result<std::optional<Job>> SqliteJournal::cancel(std::string_view id, double now) {
  std::lock_guard lock(mu_);
  return db_->transaction_with<std::optional<Job>>([&](std::optional<Job>& out) -> Status {
    PP_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, seq_of(id));
    if (!seq) return Status::ok();
    PP_ASSIGN_OR_RETURN(int64_t open,
                        db_->scalar("SELECT state IN ('queued', 'running') FROM jobs WHERE seq = ?", *seq));
    if (open) {
      // A partition with an attempt in flight keeps it open: the engine
      // reports its end, and a proof that lands still counts (done).
      PP_RETURN_IF_ERROR(
          db_->exec("UPDATE partitions SET status = 'cancelled', finished_at = "
                    "CASE WHEN finished_at = 0 THEN ?1 ELSE finished_at END "
                    "WHERE job_seq = ?2 AND status != 'done'",
                    now, *seq));
      PP_RETURN_IF_ERROR(db_->exec("UPDATE jobs SET state = 'cancelled', finished_at = ? WHERE seq = ?", now, *seq));
    }
    PP_ASSIGN_OR_RETURN(Job job, load_job(*seq, true));
    out = std::move(job);
    return Status::ok();
  });
}

}  // namespace proofpipe::service
