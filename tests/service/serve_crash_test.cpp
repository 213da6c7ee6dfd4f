// The service under kill -9: 30 partitions over 6 jobs, the
// service and all its workers SIGKILLed together at random moments (seeded,
// replayable with PP_SEED) at least 5 times and started again on the same
// state directory each time. In the end every acknowledged job is done, each
// partition has exactly one proof that verifies, the journal's audit finds
// no partition proved after its commit (SqliteJournal::check_integrity), and
// no ring or cgroup of any of the killed services is left.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "journal_sqlite.hpp"
#include "support/fault_support.hpp"
#include "support/serve_process.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kJobs = 6, kPerJob = 5, kKills = 6;

json job_body(int j) {
  json w = json::array();
  for (int k = 0; k < kPerJob; ++k)
    w.push_back((multi_io() / fmt::format("w{:02}.wtns", (j * kPerJob + k) % 12)).string());
  return {{"id", fmt::format("job{}", j)}, {"key", "m"}, {"witnesses", w}, {"priority", j % 3}};
}

TEST(ServeCrash, KilledAtRandomMomentsItLosesNoAcknowledgedPartitionAndProvesNoneTwice) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  TempDir tmp;
  const auto rings_before = shm_rings();
  const std::vector<std::string> args = {"--key",           "m=" + (multi_io() / "circuit.zkey").string(),
                                         "--listen",        "127.0.0.1:0",
                                         "--state-dir",     (tmp / "state").string(),
                                         "--allow-dir",     multi_io().string(),
                                         "--synth-workers", "2",
                                         "--gpu-workers",   "1",
                                         "--backend",       "cpu"};
  // 150 ms per proof: 30 partitions take ~5 s, so kills land mid-work.
  const std::vector<std::string> env = {"PROOFPIPE_FAULTS=gpu.after_claim:delay=150"};
  std::set<int> acknowledged;
  std::vector<pid_t> pids;
  int next_job = 0;
  for (int life = 0; life <= kKills; ++life) {
    auto serve = ServeProcess::start(args, tmp / fmt::format("serve{}.log", life), env);
    ASSERT_TRUE(serve && serve->port() > 0) << (serve ? serve->log_text() : "spawn failed");
    pids.push_back(serve->pid());
    auto c = serve->client();
    // Acknowledged jobs are resubmitted too: the same id and content is a
    // 200, never a second job. Then a new one or two.
    std::vector<int> to_send(acknowledged.begin(), acknowledged.end());
    for (int n = 0; n < 2 && next_job < kJobs; ++n) to_send.push_back(next_job++);
    const auto t0 = std::chrono::steady_clock::now();
    const auto kill_after = milliseconds(std::uniform_int_distribution<int>(100, 2500)(rng));
    for (int j : to_send) {
      auto r = c.Post("/v1/jobs", job_body(j).dump(), "application/json");
      if (r && (r->status == 201 || r->status == 200)) {
        acknowledged.insert(j);
      } else if (r) {
        ADD_FAILURE() << "job" << j << ": " << r->status << " " << r->body;
      }
    }
    if (life == kKills) {  // the last life runs to the end
      for (int j : acknowledged) {
        const json job = wait_job(c, fmt::format("job{}", j), seconds(180));
        EXPECT_EQ(job.value("state", ""), "done") << job.dump();
      }
      serve->signal(SIGTERM);
      EXPECT_EQ(serve->wait(seconds(60)), 0) << serve->log_text();
      break;
    }
    std::this_thread::sleep_until(t0 + kill_after);
    std::fprintf(stderr, "life %d: SIGKILL after %lld ms (PP_TEST_SEED=%llu)\n", life, (long long)kill_after.count(),
                 (unsigned long long)seed);
    serve->kill_group(SIGKILL);
  }
  ASSERT_EQ(acknowledged.size(), size_t(kJobs)) << "seed " << seed;

  // Exactly one proof per partition, and each one verifies.
  for (int j = 0; j < kJobs; ++j) {
    const fs::path dir = tmp / "state" / "proofs" / fmt::format("job{}", j);
    size_t proofs = 0;
    for (const auto& e : fs::directory_iterator(dir)) proofs += e.path().string().ends_with(".proof.json");
    EXPECT_EQ(proofs, size_t(kPerJob)) << dir;
    for (int k = 0; k < kPerJob; ++k) {
      const std::string stem = fmt::format("w{:02}", (j * kPerJob + k) % 12);
      const auto v =
          pp_verify(multi_io() / "verification_key.json", dir / (stem + ".public.json"), dir / (stem + ".proof.json"));
      EXPECT_EQ(v.exit_code, 0) << dir / stem << ": " << v.output;
    }
  }
  // The journal's own audit: one `done` attempt per partition, its last, and
  // no attempt started after a partition's commit.
  auto journal = service::SqliteJournal::open(tmp / "state" / "journal.db");
  ASSERT_TRUE(journal) << journal.status().message();
  const Status audit = (*journal)->check_integrity();
  EXPECT_TRUE(audit) << audit.message() << " (seed " << seed << ")";
  size_t lost = 0;
  for (int j = 0; j < kJobs; ++j) {
    auto attempts = (*journal)->attempts(fmt::format("job{}", j));
    ASSERT_TRUE(attempts);
    for (const auto& a : *attempts) lost += a.result == "lost";
  }
  std::fprintf(stderr, "%d kills, %zu attempts cut short by them (seed %llu)\n", kKills, lost,
               (unsigned long long)seed);
  // The engine never asked the journal for something it refuses (an attempt
  // at a partition already done, a second done): each refusal is logged.
  for (int life = 0; life <= kKills; ++life) {
    std::ifstream in(tmp / fmt::format("serve{}.log", life));
    for (std::string line; std::getline(in, line);) {
      EXPECT_EQ(line.find("journal:"), std::string::npos) << "life " << life << ": " << line;
    }
  }
  EXPECT_TRUE(new_rings(rings_before).empty());
  for (pid_t pid : pids) EXPECT_TRUE(cgroup_dirs_of(pid).empty()) << "cgroups of service pid " << pid << " left";
}

}  // namespace
}  // namespace proofpipe::test
