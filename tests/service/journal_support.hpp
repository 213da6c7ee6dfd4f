// Shared by the journal's tests: a journal in a fresh directory, job specs
// made up on the spot, and raw SQL against the file (to tamper with it the way
// only a bug or a newer proofpipe could).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>

#include "journal_sqlite.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {

inline service::JobSpec make_spec(const std::string& id, size_t partitions, int64_t priority = 0,
                                  const std::string& digest = "d0") {
  service::JobSpec s;
  s.id = id;
  s.key = "k";
  s.priority = priority;
  s.digest = digest;
  for (size_t i = 0; i < partitions; ++i) {
    s.witnesses.push_back({"w" + std::to_string(i), "/state/witnesses/stage-x/w" + std::to_string(i) + ".wtns"});
  }
  return s;
}

inline std::unique_ptr<service::SqliteJournal> open_journal(const std::filesystem::path& file) {
  auto j = service::SqliteJournal::open(file);
  EXPECT_TRUE(j.is_ok()) << j.status().to_string();
  return j.is_ok() ? std::move(j).value() : nullptr;
}

// Runs `sql` on its own connection; "" on success, else SQLite's message.
inline std::string raw_sql(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string err;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) {
    err = sqlite3_errmsg(db);
  } else {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) err = msg ? msg : "error";
    sqlite3_free(msg);
  }
  sqlite3_close(db);
  return err;
}

}  // namespace proofpipe::test
