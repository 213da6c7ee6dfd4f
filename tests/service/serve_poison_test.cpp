// Poison partitions in `serve` (docs/reliability.md, "No job can take the
// prover down"): one service with a healthy key ("good", bn128 witnesses)
// and four keys whose witness generator fails on every input (a crash, an
// OOM kill under --synth-mem-max, a stall, a non-zero exit), a 12-input job
// of each poisoned key beside a 12-partition job of the healthy one. The
// service stays up and ready throughout (/readyz probed every 50 ms), the
// healthy job is proved and its proofs verify, each poisoned partition ends
// failed with its cause after --max-attempts (at once for a non-zero exit),
// and no worker process is lost to a generator. Then a proving worker that
// dies on one partition's slot every time: that partition alone fails.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "support/cli.hpp"
#include "support/fault_support.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr int kPerJob = 12;

struct PoisonKey {
  const char* key;
  const char* shell;  // what its generator does with every input
  const char* cause;  // what each partition's last_error says
  int attempts;       // --max-attempts 2; a non-zero exit is deterministic
};
const PoisonKey kPoisonKeys[] = {
    {"crash", "kill -SEGV $$", "witness generator was killed by signal 11", 2},
    {"oom", "exec python3 -c 'x = b\"x\" * (512 << 20)'", "OOM-killed by its cgroup (memory cap 64.00 MiB)", 2},
    {"stall", "exec sleep 600", "stalled: no CPU time and no output for 4 s", 2},
    {"exit", "echo 'Error: Assert Failed.' >&2; exit 1", "exited with code 1: Assert Failed.", 1},
};

fs::path bn128() { return data_dir() / "multi_io_bn128"; }

