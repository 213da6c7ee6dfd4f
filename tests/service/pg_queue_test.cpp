// The shared queue (service/src/queue_pg.hpp) against a real PostgreSQL
// server, in process: one migration however many nodes open at once, claims
// by priority that never hand one partition to two nodes, leases on the
// database's clock, fencing (a stale commit writes nothing), renewals that
// report cancelled and lost claims, and --max-attempts over leases that ran
// out. The claim protocol's common semantics run against the SQLite journal
// too (QueueConformance), so both queues answer the one Service alike.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <pqxx/pqxx>

#include "journal_sqlite.hpp"
#include "queue_pg.hpp"
#include "support/pg_cluster.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using service::Claim;
using service::ClaimRequest;
using service::JobSpec;
using service::PgQueue;
using service::WorkItem;

// One server for every test of this file in the process, started by the
// first that needs it (initdb costs a second or two) and stopped at exit.
std::unique_ptr<PgCluster> g_owner;
PgCluster* g_cluster = nullptr;
std::string g_skip;

bool have_cluster() {
  static const bool started = [] {
    g_owner = PgCluster::start(g_skip);
    g_cluster = g_owner.get();
    return g_cluster != nullptr;
  }();
  return started;
}

int64_t scalar(const std::string& sql) {
  pqxx::connection c(g_cluster->url());
  pqxx::work tx(c);
  return tx.exec(sql)[0][0].as<int64_t>();
}

// Each test gets an empty database schema: everything dropped.
void wipe() {
  pqxx::connection c(g_cluster->url());
  pqxx::work tx(c);
  tx.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  tx.commit();
}

class PgQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_cluster()) GTEST_SKIP() << g_skip;
    wipe();
  }
  std::unique_ptr<PgQueue> node(const std::string& id, double lease_s = 30, uint32_t max_attempts = 3) {
    service::PgQueueConfig cfg;
    cfg.url = g_cluster->url();
    cfg.node_id = id;
    cfg.lease_s = lease_s;
    cfg.max_attempts = max_attempts;
    cfg.witness_dir = tmp_ / ("w-" + id);
    fs::create_directories(cfg.witness_dir);
    auto q = PgQueue::open(cfg);
    EXPECT_TRUE(q.is_ok()) << q.status().to_string();
    return q.is_ok() ? std::move(q).value() : nullptr;
  }
  // A job of `n` witnesses (files of a few bytes: the queue stores bytes, it does not parse them).
  JobSpec spec(const std::string& id, size_t n, int64_t priority = 0) {
    JobSpec s;
    s.id = id;
    s.key = "k";
    s.priority = priority;
    s.digest = "d-" + id;
    for (size_t i = 0; i < n; ++i) {
      const fs::path f = tmp_ / (id + "-" + std::to_string(i) + ".wtns");
      std::ofstream(f) << "witness " << id << i;
      s.witnesses.push_back({"w" + std::to_string(i), f});
    }
    return s;
  }
  static ClaimRequest want(size_t n) { return {{"k"}, n}; }
  static Claim claim_of(const WorkItem& w) { return {w.job_seq, w.index, w.fence}; }

  TempDir tmp_;
};

TEST_F(PgQueueTest, NodesOpeningAtOnceMigrateExactlyOnce) {
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<PgQueue>> nodes(4);
  for (size_t i = 0; i < nodes.size(); ++i) threads.emplace_back([&, i] { nodes[i] = node("n" + std::to_string(i)); });
  for (auto& t : threads) t.join();
  for (const auto& n : nodes) ASSERT_NE(n, nullptr);
  EXPECT_EQ(scalar("SELECT count(*) FROM schema_migrations"), PgQueue::kSchemaVersion);
  EXPECT_EQ(scalar("SELECT count(*) FROM nodes"), 4);
  // A database migrated by a newer proofpipe is refused, one line.
  {
    pqxx::connection c(g_cluster->url());
    pqxx::work tx(c);
    tx.exec("INSERT INTO schema_migrations (version, node) VALUES (99, 'future')");
    tx.commit();
  }
  service::PgQueueConfig cfg{g_cluster->url(), "late", 30, 3, tmp_.path()};
  auto refused = PgQueue::open(cfg);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("schema version 99"), std::string::npos) << refused.status().message();
}

