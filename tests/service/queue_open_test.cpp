// serve's --queue, --lease and --node-id (service/src/queue_open.hpp): the
// durations a lease accepts, the default node id, and one line for a queue
// that is neither sqlite nor a postgresql:// URL.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>

#include "pg_secrets.hpp"
#include "queue_open.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using service::parse_lease;

TEST(QueueOpen, LeaseDurations) {
  EXPECT_DOUBLE_EQ(*parse_lease("30s"), 30);
  EXPECT_DOUBLE_EQ(*parse_lease("2"), 2);
  EXPECT_DOUBLE_EQ(*parse_lease("1.5s"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_lease("1500ms"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_lease("2m"), 120);
  // Under a second, over a day, no number, an unknown unit: one line naming the flag.
  for (const char* bad : {"0.5s", "999ms", "25h", "2d", "", "s", "-3s", "30 s", "nan"}) {
    auto r = parse_lease(bad);
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("--lease"), std::string::npos) << r.status().message();
  }
}

TEST(QueueOpen, DefaultNodeIdIsHostAndPidAndAValidName) {
  const std::string id = service::default_node_id();
  EXPECT_TRUE(id.ends_with("-" + std::to_string(::getpid()))) << id;
  EXPECT_EQ(id, service::default_node_id());  // stable for the process
  for (char c : id) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << id;
}

TEST(QueueOpen, AnUnknownQueueIsOneLine) {
  TempDir tmp;
  auto state = service::StateDir::take(tmp / "state");
  ASSERT_TRUE(state.is_ok()) << state.status().to_string();
  for (const char* bad : {"mysql://db/x", "postgresq://x", "SQLite", ""}) {
    auto q = service::open_queue(bad, *state, {"n", 30, 3});
    ASSERT_FALSE(q.is_ok()) << bad;
    EXPECT_EQ(q.status().message().find('\n'), std::string::npos);
    EXPECT_NE(q.status().message().find("--queue"), std::string::npos) << q.status().message();
  }
}

// A state dir whose parent is reached through a link (/var -> /data/var) is
// the operator's layout: the journal opens (SQLite refuses a link in any
// component of its path), the state dir itself stays refused as a link.
TEST(QueueOpen, AStateDirUnderALinkedParentOpensItsJournal) {
  TempDir tmp;
  fs::create_directory(tmp / "real");
  fs::create_directory_symlink(tmp / "real", tmp / "linked");
  auto state = service::StateDir::take(tmp / "linked" / "state");
  ASSERT_TRUE(state.is_ok()) << state.status().to_string();
  auto q = service::open_queue("sqlite", *state, {"n", 30, 3});
  ASSERT_TRUE(q.is_ok()) << q.status().to_string();
  EXPECT_TRUE(fs::exists(tmp / "real" / "state" / "journal.db"));
  fs::create_directory_symlink(tmp / "real", tmp / "state-link");
  auto refused = service::StateDir::take(tmp / "state-link");
  EXPECT_FALSE(refused.is_ok());
}

// A password on the command line is readable by every local user: the URL
// forms that hold one get the warning, the others (a passfile or
// $PGPASSWORD supplies it) none.
TEST(QueueOpen, APasswordInTheUrlIsWarnedAbout) {
  for (const char* with : {"postgresql://u:s3cret@db/q", "postgres://u:@db:5432/q", "postgresql://u:p@[::1]:5432/q",
                           "postgresql://db/q?password=s3cret", "postgresql://u@db/q?sslmode=require&password=x"}) {
    const std::string w = service::url_password_warning(with);
    EXPECT_NE(w.find("--queue"), std::string::npos) << with;
    EXPECT_NE(w.find("PGPASSWORD"), std::string::npos) << with;
    EXPECT_NE(w.find(".pgpass"), std::string::npos) << with;
    EXPECT_EQ(w.find("s3cret"), std::string::npos) << "the warning must not repeat the password";
    EXPECT_EQ(w.find('\n'), std::string::npos);
  }
  for (const char* without : {"postgresql://u@db/q", "postgresql://db/q", "postgresql://u@db:5432/q?sslmode=require",
                              "postgresql://u@db/my:db", "sqlite", "postgresql://u@db/q?application_name=password=x"}) {
    EXPECT_EQ(service::url_password_warning(without), "") << without;
  }
}

// No error or log line repeats a password of --queue, in any of
// the forms libpq takes.
TEST(QueueOpen, PasswordsAreHiddenInEveryForm) {
  using service::hide_passwords;
  EXPECT_EQ(hide_passwords("postgresql://u:s3cret@db/q", "postgresql://u:s3cret@db/q"), "postgresql://u:***@db/q");
  const std::string query = "postgresql://u@db/q?sslmode=require&password=s3cret&connect_timeout=5";
  EXPECT_EQ(hide_passwords(query, query), "postgresql://u@db/q?sslmode=require&password=***&connect_timeout=5");
  const std::string keywords = "host=db password = 'two words' user=u";
  EXPECT_EQ(hide_passwords("x 'two words' y two words", keywords), "x *** y ***");
  // Percent-encoded in the URL, decoded in a message (or the other way).
  const std::string encoded = "postgresql://u:p%40ss@db/q";
  EXPECT_EQ(hide_passwords("password p@ss for u, token \"p%40ss\"", encoded), "password *** for u, token \"***\"");
  // A password holding '@' unencoded: the last '@' ends the user part.
  EXPECT_EQ(hide_passwords("postgresql://u:a@b@db/q", "postgresql://u:a@b@db/q"), "postgresql://u:***@db/q");
  // Without a password nothing changes (application_name=password=x names no password).
  const std::string none = "postgresql://u@db/q?application_name=password=x";
  EXPECT_EQ(hide_passwords(none + " x", none), none + " x");
}

TEST(QueueOpen, NoQueueErrorRepeatsThePassword) {
  TempDir tmp;
  auto state = service::StateDir::take(tmp / "state");
  ASSERT_TRUE(state.is_ok()) << state.status().to_string();
  // An unknown scheme echoes --queue: without its password.
  auto q = service::open_queue("mysql://u:s3cret@db/q?password=t0psecret", *state, {"n", 30, 3});
  ASSERT_FALSE(q.is_ok());
  EXPECT_NE(q.status().message().find("--queue"), std::string::npos) << q.status().message();
  EXPECT_EQ(q.status().message().find("s3cret"), std::string::npos) << q.status().message();
  EXPECT_EQ(q.status().message().find("t0psecret"), std::string::npos) << q.status().message();
  // libpq repeats a token of a URL it cannot parse ('invalid percent-encoded
  // token: "p%zzss"'); nothing listens on port 1 either.
  for (const char* url : {"postgresql://u:p%zzss@127.0.0.1:1/db", "postgresql://u@127.0.0.1:1/db?password=t0psecret",
                          "postgresql://u@127.0.0.1:1/db?password=t0p%zzsecret"}) {
    q = service::open_queue(url, *state, {"n", 30, 3});
    ASSERT_FALSE(q.is_ok()) << url;
    const std::string m = q.status().message();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.find("zzss"), std::string::npos) << m;
    EXPECT_EQ(m.find("t0p"), std::string::npos) << m;
    // It got as far as the URL (the module loaded), shown with the password hidden.
    EXPECT_NE(m.find("postgresql://u"), std::string::npos) << m;
    EXPECT_NE(m.find("***"), std::string::npos) << m;
  }
}

