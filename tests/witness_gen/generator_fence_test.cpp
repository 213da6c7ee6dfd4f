// The fence around an untrusted witness generator (generator.hpp,
// docs/witness-gen.md "How a worker runs it"): a generator that loops is
// killed at its wall-clock limit; every process it starts is gone when the
// run ends, however it ends; it runs in a private working directory that is
// removed after; it sees only the allow-listed environment; an input that is
// a symbolic link is refused and its target's content appears nowhere; one
// that stalls is killed; it is the OOM killer's first choice; a child of it
// that left its process group dies at the run's end in a subreaper.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "proofpipe/witness_gen/generator.hpp"
#include "proofpipe/witness_gen/resolve.hpp"
#include "support/descendant.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

using witness_gen::GeneratorLimits;
using witness_gen::GeneratorRun;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A stand-in generator: a shell script in `dir`.
std::vector<std::string> script(const fs::path& dir, const std::string& body) {
  const fs::path path = dir / "gen.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return {path.string()};
}

GeneratorRun generate(const std::vector<std::string>& command, const fs::path& input, GeneratorLimits limits = {}) {
  auto run = witness_gen::run_generator(
      {command, input.string()}, [] {}, limits);
  EXPECT_TRUE(run.is_ok()) << run.status().message();
  return run.is_ok() ? std::move(*run) : GeneratorRun{};
}

fs::path valid_input() { return data_dir() / "multi_io/inputs/w00.json"; }

// The pid a generator wrote into `marker`; 0 when it wrote none.
pid_t marker_pid(const fs::path& marker) {
  std::ifstream in(marker);
  long pid = 0;
  in >> pid;
  return pid_t(pid);
}

// Gone or a zombie (dead, waiting for its new parent to reap it): no code of
// it runs. Polled for 2 s, the bound the run's end promises.
TEST(GeneratorFence, ALoopIsKilledAtItsTimeoutAndFailsWithThatCause) {
  TempDir tmp;
  const fs::path marker = tmp / "pid";
  const auto t0 = std::chrono::steady_clock::now();
  GeneratorRun run = generate(script(tmp.path(), "echo $$ > " + marker.string() + "; while :; do :; done"),
                              valid_input(), {.timeout = 1s, .work_parent = {}});
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(run.end, GeneratorRun::End::kTimedOut) << run.describe();
  EXPECT_NE(run.describe().find("--witness-gen-timeout (1 s)"), std::string::npos) << run.describe();
  EXPECT_LT(took, 30s) << "a generous bound: the loop did not hold the run";
  const pid_t pid = marker_pid(marker);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(dead_within(pid, std::chrono::seconds(2)));
}

TEST(GeneratorFence, EveryProcessItStartedIsGoneAtEveryEnd) {
  TempDir tmp;
  // A sleeper left behind by a generator that exits 0, exits 1, is killed at
  // its timeout, and by one that put the sleeper in the background and hung.
  struct Case {
    std::string tail;
    GeneratorRun::End end;
  };
  for (const Case& c : {Case{"exit 0", GeneratorRun::End::kOk}, Case{"exit 1", GeneratorRun::End::kInputFailure},
                        Case{"sleep 1000", GeneratorRun::End::kTimedOut}}) {
    const fs::path marker = tmp / "sleeper";
    fs::remove(marker);
    GeneratorRun run =
        generate(script(tmp.path(), "sleep 1000 >/dev/null 2>&1 & echo $! > " + marker.string() + "; " + c.tail),
                 valid_input(), {.timeout = 1s, .work_parent = {}});
    EXPECT_EQ(run.end, c.end) << c.tail << ": " << run.describe();
    if (run.witness_fd >= 0) ::close(run.witness_fd);
    const pid_t sleeper = marker_pid(marker);
    ASSERT_GT(sleeper, 0) << c.tail;
    EXPECT_TRUE(dead_within(sleeper, std::chrono::seconds(2)))
        << c.tail << ": its sleeper " << sleeper << " outlived the run";
  }
}