TEST_F(PgQueueTest, ClaimsFollowPriorityAndNeverGiveOnePartitionToTwoNodes) {
  auto a = node("a"), b = node("b");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->submit(spec("low", 3, 0), 1).is_ok());
  ASSERT_TRUE(b->submit(spec("high", 2, 5), 2).is_ok());
  EXPECT_EQ(*a->depth(), 5u);
  auto first = a->claim(want(3), 3);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  ASSERT_EQ(first->size(), 3u);
  EXPECT_EQ((*first)[0].job_id, "high");
  EXPECT_EQ((*first)[1].job_id, "high");
  EXPECT_EQ((*first)[2].job_id, "low");
  // The claimed witness is on this node's disk, byte for byte.
  std::ifstream in((*first)[0].witness);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "witness high0");
  auto rest = b->claim(want(10), 4);
  ASSERT_TRUE(rest.is_ok());
  ASSERT_EQ(rest->size(), 2u);
  std::set<std::pair<uint64_t, uint32_t>> seen;
  std::set<uint64_t> fences;
  for (const auto* list : {&*first, &*rest}) {
    for (const WorkItem& w : *list) {
      EXPECT_TRUE(seen.insert({w.job_seq, w.index}).second) << w.job_id << "/" << w.name << " claimed twice";
      fences.insert(w.fence);
    }
  }
  EXPECT_EQ(fences.size(), 5u);
  EXPECT_EQ(*a->depth(), 0u);
  EXPECT_EQ(a->get("low")->value().state, service::JobState::kRunning);
  // Another key's node finds nothing.
  EXPECT_TRUE(b->claim({{"other"}, 5}, 5)->empty());
}

TEST_F(PgQueueTest, AStaleCommitIsRefusedWritesNothingAndTheNewHolderCommits) {
  auto a = node("a", 0.3), b = node("b", 30);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->submit(spec("j", 1), 1).is_ok());
  auto mine = a->claim(want(1), 2);
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_TRUE(b->claim(want(1), 2)->empty()) << "a live lease was taken";
  std::this_thread::sleep_for(std::chrono::milliseconds(450));  // a's lease (0.3 s, the database's clock) runs out
  auto theirs = b->claim(want(1), 3);
  ASSERT_EQ(theirs->size(), 1u);
  EXPECT_GT((*theirs)[0].fence, (*mine)[0].fence);
  const service::ProofFiles late{"{\"late\":1}", "[]"}, good{"{\"good\":1}", "[]"};
  const Status refused = a->commit(claim_of((*mine)[0]), {}, late, 4);
  ASSERT_EQ(refused.code(), ErrorCode::kStale) << refused.to_string();
  EXPECT_NE(refused.message().find(std::to_string((*mine)[0].fence)), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find(std::to_string((*theirs)[0].fence)), std::string::npos) << refused.message();
  EXPECT_EQ(scalar("SELECT count(*) FROM proofs"), 0);
  ASSERT_TRUE(b->commit(claim_of((*theirs)[0]), {}, good, 5).is_ok());
  // Committing twice under the same token is the same commit (an in-doubt retry).
  EXPECT_TRUE(b->commit(claim_of((*theirs)[0]), {}, good, 5).is_ok());
  EXPECT_EQ(scalar("SELECT count(*) FROM proofs"), 1);
  EXPECT_EQ(b->read_proof("j", "w0")->value().proof_json, good.proof_json);
  EXPECT_EQ(a->get("j")->value().state, service::JobState::kDone);
  EXPECT_EQ(scalar("SELECT count(*) FROM attempts WHERE result = 'lost'"), 1);
}

TEST_F(PgQueueTest, RenewReportsCancelledAndLostClaims) {
  auto a = node("a", 0.3), b = node("b", 30);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->submit(spec("c", 2), 1).is_ok());
  ASSERT_TRUE(a->submit(spec("l", 1), 1).is_ok());
  auto held = a->claim(want(3), 2);
  ASSERT_EQ(held->size(), 3u);
  std::vector<Claim> claims;
  for (const WorkItem& w : *held) claims.push_back(claim_of(w));
  ASSERT_TRUE(b->cancel("c", 3).is_ok());  // any node cancels
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  ASSERT_EQ(b->claim(want(5), 4)->size(), 1u);  // l's partition, its lease gone
  auto r = a->renew(claims, 5);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->cancelled.size(), 2u);
  ASSERT_EQ(r->lost.size(), 1u);
  EXPECT_EQ(r->lost[0].job_seq, claims[2].job_seq);
  // A cancelled claim given back stays cancelled.
  EXPECT_TRUE(a->release(claims[0], 6).is_ok());
  EXPECT_EQ(a->get("c")->value().state, service::JobState::kCancelled);
  EXPECT_EQ(scalar("SELECT count(*) FROM partitions WHERE status = 'cancelled'"), 2);
}