// A journal.db that is missing or empty beside witness copies or
// proofs is a lost journal: refused in one line, nothing swept or created.
TEST(QueueOpen, ALostJournalBesideWitnessCopiesIsRefused) {
  TempDir tmp;
  auto state = service::StateDir::take(tmp / "state");
  ASSERT_TRUE(state.is_ok()) << state.status().to_string();
  const fs::path stage = state->path() / "witnesses" / "stage-0123456789abcdef01234567";
  fs::create_directory(stage);
  { std::ofstream(stage / "w0.wtns") << "an acknowledged job's witness"; }
  const fs::path journal = state->path() / "journal.db";
  for (bool empty : {false, true}) {
    if (empty) std::ofstream{journal};
    auto q = service::open_queue("sqlite", *state, {"n", 30, 3});
    ASSERT_FALSE(q.is_ok()) << "empty: " << empty;
    const std::string m = q.status().message();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find(empty ? "journal.db is empty" : "journal.db is missing"), std::string::npos) << m;
    EXPECT_NE(m.find("witnesses/"), std::string::npos) << m;
    EXPECT_TRUE(fs::exists(stage / "w0.wtns")) << "a witness copy was deleted";
    EXPECT_EQ(fs::exists(journal), empty) << "the refusal created or removed journal.db";
    if (empty) {
      EXPECT_EQ(fs::file_size(journal), 0u);
    }
  }
  // Proofs alone count too.
  fs::remove_all(stage);
  fs::create_directory(state->path() / "proofs" / "job-1");
  auto q = service::open_queue("sqlite", *state, {"n", 30, 3});
  ASSERT_FALSE(q.is_ok());
  EXPECT_NE(q.status().message().find("proofs/"), std::string::npos) << q.status().message();
  // Both folders empty: a fresh service starts.
  fs::remove(state->path() / "proofs" / "job-1");
  q = service::open_queue("sqlite", *state, {"n", 30, 3});
  EXPECT_TRUE(q.is_ok()) << q.status().to_string();
}

// A journal file that held no proofpipe schema yet (no life before this
// one) knows no job: the copies beside it are left, never swept as nobody's.
TEST(QueueOpen, NothingIsSweptOnAJournalWithNoEarlierLife) {
  TempDir tmp;
  auto state = service::StateDir::take(tmp / "state");
  ASSERT_TRUE(state.is_ok()) << state.status().to_string();
  const fs::path journal = state->path() / "journal.db";
  {
    sqlite3* db = nullptr;  // an SQLite file with pages but no table
    ASSERT_EQ(sqlite3_open(journal.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x); DROP TABLE t", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_GT(fs::file_size(journal), 0u);
  const fs::path stage = state->path() / "witnesses" / "stage-0123456789abcdef01234567";
  fs::create_directory(stage);
  { std::ofstream(stage / "w0.wtns") << "a witness copy"; }
  {
    auto q = service::open_queue("sqlite", *state, {"n", 30, 3});
    ASSERT_TRUE(q.is_ok()) << q.status().to_string();
  }
  EXPECT_TRUE(fs::exists(stage / "w0.wtns")) << "swept on a journal that knew no job";
  // The next start has a life behind it and sweeps as before (no job holds the copy).
  auto q = service::open_queue("sqlite", *state, {"n", 30, 3});
  ASSERT_TRUE(q.is_ok()) << q.status().to_string();
  EXPECT_FALSE(fs::exists(stage / "w0.wtns"));
}

}  // namespace
}  // namespace proofpipe::test
