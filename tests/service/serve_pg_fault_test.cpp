// Nodes of a shared PostgreSQL queue that die or stall (docs/scale-out.md):
// a node SIGKILLed mid-run loses nothing (its claims run out and the others
// finish them, each partition proved once), and a node SIGSTOPped past its
// lease while proving wakes to a commit the fencing check refuses (logged
// with both tokens), so the partition keeps the one proof of the node that
// took it over. Skipped without the PostgreSQL server binaries.
#include <chrono>
#include <regex>

#include "support/pg_nodes.hpp"

namespace proofpipe::test {
namespace {

using std::chrono::seconds;

TEST_F(PgNodes, ANodeKilledMidRunHasItsPartitionsFinishedByTheOthers) {
  start_nodes(3, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=200"});
  const std::vector<int> w = witnesses(0, 12);
  ASSERT_EQ(submit(1, "a", w), 201);
  ASSERT_EQ(submit(2, "b", w), 201);
  // Node 0 holds claims and has proved something: kill it with its workers.
  ASSERT_TRUE(eventually(
      [&] {
        return sql("SELECT count(*) FROM partitions WHERE claimed_by = 'n0' AND status = 'running'") > 0 &&
               sql("SELECT count(*) FROM proofs WHERE node = 'n0'") > 0;
      },
      seconds(30)));
  node(0).kill_group(SIGKILL);
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM jobs WHERE state = 'done'") == 2; }, seconds(60)))
      << dump();
  expect_one_verified_proof_each(1, 24);
  // Its claims were taken over once their lease ran out.
  EXPECT_GE(sql("SELECT count(*) FROM attempts WHERE node = 'n0' AND result = 'lost'"), 1);
}

TEST_F(PgNodes, ANodePausedPastItsLeaseHasItsLateCommitRefused) {
  // Node 0 alone first, each proof held 2 s in its proving worker.
  start_nodes(1, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=2000"});
  ASSERT_EQ(submit(0, "p", {0}), 201);
  ASSERT_TRUE(
      eventually([&] { return sql("SELECT count(*) FROM partitions WHERE claimed_by = 'n0'") == 1; }, seconds(20)));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // synthesized; now inside the 2 s proof
  node(0).kill_group(SIGSTOP);
  const int64_t first_fence = sql("SELECT fence FROM partitions");
  // A second node, past node 0's 2 s lease, takes the partition over and proves it.
  start_nodes(1);
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM proofs WHERE node = 'n1'") == 1; }, seconds(30)))
      << node(1).log_text();
  const int64_t second_fence = sql("SELECT fence FROM partitions");
  EXPECT_GT(second_fence, first_fence);
  node(0).kill_group(SIGCONT);
  // Node 0 finishes its proof; the commit is refused and logged with both tokens.
  const std::regex refused(fmt::format("refused: fencing token {} is stale.*token {}", first_fence, second_fence));
  ASSERT_TRUE(eventually([&] { return std::regex_search(node(0).log_text(), refused); }, seconds(20)))
      << node(0).log_text();
  expect_one_verified_proof_each(1, 1);
  EXPECT_EQ(sql("SELECT count(*) FROM proofs WHERE node = 'n0'"), 0);
  // Its metrics (published twice a second) count the refused proof as stale, not done.
  std::string metrics;
  EXPECT_TRUE(eventually(
      [&] {
        metrics = node(0).client().Get("/metrics")->body;
        return metrics.find("proofpipe_proofs_total{key=\"m\",result=\"stale\"} 1") != std::string::npos;
      },
      seconds(5)))
      << metrics;
}

}  // namespace
}  // namespace proofpipe::test