TEST_F(PgQueueTest, LeasesThatKeepRunningOutSpendTheAttempts) {
  auto a = node("a", 0.2, /*max_attempts=*/2);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->submit(spec("x", 1), 1).is_ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(a->claim(want(1), 2)->size(), 1u) << "claim " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_TRUE(a->claim(want(1), 3)->empty());
  const auto job = a->get("x")->value();
  EXPECT_EQ(job.state, service::JobState::kFailed);
  EXPECT_NE(job.partitions[0].last_error.find("lease ran out"), std::string::npos) << job.partitions[0].last_error;
}

TEST_F(PgQueueTest, TwoNodesCommittingAJobsLastPartitionsAtOnceEndTheJob) {
  // Each node commits one of a job's two partitions at the same moment: the
  // job must end (each commit alone sees the other partition still running).
  auto a = node("a"), b = node("b");
  ASSERT_TRUE(a && b);
  const service::ProofFiles proof{"{}", "[]"};
  for (int round = 0; round < 20; ++round) {
    const std::string id = "j" + std::to_string(round);
    ASSERT_TRUE(a->submit(spec(id, 2), 1).is_ok());
    auto mine = a->claim(want(1), 2), theirs = b->claim(want(1), 2);
    ASSERT_EQ(mine->size(), 1u);
    ASSERT_EQ(theirs->size(), 1u);
    Status sa, sb;
    std::thread ta([&] { sa = a->commit(claim_of((*mine)[0]), {}, proof, 3); });
    std::thread tb([&] { sb = b->commit(claim_of((*theirs)[0]), {}, proof, 3); });
    ta.join();
    tb.join();
    ASSERT_TRUE(sa.is_ok() && sb.is_ok()) << sa.to_string() << " / " << sb.to_string();
    ASSERT_EQ(a->get(id)->value().state, service::JobState::kDone) << "round " << round;
  }
}

// --- one protocol, both queues ---------------------------------------------

struct QueueCase {
  const char* name;
  std::function<std::unique_ptr<service::JobQueue>(const fs::path& dir)> open;
};

class QueueConformance : public ::testing::TestWithParam<QueueCase> {
 protected:
  void SetUp() override {
    if (std::string(GetParam().name) == "postgresql") {
      if (!have_cluster()) GTEST_SKIP() << g_skip;
      wipe();
    }
    q_ = GetParam().open(tmp_.path());
    ASSERT_NE(q_, nullptr);
  }
  JobSpec spec(const std::string& id, size_t n, int64_t priority = 0) {
    JobSpec s{id, "k", priority, "d-" + id, {}};
    for (size_t i = 0; i < n; ++i) {
      const fs::path f = tmp_ / (id + std::to_string(i) + ".wtns");
      std::ofstream(f) << "w";
      s.witnesses.push_back({"w" + std::to_string(i), f});
    }
    return s;
  }
  TempDir tmp_;
  std::unique_ptr<service::JobQueue> q_;
};

