// serve's --queue, --lease and --node-id (service/src/queue_open.hpp): the
// durations a lease accepts, the default node id, and one line for a queue
// that is neither sqlite nor a postgresql:// URL.
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace proofpipe::test
