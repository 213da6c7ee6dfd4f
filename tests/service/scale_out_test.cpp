// Many `proofpipe serve` nodes on one PostgreSQL queue, end to end
// (docs/scale-out.md): three nodes started at once on an empty database (one
// migration) share 30 partitions of several jobs, every partition gets one
// proof that verifies, and every node proved some; job ids and cancel hold
// across nodes; and PostgreSQL restarted mid-run: the nodes say so on
// /readyz, reconnect with back-off and finish.
// The kill and pause cases are tests/service/serve_pg_fault_test.cpp.
#include <chrono>
#include <regex>

#include "queue_pg.hpp"
#include "support/pg_nodes.hpp"

namespace proofpipe::test {
namespace {

using std::chrono::seconds;

TEST_F(PgNodes, ThreeNodesStartedAtOnceMigrateOnceAndShareThirtyPartitions) {
  // 40 ms per proof: long enough that no node drains the queue alone.
  start_nodes(3, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=40"});
  // One row per version, every one written by the same node.
  EXPECT_EQ(sql("SELECT count(*) FROM schema_migrations"), service::PgQueue::kSchemaVersion);
  EXPECT_EQ(sql("SELECT count(DISTINCT node) FROM schema_migrations"), 1);
  int migrated = 0;
  for (size_t i = 0; i < 3; ++i) {
    const std::string log = node(i).log_text();
    migrated += std::regex_search(log, std::regex("schema migrated to version 1"));
  }
  EXPECT_EQ(migrated, 1);
  // Any node takes jobs: three jobs of ten, one per node, priorities mixed.
  for (int j = 0; j < 3; ++j) {
    const std::vector<int> w = witnesses(j * 10, 10);
    // Names repeat across jobs (w00 twice): unique within a job is enough.
    ASSERT_EQ(submit(size_t(j), "job" + std::to_string(j), w, j), 201) << node(size_t(j)).log_text();
  }
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM jobs WHERE state = 'done'") == 3; }, seconds(60)))
      << dump();
  expect_one_verified_proof_each(2, 30);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(sql(fmt::format("SELECT count(*) FROM proofs WHERE node = 'n{}'", i)), 1)
        << "node n" << i << " proved none";
  }
  // Any node answers for any job, and /metrics names the node and the cluster's depth.
  auto c = node(1).client();
  EXPECT_EQ(json_of(c.Get("/v1/jobs/job0")).value("state", ""), "done");
  // The depth is counted once a second and published twice a second.
  std::string metrics;
  EXPECT_TRUE(eventually(
      [&] {
        metrics = c.Get("/metrics")->body;
        return metrics.find("proofpipe_cluster_queue_depth 0\n") != std::string::npos;
      },
      seconds(5)))
      << metrics;
  EXPECT_NE(metrics.find("proofpipe_node_info{node=\"n1\"} 1"), std::string::npos) << metrics;
}

TEST_F(PgNodes, IdsAndCancelHoldAcrossNodes) {
  // 1 s per proof: each node holds claims it has not started proving when the cancel comes.
  start_nodes(2, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=1000"});
  const std::vector<int> w = witnesses(0, 12);
  ASSERT_EQ(submit(0, "long", w), 201);
  EXPECT_EQ(submit(1, "long", w), 200);       // the same id and content on another node: the same job
  EXPECT_EQ(submit(1, "long", {0, 1}), 409);  // another content: a conflict
  ASSERT_TRUE(eventually(
      [&] {
        return sql("SELECT count(*) FROM partitions WHERE claimed_by = 'n0' AND status = 'running'") >= 2 &&
               sql("SELECT count(*) FROM partitions WHERE claimed_by = 'n1' AND status = 'running'") >= 2;
      },
      seconds(20)));
  // Cancelled through node 1: node 0 learns it at its next renew (lease / 3) and drops
  // what it has not started proving; what is being proved finishes and counts.
  auto del = node(1).client().Delete("/v1/jobs/long");
  ASSERT_TRUE(del && del->status == 200) << (del ? del->body : "no answer");
  EXPECT_EQ(json_of(del).value("state", ""), "cancelled");
  ASSERT_TRUE(
      eventually([&] { return sql("SELECT count(*) FROM attempts WHERE result = 'running'") == 0; }, seconds(10)))
      << node(0).log_text();
  for (const char* n : {"n0", "n1"}) {
    EXPECT_GE(sql(fmt::format("SELECT count(*) FROM attempts WHERE node = '{}' AND result = 'released'", n)), 1)
        << n << " proved or kept every claim of the cancelled job";
  }
  const int64_t proofs = sql("SELECT count(*) FROM proofs");
  EXPECT_LT(proofs, 12);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(sql("SELECT count(*) FROM proofs"), proofs) << "a partition was proved after every claim ended";
  EXPECT_EQ(json_of(node(0).client().Get("/v1/jobs/long")).value("state", ""), "cancelled");
}

TEST_F(PgNodes, PostgresRestartedMidRunNodesReconnectAndFinish) {
  start_nodes(2, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=150"});
  const std::vector<int> w = witnesses(0, 12);
  ASSERT_EQ(submit(0, "r", w), 201);
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM proofs") >= 2; }, seconds(30)));
  ASSERT_TRUE(cluster_->stop());
  // While it is down: not ready, and the answer says why.
  auto c = node(0).client();
  bool said = false;
  ASSERT_TRUE(eventually(
      [&] {
        auto r = c.Get("/readyz");
        said = r && r->status == 503 && r->body.find("unreachable") != std::string::npos;
        return said;
      },
      seconds(10)))
      << node(0).log_text();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(cluster_->up()) << cluster_->log();
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM jobs WHERE state = 'done'") == 1; }, seconds(60)))
      << dump();
  ASSERT_TRUE(eventually([&] { return c.Get("/readyz")->status == 200; }, seconds(10)));
  expect_one_verified_proof_each(1, 12);
  EXPECT_NE(node(0).log_text().find("connected again"), std::string::npos) << node(0).log_text();
}

}  // namespace
}  // namespace proofpipe::test