TEST_P(QueueConformance, ClaimCommitFailAndReleaseEndJobsAlike) {
  ASSERT_TRUE(q_->submit(spec("a", 3), 1).is_ok());
  ASSERT_TRUE(q_->submit(spec("b", 1, 9), 2).is_ok());
  EXPECT_EQ(*q_->depth(), 4u);
  auto got = q_->claim({{"k"}, 2}, 3);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].job_id, "b");  // priority first
  EXPECT_EQ((*got)[1].job_id, "a");
  EXPECT_EQ(*q_->depth(), 2u);
  // Nothing held is handed out again.
  auto more = q_->claim({{"k"}, 10}, 4);
  ASSERT_EQ(more->size(), 2u);
  for (const WorkItem& w : *more) EXPECT_NE(w.index, (*got)[1].index);
  auto claim = [](const WorkItem& w) { return Claim{w.job_seq, w.index, w.fence}; };
  const service::ProofFiles proof{"{}", "[]"};
  for (const WorkItem& w : {(*got)[0], (*got)[1]}) {
    ASSERT_TRUE(q_->start_attempt(claim(w), 5).is_ok());
    ASSERT_TRUE(q_->commit(claim(w), {}, proof, 6).is_ok());
  }
  EXPECT_EQ(q_->get("b")->value().state, service::JobState::kDone);
  // Released: queued again, not counted as an attempt, claimed again.
  ASSERT_TRUE(q_->release(claim((*more)[0]), 7).is_ok());
  auto again = q_->claim({{"k"}, 10}, 8);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].index, (*more)[0].index);
  ASSERT_TRUE(q_->start_attempt(claim((*again)[0]), 9).is_ok());
  ASSERT_TRUE(q_->fail_partition(claim((*again)[0]), "bad input", 10).is_ok());
  ASSERT_TRUE(q_->start_attempt(claim((*more)[1]), 11).is_ok());
  ASSERT_TRUE(q_->commit(claim((*more)[1]), {}, proof, 12).is_ok());
  const auto a = q_->get("a")->value();
  EXPECT_EQ(a.state, service::JobState::kFailed);
  EXPECT_EQ(a.done, 2u);
  EXPECT_EQ(a.failed, 1u);
  EXPECT_EQ(*q_->depth(), 0u);
}

TEST_P(QueueConformance, ExpireRemovesOnlyJobsThatEndedBeforeTheCut) {
  ASSERT_TRUE(q_->submit(spec("early", 1), 1).is_ok());
  ASSERT_TRUE(q_->submit(spec("late", 1), 1).is_ok());
  ASSERT_TRUE(q_->submit(spec("open", 1), 1).is_ok());
  auto got = q_->claim({{"k"}, 10}, 2);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  ASSERT_EQ(got->size(), 3u);
  const service::ProofFiles proof{R"({"pi_a":["1"]})", R"(["7"])"};
  for (const WorkItem& w : *got) {
    if (w.job_id == "open") continue;
    const double at = w.job_id == "early" ? 10 : 100;
    ASSERT_TRUE(q_->start_attempt({w.job_seq, w.index, w.fence}, at).is_ok());
    ASSERT_TRUE(q_->commit({w.job_seq, w.index, w.fence}, {}, proof, at).is_ok());
  }
  const auto before = q_->stored_bytes();
  ASSERT_TRUE(before.is_ok()) << before.status().to_string();
  EXPECT_GT(before->proofs, 0u);
  EXPECT_GT(before->journal, 0u);
  auto n = q_->expire(50, 100);
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_EQ(*n, 1u);
  EXPECT_FALSE(q_->get("early")->has_value());
  EXPECT_FALSE(q_->read_proof("early", "w0")->has_value());
  ASSERT_TRUE(q_->read_proof("late", "w0")->has_value());
  EXPECT_TRUE(q_->get("open")->has_value());
  EXPECT_EQ(*q_->expire(1e12, 100), 1u);  // "late"; "open" never, whatever the cut
  EXPECT_TRUE(q_->get("open")->has_value());
  EXPECT_EQ(*q_->expire(1e12, 100), 0u);
  // A removed id is free again.
  auto again = q_->submit(spec("early", 1), 200);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->outcome, service::SubmitOutcome::kCreated);
}

INSTANTIATE_TEST_SUITE_P(BothQueues, QueueConformance,
                         ::testing::Values(QueueCase{"sqlite",
                                                     [](const fs::path& dir) -> std::unique_ptr<service::JobQueue> {
                                                       auto j = service::SqliteJournal::open(dir / "journal.db");
                                                       return j.is_ok() ? std::move(j).value() : nullptr;
                                                     }},
                                           QueueCase{"postgresql",
                                                     [](const fs::path& dir) -> std::unique_ptr<service::JobQueue> {
                                                       service::PgQueueConfig cfg{g_cluster->url(), "n", 30, 3, dir};
                                                       auto q = PgQueue::open(cfg);
                                                       return q.is_ok() ? std::move(q).value() : nullptr;
                                                     }}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace proofpipe::test
