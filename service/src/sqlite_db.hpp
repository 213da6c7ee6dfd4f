// A thin RAII layer over SQLite's C API for the job journal
// (journal_sqlite.hpp): one connection, prepared statements with typed binds,
// BEGIN IMMEDIATE transactions, and SQLite's errors as one-line Statuses that
// name the database file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace proofpipe::service::sql {

class Db;

class Stmt {
 public:
  Stmt(const Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& operator=(Stmt&&) = delete;
  ~Stmt();

  // Binds parameter `i` (1-based).
  void bind(int i, int64_t v);
  void bind(int i, double v);
  void bind(int i, std::string_view v);
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind(int i, uint32_t v) { bind(i, int64_t(v)); }
  void bind(int i, uint64_t v) { bind(i, int64_t(v)); }
  void bind(int i, int v) { bind(i, int64_t(v)); }

  // true: a row is ready to read; false: the statement has finished.
  Result<bool> step();
  // Steps to the end (for statements without rows).
  Status run();

  int64_t i64(int col) const;
  double f64(int col) const;
  std::string text(int col) const;

 private:
  const Db* db_;
  sqlite3_stmt* stmt_;
};

class Db {
 public:
  // Opens an EXISTING file read-write, never through a symbolic link
  // (SQLITE_OPEN_NOFOLLOW). The caller has made and checked the file.
  static Result<std::unique_ptr<Db>> open(const std::filesystem::path& file);
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  // Prepares `sql` and binds `args` to ?1, ?2, ...
  template <class... Args>
  Result<Stmt> query(std::string_view sql, const Args&... args) {
    PP_ASSIGN_OR_RETURN(Stmt s, prepare(sql));
    int i = 0;
    (s.bind(++i, args), ...);
    return s;
  }
  // query() and run() in one: for statements without rows.
  template <class... Args>
  Status exec(std::string_view sql, const Args&... args) {
    PP_ASSIGN_OR_RETURN(Stmt s, query(sql, args...));
    return s.run();
  }
  // One value of the first row (a count, a state); kInternal when there is no row.
  template <class... Args>
  Result<int64_t> scalar(std::string_view sql, const Args&... args) {
    PP_ASSIGN_OR_RETURN(Stmt s, query(sql, args...));
    PP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return make_error(ErrorCode::kInternal, "journal '{}': no row from: {}", file_.string(), sql);
    return s.i64(0);
  }

  // Runs several ';'-separated statements without parameters (the schema).
  Status exec_script(std::string_view sql);

  // BEGIN IMMEDIATE (the write lock at once, so the transaction never fails
  // half-way on a lock upgrade), `body`, COMMIT; ROLLBACK if `body` or the
  // COMMIT fails. With synchronous=FULL the COMMIT is durable when it returns.
  Status transaction(const std::function<Status()>& body);
  // transaction() for a body that also makes a value: body(T& out) -> Status;
  // `out` once it committed.
  template <class T, class Body>
  Result<T> transaction_with(Body&& body) {
    T out{};
    PP_RETURN_IF_ERROR(transaction([&]() -> Status { return body(out); }));
    return out;
  }

  // Runs `body`; if it still runs `seconds` from now, SQLite is told to
  // stop (sqlite3_interrupt from a watchdog thread: integrity_check honours
  // it inside its page walk too, where a progress handler is never called)
  // and the statement's step fails with kDeadlineExceeded.
  Status with_deadline(double seconds, const std::function<Status()>& body);

  int64_t last_insert_rowid() const;
  // The Status for SQLite's error `rc` during `what`: "journal '<file>': <what>: <message>".
  Status error(std::string_view what, int rc) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  Db(std::filesystem::path file, sqlite3* db) : file_(std::move(file)), db_(db) {}
  Result<Stmt> prepare(std::string_view sql);

  std::filesystem::path file_;
  sqlite3* db_;
};

}  // namespace proofpipe::service::sql