// A generator that uses no CPU and writes nothing for GeneratorLimits::stall
// is stalled: killed long before its wall-clock limit. One that computes
// without writing is not (its CPU time is progress): it runs to its timeout.
TEST(GeneratorFence, AGeneratorThatNeitherComputesNorWritesIsStalled) {
  TempDir tmp;
  const fs::path marker = tmp / "pid";
  const auto t0 = std::chrono::steady_clock::now();
  GeneratorRun run = generate(script(tmp.path(), "echo $$ > " + marker.string() + "; exec sleep 1000"), valid_input(),
                              {.timeout = 60s, .stall = 1s, .work_parent = {}});
  EXPECT_EQ(run.end, GeneratorRun::End::kStalled) << run.describe();
  EXPECT_NE(run.describe().find("stalled: no CPU time and no output for 1 s"), std::string::npos) << run.describe();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s) << "stalled, not timed out";
  const pid_t pid = marker_pid(marker);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(dead_within(pid, std::chrono::seconds(2)));

  GeneratorRun busy = generate(script(tmp.path(), "while :; do :; done"), valid_input(),
                               {.timeout = 3s, .stall = 1s, .work_parent = {}});
  EXPECT_EQ(busy.end, GeneratorRun::End::kTimedOut) << busy.describe();
}

// Inside a capped cgroup the OOM killer takes the generator, not the worker.
TEST(GeneratorFence, ItIsTheOomKillersFirstChoice) {
  TempDir tmp;
  const fs::path report = tmp / "adj";
  GeneratorRun run = generate(script(tmp.path(), "cat /proc/self/oom_score_adj > " + report.string()), valid_input());
  EXPECT_EQ(run.end, GeneratorRun::End::kOk) << run.describe();
  if (run.witness_fd >= 0) ::close(run.witness_fd);
  EXPECT_EQ(read_text(report), "1000\n");
}

// A child the generator put in a session of its own (setsid) leaves its
// process group, so killing the group misses it. In a subreaper (a synthesis
// worker is one) it is re-parented to the worker and killed at the run's
// end; in a process that is not, it survives (the control, killed here).
// Each case runs in a forked child: a subreaper kills every child it has.
TEST(GeneratorFence, ASetsidChildIsKilledAtTheRunsEndInASubreaper) {
  TempDir tmp;
  for (const bool reaper : {true, false}) {
    const fs::path marker = tmp / fmt::format("escapee{}", int(reaper));
    const auto command =
        script(tmp.path(), "setsid sh -c 'echo $$ > " + marker.string() + ".tmp; mv " + marker.string() + ".tmp " +
                               marker.string() + "; exec sleep 1000' & while [ ! -e " + marker.string() +
                               " ]; do sleep 0.05; done; exit 0");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (reaper && !witness_gen::become_subreaper()) ::_exit(3);
      auto run = witness_gen::run_generator({command, valid_input().string()}, [] {}, {});
      ::_exit(run.is_ok() && run->end == GeneratorRun::End::kOk ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const pid_t escapee = marker_pid(marker);
    ASSERT_GT(escapee, 0);
    if (reaper) {
      EXPECT_TRUE(dead_within(escapee, std::chrono::seconds(2))) << "the setsid child outlived the run";
    } else {
      EXPECT_FALSE(dead_within(escapee, std::chrono::milliseconds(300))) << "the control: nothing kills it";
      ::kill(escapee, SIGKILL);
    }
  }
}

TEST(GeneratorFence, ItRunsInAPrivateEmptyDirectoryThatIsRemoved) {
  TempDir tmp;
  fs::create_directories(tmp / "runs");
  const fs::path report = tmp / "report";
  // Where it runs, that directory's mode and entries, then a file of its own there.
  GeneratorRun run = generate(script(tmp.path(), "{ pwd; stat -c %a .; ls -A | wc -l; } > " + report.string() +
                                                     "; echo junk > left.txt; exit 1"),
                              valid_input(), {.timeout = witness_gen::kDefaultTimeout, .work_parent = tmp / "runs"});
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure) << run.describe();
  std::istringstream lines(read_text(report));
  std::string cwd, mode, entries;
  std::getline(lines, cwd);
  std::getline(lines, mode);
  std::getline(lines, entries);
  EXPECT_EQ(fs::path(cwd).parent_path(), tmp / "runs") << cwd;
  EXPECT_EQ(mode, "700");
  EXPECT_EQ(entries, "0");
  EXPECT_FALSE(fs::exists(cwd)) << "its directory, with the file it wrote, is removed";
  EXPECT_TRUE(fs::is_empty(tmp / "runs"));
}

