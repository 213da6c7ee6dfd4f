// Circom inputs on the shared PostgreSQL queue (docs/scale-out.md):
// the input JSON is stored in the queue (schema version 2) and claimed only
// by a node that has a --witness-gen for its key; a node without one refuses
// such a job at intake (400 naming the key) and never claims its partitions,
// while any node serves its proofs.
#include <chrono>

#include "support/json_file.hpp"
#include "support/pg_nodes.hpp"

namespace proofpipe::test {
namespace {

using std::chrono::seconds;

TEST_F(PgNodes, InputsAreClaimedOnlyByANodeWithTheKeysGenerator) {
  extra_args_[1] = {"--witness-gen", "m=wasm:" + (multi_io() / "circuit_js").string()};
  start_nodes(2);
  EXPECT_EQ(sql("SELECT max(version) FROM schema_migrations"), 2);
  json inputs = json::object();
  for (int i = 0; i < 4; ++i)
    inputs[fmt::format("w{:02}", i)] = read_json(multi_io() / fmt::format("inputs/w{:02}.json", i));
  const json body = {{"key", "m"}, {"id", "in"}, {"inputs", inputs}};
  auto refused = node(0).client().Post("/v1/jobs", body.dump(), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_NE(refused->body.find("key 'm' takes no inputs"), std::string::npos) << refused->body;
  auto r = node(1).client().Post("/v1/jobs", body.dump(), "application/json");
  ASSERT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE kind = 'input'"), 4);
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM jobs WHERE state = 'done'") == 1; }, seconds(60)))
      << dump();
  EXPECT_EQ(sql("SELECT count(*) FROM attempts WHERE node = 'n0'"), 0) << "the node without a generator claimed one";
  expect_one_verified_proof_each(0, 4);
}

}  // namespace
}  // namespace proofpipe::test
