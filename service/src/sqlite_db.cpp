// SQLite's C API behind sqlite_db.hpp.
#include "sqlite_db.hpp"

#include <sqlite3.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace proofpipe::service::sql {

Stmt::~Stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

// Bind errors (a bad index, out of memory) surface at step(): SQLite keeps
// the statement unusable and reports it there.
void Stmt::bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
void Stmt::bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
void Stmt::bind(int i, std::string_view v) {
  sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

Result<bool> Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->error(sqlite3_sql(stmt_), rc);
}

Status Stmt::run() {
  for (;;) {
    PP_ASSIGN_OR_RETURN(bool row, step());
    if (!row) return Status::ok();
  }
}

int64_t Stmt::i64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::f64(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
}

Result<std::unique_ptr<Db>> Db::open(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  // NOMUTEX: the journal serialises calls itself (one mutex over the connection).
  const int rc =
      sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<Db> out(new Db(file, db));
  if (rc != SQLITE_OK) return out->error("open", rc);
  sqlite3_extended_result_codes(db, 1);
  // Another connection (an operator's `sqlite3` shell, a backup) may hold the
  // lock briefly; 5 s of waiting beats failing a client's submit.
  sqlite3_busy_timeout(db, 5000);
  return out;
}

Db::~Db() { sqlite3_close_v2(db_); }

Result<Stmt> Db::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), int(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return error(sql, rc);
  return Stmt(this, stmt);
}

Status Db::exec_script(std::string_view sql) {
  const std::string s(sql);
  const int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::ok() : error(sql, rc);
}

Status Db::transaction(const std::function<Status()>& body) {
  PP_RETURN_IF_ERROR(exec_script("BEGIN IMMEDIATE"));
  Status st = body();
  if (st.is_ok()) st = exec_script("COMMIT");
  // A failed COMMIT may already have rolled back; then this one is a no-op.
  if (!st.is_ok() && !sqlite3_get_autocommit(db_)) (void)exec_script("ROLLBACK");
  return st;
}

Status Db::with_deadline(double seconds, const std::function<Status()>& body) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done; })) sqlite3_interrupt(db_);
  });
  Status st = body();
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_one();
  watchdog.join();
  return st;
}

int64_t Db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

Status Db::error(std::string_view what, int rc) const {
  ErrorCode code = ErrorCode::kIo;
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_FULL:
    case SQLITE_NOMEM: code = ErrorCode::kResourceExhausted; break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: code = ErrorCode::kBadFormat; break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: code = ErrorCode::kUnavailable; break;
    case SQLITE_CONSTRAINT: code = ErrorCode::kInternal; break;
    case SQLITE_INTERRUPT: code = ErrorCode::kDeadlineExceeded; break;  // with_deadline()
    default: break;
  }
  // The connection's message when it has one for this code, else the code's.
  const char* msg = db_ && sqlite3_errcode(db_) == rc ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  // `what` may be a statement: its first words say which one, on one line.
  std::string head(what.substr(0, 60));
  for (char& c : head) {
    if (c == '\n') c = ' ';
  }
  if (what.size() > head.size()) head += "...";
  return make_error(code, "journal '{}': {}: {}", file_.string(), head, msg);
}

}  // namespace proofpipe::service::sql
