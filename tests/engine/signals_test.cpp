// Signals during shutdown: a run is interrupted with SIGTERM, and
// more SIGTERM/SIGINT follow while the coordinator is still stopping its
// workers. Every one of them must be handled, not just the first: exit 130,
// summary.json written and consistent, no ring, run dir or cgroup of the
// run left behind (the default action of a late signal would leave all
// three and exit 143).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "support/fault_support.hpp"
#include "support/run_watch.hpp"
#include "support/spawn.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `proofpipe run args...` as a child of the test (its pid is what we signal).
pid_t spawn_run(const std::vector<std::string>& args, const std::vector<std::string>& extra_env, const fs::path& log) {
  std::error_code ec;
  fs::remove(log, ec);  // the log is appended to: start it empty
  return spawn_proofpipe("run", args, extra_env, log);
}

// The child's wait status, or nullopt if it is still running after `limit`
// (then it is SIGKILLed and reaped, so the test never leaves it behind).
std::optional<int> wait_bounded(pid_t pid, std::chrono::seconds limit) {
  const auto t0 = Clock::now();
  int status = 0;
  while (Clock::now() - t0 < limit) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

TEST(PipelineSignals, LaterSignalsDuringShutdownAreHandled) {
  TempDir tmp;
  const auto out = tmp / "out", run_dir = tmp / "run", log = tmp / "run.log";
  // Each proof takes 2 s (in every incarnation: delay entries reach all), so
  // the proving worker is mid-proof when the first signal comes and the
  // shutdown waits for it: the later signals land inside the shutdown.
  const pid_t coord = spawn_run(
      {"--zkey", (multi_io() / "circuit.zkey").string(), "--witness-dir", multi_io().string(), "--out", out.string(),
       "--run-dir", run_dir.string(), "--synth-workers", "2", "--gpu-workers", "1", "--slots", "2"},
      {"PROOFPIPE_FAULTS=gpu.mid_compute:delay=2000", "PROOFPIPE_NO_PROGRESS=1"}, log);
  ASSERT_GT(coord, 0);
  struct Reaper {  // an early ASSERT must not leave the run going
    pid_t pid;
    bool reaped = false;
    ~Reaper() {
      if (!reaped) (void)wait_bounded(pid, std::chrono::seconds(0));
    }
  } reaper{coord};
  const auto t0 = Clock::now();
  auto watched = watch_run(run_dir, [&] { return Clock::now() - t0 > std::chrono::seconds(20); });
  ASSERT_TRUE(watched.has_value()) << "never saw the run's ring:\n" << read_text(log);
  // After the first proof the proving worker goes straight into the next
  // one (the other synthesis worker's record is waiting): 2 s of it left.
  while (read_text(log).find("proved (attempt") == std::string::npos && Clock::now() - t0 < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::this_thread::sleep_for(milliseconds(200));
  const auto cgroups = cgroup_dirs_of(coord);

  ASSERT_EQ(::kill(coord, SIGTERM), 0);
  // The loop has taken the first signal once it says so; then it is stopping.
  while (read_text(log).find("received: stopping") == std::string::npos &&
         Clock::now() - t0 < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(::kill(coord, SIGTERM), 0);
  std::this_thread::sleep_for(milliseconds(100));
  ASSERT_EQ(::kill(coord, SIGINT), 0);
  std::this_thread::sleep_for(milliseconds(100));
  ASSERT_EQ(::kill(coord, SIGTERM), 0);
  // The test is only worth something if the shutdown was still going on.
  int early = 0;
  const bool still_running = ::waitpid(coord, &early, WNOHANG) == 0;

  const auto status = wait_bounded(coord, std::chrono::seconds(30));
  reaper.reaped = true;
  const std::string output = read_text(log);
  ASSERT_TRUE(status.has_value()) << "the coordinator did not exit within 30 s:\n" << output;
  EXPECT_TRUE(still_running) << "the run ended before the later signals were sent:\n" << output;
  ASSERT_TRUE(WIFEXITED(*status)) << "killed by signal " << (WIFSIGNALED(*status) ? WTERMSIG(*status) : 0) << ":\n"
                                  << output;
  EXPECT_EQ(WEXITSTATUS(*status), 130) << output;
  // The later ones were taken and logged, not just left pending.
  EXPECT_TRUE(output.find("received while stopping") != std::string::npos ||
              output.find("received: already stopping") != std::string::npos)
      << output;

  // summary.json: written, marked interrupted, every partition accounted for.
  ASSERT_TRUE(fs::exists(out / "summary.json")) << output;
  const auto summary = read_json(out / "summary.json");
  EXPECT_TRUE(summary["interrupted"].get<bool>());
  EXPECT_EQ(summary["partitions"], 12);
  const int proved = summary["proved"].get<int>();
  // The unfinished ones were interrupted, not failed.
  EXPECT_EQ(proved + int(summary["interrupted_partitions"].size()), 12) << summary.dump(2);
  EXPECT_GE(summary["interrupted_partitions"].size(), 1u) << summary.dump(2);
  EXPECT_TRUE(summary["failed"].empty()) << summary.dump(2);
  EXPECT_EQ(output.find("FAILED"), std::string::npos) << output;
  EXPECT_NE(output.find("interrupted: "), std::string::npos) << output;
  for (const auto& p : summary["per_partition"]) {
    EXPECT_TRUE(p["state"] == "done" || p["state"] == "interrupted") << p;
  }
  int proof_files = 0;
  for (const auto& e : fs::directory_iterator(out)) proof_files += e.path().string().ends_with(".proof.json");
  EXPECT_EQ(proof_files, proved);

  // Nothing of the run is left: ring, run dir, cgroups.
  const std::string name = watched->ring_prefix.substr(1);
  EXPECT_FALSE(fs::exists("/dev/shm/" + name + "-ctl"));
  EXPECT_FALSE(fs::exists("/dev/shm/" + name + "-data"));
  EXPECT_FALSE(fs::exists(run_dir));
  for (const auto& dir : cgroups) EXPECT_FALSE(fs::exists(dir)) << dir;
  EXPECT_TRUE(cgroup_dirs_of(coord).empty());
}

}  // namespace
}  // namespace proofpipe::test
