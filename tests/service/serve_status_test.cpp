// `proofpipe status` on a `serve`'s coordinator: the first line says serve
// (not run), and its s/proof is over busy time, so a service idle between
// jobs does not look slower the longer it waits.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "support/cli.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

class ServeStatus : public ServeFixture {};

TEST_F(ServeStatus, SaysServeAndCountsBusyTimeOnly) {
  start();
  auto c = serve_->client();
  auto r = post_job(job_body("j", {0, 1}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  ASSERT_EQ(wait_job(c, "j", seconds(120)).value("state", ""), "done") << serve_->log_text();
  // The coordinator's private run directory, from its start line.
  std::smatch m;
  const std::string log = serve_->log_text();
  ASSERT_TRUE(std::regex_search(log, m, std::regex("run dir (\\S+) ring"))) << log;
  const std::string run_dir = m[1];
  // Idle for a while after the job: the busy time must not grow with it.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto js = run_command(proofpipe() + " status --json --run-dir " + quote(run_dir));
  ASSERT_EQ(js.exit_code, 0) << js.output;
  const auto s = nlohmann::json::parse(js.output);
  EXPECT_EQ(s.value("mode", ""), "serve") << js.output;
  const double busy = s["busy_s"].get<double>(), elapsed = s["elapsed_s"].get<double>();
  EXPECT_GT(busy, 0.0) << js.output;
  EXPECT_LT(busy, elapsed - 1.0) << "the idle 1.5 s counted as busy: " << js.output;
  ASSERT_EQ(s["partitions"]["done"], 2) << js.output;
  EXPECT_NEAR(s["s_per_proof"].get<double>(), busy / 2, 1e-3) << js.output;
  const auto table = run_command(proofpipe() + " status --run-dir " + quote(run_dir));
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_EQ(table.output.rfind("proofpipe serve (pid ", 0), 0u) << table.output;
  EXPECT_NE(table.output.find("s/proof (busy time)"), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find("proofpipe run"), std::string::npos) << table.output;
}

}  // namespace
}  // namespace proofpipe::test