TEST(GeneratorFence, ItSeesOnlyTheAllowListedEnvironment) {
  TempDir tmp;
  const fs::path dump = tmp / "env";
  ::setenv("PGPASSWORD", "planted-secret-8d1f", 1);
  ::setenv("LC_ALL", "C", 1);
  GeneratorRun run = generate(script(tmp.path(), "env > " + dump.string() + "; exit 1"), valid_input());
  ::unsetenv("PGPASSWORD");
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure) << run.describe();
  const std::string env = read_text(dump);
  EXPECT_EQ(env.find("planted-secret-8d1f"), std::string::npos) << env;
  EXPECT_EQ(env.find("PGPASSWORD"), std::string::npos) << env;
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
  EXPECT_NE(env.find("LC_ALL=C"), std::string::npos) << env;
  EXPECT_NE(env.find("HOME=" + (fs::temp_directory_path() / "proofpipe-gen-").string()), std::string::npos) << env;
}

TEST(GeneratorFence, ALinkedInputIsRefusedAndItsTargetNeverShown) {
  TempDir tmp;
  std::ofstream(tmp / "secret") << "root-only-line-71c2\nsecond\n";
  ::chmod((tmp / "secret").c_str(), 0600);
  fs::create_directories(tmp / "in");
  std::ofstream(tmp / "in/a.json") << "{}";
  fs::create_symlink(tmp / "secret", tmp / "in/b.json");

  // The coordinator's listing: one line naming the input.
  const Status listed = witness_gen::list_inputs({(tmp / "in").string()}).status();
  EXPECT_NE(listed.message().find("b.json' is a symbolic link"), std::string::npos) << listed.message();
  EXPECT_EQ(listed.message().find("root-only"), std::string::npos) << listed.message();
  const Status named = witness_gen::list_inputs({(tmp / "in/b.json").string()}).status();
  EXPECT_NE(named.message().find("symbolic link"), std::string::npos) << named.message();

  // The worker's read: refused before any generator runs.
  const fs::path ran = tmp / "ran";
  GeneratorRun run =
      generate(script(tmp.path(), "touch " + ran.string() + "; cat \"$1\" >&2; exit 1"), tmp / "in/b.json");
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure);
  EXPECT_NE(run.describe().find("symbolic link"), std::string::npos) << run.describe();
  EXPECT_EQ(run.describe().find("root-only"), std::string::npos) << run.describe();
  EXPECT_FALSE(fs::exists(ran));
}

TEST(GeneratorFence, NodesEchoOfANonJsonInputIsRedacted) {
  TempDir tmp;
  std::ofstream(tmp / "in.json") << "root-only-line-71c2\nsecond:line\n";
  auto wasm = witness_gen::resolve_generator("wasm:" + (data_dir() / "multi_io/circuit_js").string());
  ASSERT_TRUE(wasm.is_ok()) << wasm.status().message();
  // node prints the offending source line alone, then quotes it (over two
  // lines) in JSON.parse's message.
  GeneratorRun run = generate(*wasm, tmp / "in.json");
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure);
  EXPECT_EQ(run.output.find("root-only"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("is not valid JSON"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("<input text>"), std::string::npos) << run.output;
}

TEST(GeneratorFence, AQuotedEchoOfTheInputIsRedactedAndTheInputIsSealed) {
  TempDir tmp;
  std::ofstream(tmp / "in.json") << "root:x:0:0:root:/root:/bin/bash\n";
  // A generator that tries to blank its input first, then quotes it.
  GeneratorRun run = generate(script(tmp.path(),
                                     "( : > \"$1\" ) 2>/dev/null; echo 'SyntaxError: Unexpected token, "
                                     "\"root:x:0:0:\"... is not valid JSON' >&2; exit 1"),
                              tmp / "in.json");
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure);
  EXPECT_EQ(run.output.find("root:x"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("SyntaxError: Unexpected token, \"<input text>\"... is not valid JSON"), std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace proofpipe::test
