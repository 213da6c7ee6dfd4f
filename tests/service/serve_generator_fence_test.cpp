// `proofpipe serve --witness-gen` against a generator that loops (docs/
// service.md, "Inputs"; docs/witness-gen.md): cancelling the job reaches the
// synthesis worker running it, so the generator is killed, not left to loop
// while the job reads "cancelled", and the restarted worker proves the next
// job; a process the generator started in a session of its own (setsid)
// dies with the cancel too; past --witness-gen-timeout such a partition
// fails with that cause after its attempts, and the generator never sees
// the service's PGPASSWORD.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/descendant.hpp"
#include "support/json_file.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using std::chrono::seconds;

class ServeGeneratorFence : public ServeFixture {
 protected:
  // A native: generator that loops on an input holding "loop" (its pid in
  // loop.pid first), prints $PGPASSWORD on one holding "env", and runs
  // circom's wasm generator on any other.
  fs::path generator() {
    const fs::path js = multi_io() / "circuit_js";
    const fs::path path = tmp_ / "gen.sh";
    std::ofstream(path) << "#!/bin/sh\n"
                        << "case \"$(cat \"$1\")\" in\n"
                        << "  *loop*) pwd > " << quote(tmp_ / "loop.cwd") << "; setsid sh -c 'echo $$ > "
                        << quote(tmp_ / "escapee.pid") << "; exec sleep 600' & echo $$ > " << quote(tmp_ / "loop.pid")
                        << "; while :; do :; done ;;\n"
                        << "  *env*) echo \"secret: ${PGPASSWORD:-none}\" >&2; exit 1 ;;\n"
                        << "esac\n"
                        << "exec node " << quote(js / "generate_witness.js") << " " << quote(js / "multi_io.wasm")
                        << " \"$1\" \"$2\"\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
  void start_with(const std::string& timeout) {
    start({"--witness-gen", "m=native:" + generator().string(), "--witness-gen-timeout", timeout},
          {"PGPASSWORD=planted-secret-8d1f"});
  }
  // The looping generator's pid, once it has started (0 after `limit`).
  pid_t loop_pid(std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      std::ifstream in(tmp_ / "loop.pid");
      long pid = 0;
      if (in >> pid && pid > 0) return pid_t(pid);
      std::this_thread::sleep_for(50ms);
    }
    return 0;
  }
  static json input(int i) { return read_json(multi_io() / fmt::format("inputs/w{:02}.json", i)); }
};

TEST_F(ServeGeneratorFence, CancelKillsAGeneratorThatLoopsAndTheWorkerComesBack) {
  start_with("10m");
  auto r = post_job({{"key", "m"}, {"id", "spin"}, {"inputs", {{"spin", {{"loop", "1"}}}}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const pid_t pid = loop_pid(seconds(60));
  ASSERT_GT(pid, 0) << serve_->log_text();

  auto c = serve_->client();
  const json at_cancel = json_of(c.Delete("/v1/jobs/spin"));
  EXPECT_EQ(at_cancel.value("state", ""), "cancelled") << at_cancel.dump();
  EXPECT_TRUE(dead_within(pid, seconds(2))) << "the generator still loops after the cancel\n" << serve_->log_text();
  // Its child in a session of its own escaped the process group and the
  // worker's PDEATHSIG: the leaf's clean-up kills it (v1 and v2 alike).
  long escapee = 0;
  std::ifstream(tmp_ / "escapee.pid") >> escapee;
  ASSERT_GT(escapee, 0) << "the generator's setsid child never started";
  if (serve_->log_text().find("(cgroup v") != std::string::npos) {
    EXPECT_TRUE(dead_within(pid_t(escapee), seconds(3))) << "the setsid child outlived the cancel\n"
                                                         << serve_->log_text();
  } else {
    std::printf("no writable memory cgroup: the setsid child's end is not checked (nothing holds it)\n");
    ::kill(pid_t(escapee), SIGKILL);
  }
  // Its private working directory goes with it (the worker was killed
  // before it could remove it: its supervisor does).
  std::string cwd;
  std::getline(std::ifstream(tmp_ / "loop.cwd"), cwd);
  ASSERT_FALSE(cwd.empty());
  for (int i = 0; i < 40 && fs::exists(cwd); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(fs::exists(cwd)) << cwd << " left behind";

  // The one synthesis worker was restarted: the next job is proved.
  r = post_job({{"key", "m"}, {"id", "next"}, {"inputs", {{"w00", input(0)}}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const json job = wait_job(c, "next", seconds(120));
  EXPECT_EQ(job.value("state", ""), "done") << job.dump() << serve_->log_text();
}

// A stop that cannot wait for a generator (the second signal: stop now)
// kills its synthesis worker at the end of the shutdown grace; the worker
// could not remove the generator's private folder, so the coordinator
// does, and the generator and its setsid child are gone with the service.
TEST_F(ServeGeneratorFence, AStopThatKillsTheWorkerLeavesNoGeneratorFolder) {
  start_with("10m");
  auto r = post_job({{"key", "m"}, {"id", "spin"}, {"inputs", {{"spin", {{"loop", "1"}}}}}});
  ASSERT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  const pid_t pid = loop_pid(seconds(60));
  ASSERT_GT(pid, 0) << serve_->log_text();
  std::string cwd;
  std::getline(std::ifstream(tmp_ / "loop.cwd"), cwd);
  ASSERT_FALSE(cwd.empty());
  ASSERT_TRUE(fs::exists(cwd));
  serve_->signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  serve_->signal(SIGTERM);
  EXPECT_EQ(serve_->wait(seconds(60)), 0) << serve_->log_text();
  serve_.reset();
  EXPECT_TRUE(dead_within(pid, seconds(2))) << "the generator outlived the service";
  EXPECT_FALSE(fs::exists(cwd)) << cwd << " left behind by the stop";
}

TEST_F(ServeGeneratorFence, ALoopFailsAtTheTimeoutAndNoSecretReachesTheGenerator) {
  start_with("2s");
  auto r = post_job({{"key", "m"},
                     {"id", "mixed"},
                     {"inputs", {{"a_spin", {{"loop", "1"}}}, {"b_env", {{"env", "1"}}}, {"w00", input(0)}}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  auto c = serve_->client();
  const json job = wait_job(c, "mixed", seconds(120));
  ASSERT_TRUE(job.contains("partitions")) << job.dump() << serve_->log_text();
  for (const auto& p : job["partitions"]) {
    const std::string name = p.value("name", "");
    const std::string error = p.value("last_error", "");
    if (name == "a_spin") {
      EXPECT_EQ(p.value("state", ""), "failed") << p.dump();
      EXPECT_NE(error.find("--witness-gen-timeout (2 s)"), std::string::npos) << p.dump();
    } else if (name == "b_env") {
      EXPECT_NE(error.find("secret: none"), std::string::npos) << p.dump();
    } else {
      EXPECT_EQ(p.value("state", ""), "done") << p.dump() << serve_->log_text();
    }
  }
  EXPECT_EQ(job.dump().find("planted-secret"), std::string::npos) << job.dump();
  const pid_t pid = loop_pid(seconds(1));
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(dead_within(pid, seconds(2)));
}

}  // namespace
}  // namespace proofpipe::test