class ServePoison : public ServeFixture {
 protected:
  // ServeFixture::start's service, with the worker counts given here.
  void start_with(std::vector<std::string> flags, std::vector<std::string> env = {}) {
    std::vector<std::string> args = {"--key",       "m=" + (multi_io() / "circuit.zkey").string(),
                                     "--listen",    "127.0.0.1:0",
                                     "--state-dir", (tmp_ / "state").string(),
                                     "--allow-dir", multi_io().string(),
                                     "--backend",   "cpu"};
    args.insert(args.end(), flags.begin(), flags.end());
    serve_ = ServeProcess::start(args, tmp_ / "serve.log", env);
    ASSERT_TRUE(serve_ && serve_->port() > 0) << (serve_ ? serve_->log_text() : "spawn failed");
  }
  fs::path generator(const PoisonKey& k) {
    const fs::path path = tmp_ / fmt::format("{}.sh", k.key);
    std::ofstream(path) << "#!/bin/sh\n" << k.shell << "\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
  // Probes /readyz every 50 ms from its own thread while the test waits.
  void start_probing() {
    prober_ = std::thread([this] {
      auto c = serve_->client();
      while (!stop_probing_) {
        auto r = c.Get("/readyz");
        ++probes_;
        if (!r || r->status != 200) {
          ++unready_;
          last_unready_ = r ? r->body : std::string("no answer");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  void stop_probing() {
    stop_probing_ = true;
    if (prober_.joinable()) prober_.join();
  }
  void TearDown() override {
    stop_probing();
    ServeFixture::TearDown();
  }
  json good_job(const std::string& id) {
    json w = json::array();
    for (int i = 0; i < kPerJob; ++i) w.push_back((bn128() / fmt::format("w{:02}.wtns", i)).string());
    return {{"id", id}, {"key", "good"}, {"witnesses", w}};
  }
  // Fetches every proof of a done job of the bn128 key and verifies it.
  void expect_proofs_verify(const std::string& id) {
    auto c = serve_->client();
    for (int i = 0; i < kPerJob; ++i) {
      const std::string name = fmt::format("w{:02}", i);
      auto got = c.Get("/v1/jobs/" + id + "/proofs/" + name);
      ASSERT_TRUE(got && got->status == 200) << name;
      const json pair = json::parse(got->body);
      const fs::path proof = tmp_ / (name + ".proof.json"), pub = tmp_ / (name + ".public.json");
      std::ofstream(proof) << pair["proof"].dump();
      std::ofstream(pub) << pair["public"].dump();
      EXPECT_EQ(pp_verify(bn128() / "verification_key.json", pub, proof).exit_code, 0) << name;
    }
  }
  std::thread prober_;
  std::atomic<bool> stop_probing_{false};
  std::atomic<int> probes_{0}, unready_{0};
  std::string last_unready_;
};

TEST_F(ServePoison, PoisonedJobsFailAloneWhileTheServiceStaysReadyAndProvesTheHealthyJob) {
  std::vector<std::string> flags = {"--key", "good=" + (bn128() / "circuit.zkey").string(), "--allow-dir",
                                    bn128().string()};
  for (const PoisonKey& k : kPoisonKeys) {
    flags.insert(flags.end(), {"--key", fmt::format("{}={}", k.key, (multi_io() / "circuit.zkey").string()),
                               "--witness-gen", fmt::format("{}=native:{}", k.key, generator(k).string())});
  }
  // 4 s of stall limit: an OOM kill under a v1 cap can take over a second
  // of reclaim without CPU time; 4 seats: the stalls (24 attempts of 4 s)
  // do not hold the healthy job for long.
  flags.insert(flags.end(),
               {"--synth-workers", "4", "--max-attempts", "2", "--hang-timeout", "4", "--synth-mem-max", "64M"});
  flags.insert(flags.end(), {"--gpu-workers", "1"});
  start_with(flags);
  const bool cgroup = has_writable_cgroup(serve_->log_text());
  auto c = serve_->client();
  // Ready before anything is submitted.
  const auto ready_by = std::chrono::steady_clock::now() + seconds(60);
  while (std::chrono::steady_clock::now() < ready_by) {
    auto r = c.Get("/readyz");
    if (r && r->status == 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  start_probing();
  for (const PoisonKey& k : kPoisonKeys) {
    if (std::string(k.key) == "oom" && !cgroup) continue;
    json inputs = json::object();
    for (int i = 0; i < kPerJob; ++i) inputs[fmt::format("x{:02}", i)] = json{{"poison", i}};
    auto r = post_job({{"id", k.key}, {"key", k.key}, {"inputs", inputs}});
    ASSERT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  }
  auto g = post_job(good_job("healthy"));
  ASSERT_TRUE(g && g->status == 201) << (g ? g->body : "no answer");

  const json healthy = wait_job(c, "healthy", seconds(180));
  EXPECT_EQ(healthy.value("state", ""), "done") << healthy.dump() << serve_->log_text();
  for (const PoisonKey& k : kPoisonKeys) {
    if (std::string(k.key) == "oom" && !cgroup) continue;
    const json job = wait_job(c, k.key, seconds(180));
    ASSERT_EQ(job.value("state", ""), "failed") << job.dump() << serve_->log_text();
    EXPECT_EQ(job.value("partitions_failed", 0), kPerJob) << job.dump();
    for (const json& p : job["partitions"]) {
      EXPECT_EQ(p.value("state", ""), "failed") << p.dump();
      EXPECT_EQ(p.value("attempts", 0), k.attempts) << p.dump();
      EXPECT_NE(p.value("last_error", "").find(k.cause), std::string::npos) << p.dump();
    }
  }
  stop_probing();
  EXPECT_FALSE(serve_->exited()) << serve_->log_text();
  EXPECT_GT(probes_.load(), 20);
  EXPECT_EQ(unready_.load(), 0) << "of " << probes_.load() << " probes; last: " << last_unready_;
  expect_proofs_verify("healthy");
  // No synthesis worker died for its generator, and no seat was retired.
  const std::string log = serve_->log_text();
  EXPECT_EQ(log.find(" died: "), std::string::npos) << log;
  EXPECT_EQ(log.find("retired"), std::string::npos) << log;
  if (!cgroup) GTEST_SKIP() << "the OOM key was skipped: no writable memory cgroup on this machine";
}

// A proving worker that dies on one partition's slot every time (a fault
// site armed for ledger index 3: the healthy job's 4th partition) fails that
// partition after --max-attempts; the seat is restarted each time, never
// retired; the job's other partitions and a second job are proved.
TEST_F(ServePoison, AProverThatDiesOnOneSlotFailsThatPartitionAlone) {
  start_with({"--key", "good=" + (bn128() / "circuit.zkey").string(), "--allow-dir", bn128().string(),
              "--synth-workers", "2", "--gpu-workers", "2", "--max-attempts", "2"},
             {"PROOFPIPE_FAULTS=gpu.after_claim~3:kill"});
  auto c = serve_->client();
  auto r = post_job(good_job("first"));
  ASSERT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  const json first = wait_job(c, "first", seconds(180));
  ASSERT_EQ(first.value("state", ""), "failed") << first.dump() << serve_->log_text();
  EXPECT_EQ(first.value("partitions_done", 0), kPerJob - 1) << first.dump();
  const json& p3 = first["partitions"][3];
  EXPECT_EQ(p3.value("state", ""), "failed") << p3.dump();
  EXPECT_NE(p3.value("last_error", "").find("killed by SIGKILL"), std::string::npos) << p3.dump();
  // Proved again from its intact slot, not synthesized again ("attempts"
  // counts syntheses): the log has one death per try, --max-attempts of them.
  const std::string log = serve_->log_text();
  size_t deaths = 0;
  for (size_t at = log.find("holding w03"); at != std::string::npos; at = log.find("holding w03", at + 1)) ++deaths;
  EXPECT_EQ(deaths, 2u) << log;
  // The service goes on: a second job, all of it proved.
  auto again = post_job(good_job("second"));
  ASSERT_TRUE(again && again->status == 201);
  EXPECT_EQ(wait_job(c, "second", seconds(180)).value("state", ""), "done") << serve_->log_text();
  auto ready = c.Get("/readyz");
  EXPECT_TRUE(ready && ready->status == 200) << (ready ? ready->body : "no answer");
  EXPECT_EQ(serve_->log_text().find("retired"), std::string::npos) << serve_->log_text();
}

}  // namespace
}  // namespace proofpipe::test
