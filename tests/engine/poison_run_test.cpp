// Poison partitions in `run` (docs/reliability.md, "No job can take the
// prover down"): 12 inputs whose witness generator fails on every attempt
// (a crash, an OOM kill under --synth-mem-max, a stall, a non-zero exit)
// beside 4 healthy inputs of the same run, and a proving worker that dies
// on one partition's slot every time. Each poisoned partition ends failed
// with its cause after --max-attempts (at once for a non-zero exit: that is
// deterministic), no seat is retired, every healthy partition is proved and
// verified, and run exits 3. A generator's failure costs no worker process.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "support/fault_support.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

constexpr int kPoisoned = 12;
constexpr int kHealthy = 4;

struct Poison {
  const char* name;
  const char* shell;   // what the generator does on a poisoned input
  const char* cause;   // what each of the partition's causes says
  int attempts;        // the attempts it ends failed after (--max-attempts 2)
  bool needs_cgroup;   // the OOM kill needs a writable memory cgroup
  int hang_timeout_s;  // the stall limit: short for the stall, the default for the rest
};

std::ostream& operator<<(std::ostream& os, const Poison& p) { return os << p.name; }

const Poison kPoisons[] = {
    {"crash", "kill -SEGV $$", "witness generator was killed by signal 11", 2, false, 30},
    {"oom", "exec python3 -c 'x = b\"x\" * (512 << 20)'", "OOM-killed by its cgroup (memory cap 64.00 MiB)", 2, true,
     30},
    {"stall", "exec sleep 600", "stalled: no CPU time and no output for 1 s", 2, false, 1},
    {"exit", "echo 'Error: Assert Failed.' >&2; exit 1", "exited with code 1: Assert Failed.", 1, false, 30},
};

// Inputs x00..x11 carry the poison mark; p00..p03 are multi_io's real inputs.
fs::path make_inputs(const fs::path& dir) {
  const fs::path in = dir / "inputs";
  fs::create_directories(in);
  for (int i = 0; i < kPoisoned; ++i) std::ofstream(in / fmt::format("x{:02}.json", i)) << "{\"poison\": 1}\n";
  for (int i = 0; i < kHealthy; ++i)
    fs::copy_file(multi_io() / fmt::format("inputs/w{:02}.json", i), in / fmt::format("p{:02}.json", i));
  return in;
}

// A generator that misbehaves on poisoned inputs and is circom's otherwise.
fs::path make_generator(const fs::path& dir, const std::string& poison) {
  const fs::path js = multi_io() / "circuit_js";
  const fs::path path = dir / "gen.sh";
  std::ofstream(path) << "#!/bin/sh\nif grep -q poison \"$1\"; then " << poison << "; fi\nexec node "
                      << quote(js / "generate_witness.js") << " " << quote(js / "multi_io.wasm") << " \"$1\" \"$2\"\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

void expect_healthy_proved(const fs::path& out, const std::string& prefix) {
  for (int i = 0; i < kHealthy; ++i) {
    const std::string stem = fmt::format("{}{:02}", prefix, i);
    EXPECT_EQ(
        pp_verify(multi_io() / "verification_key.json", out / (stem + ".public.json"), out / (stem + ".proof.json"))
            .exit_code,
        0)
        << stem;
  }
}

class PoisonRun : public ::testing::TestWithParam<Poison> {};

TEST_P(PoisonRun, PoisonedInputsFailAloneAndEveryHealthyOneIsProved) {
  const Poison& poison = GetParam();
  TempDir tmp;
  const fs::path inputs = make_inputs(tmp.path());
  const fs::path gen = make_generator(tmp.path(), poison.shell);
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " + quote(inputs) +
                      " --witness-gen native:" + quote(gen) + " --out " + quote(tmp / "out") + " --run-dir " +
                      quote(tmp / "run") +
                      " --backend cpu --synth-workers 2 --gpu-workers 1 --max-attempts 2 --synth-mem-max 64M" +
                      fmt::format(" --hang-timeout {}", poison.hang_timeout_s),
                  "timeout -s TERM 240");
  if (poison.needs_cgroup && !has_writable_cgroup(r.output))
    GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  ASSERT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output.find("no synth worker left"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not restarted"), std::string::npos) << r.output;
  // The generator failed; its worker did not: no death, no restart.
  EXPECT_EQ(r.output.find(" died: "), std::string::npos) << r.output;
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["workers"]["restarts"], 0) << summary.dump();
  EXPECT_EQ(summary["proved"], kHealthy) << summary.dump();
  ASSERT_EQ(summary["failed"].size(), size_t(kPoisoned)) << summary.dump();
  for (const auto& f : summary["failed"]) {
    const std::string stem = f["partition"];
    EXPECT_EQ(stem[0], 'x') << f.dump();
    ASSERT_EQ(f["causes"].size(), size_t(poison.attempts)) << f.dump();
    for (const auto& cause : f["causes"])
      EXPECT_NE(cause.get<std::string>().find(poison.cause), std::string::npos) << cause;
    EXPECT_NE(r.output.find(fmt::format("FAILED {} after {} attempt", stem, poison.attempts)), std::string::npos)
        << r.output;
  }
  expect_healthy_proved(tmp / "out", "p");
}

INSTANTIATE_TEST_SUITE_P(Generators, PoisonRun, ::testing::ValuesIn(kPoisons),
                         [](const auto& p) { return std::string(p.param.name); });

// A proving worker killed on one partition's slot every time: that
// partition fails after --max-attempts with the death as its cause, the
// proving seat is restarted each time and never retired, the other 11 are
// proved.
TEST(PoisonRun, ProverThatDiesOnOneSlotFailsThatPartitionAlone) {
  TempDir tmp;
  const auto wdir = make_witness_dir(tmp.path(), 12);
  auto r = pp_run(
      run_flags(wdir, tmp / "out", tmp / "run") + " --backend cpu --synth-workers 2 --gpu-workers 1 --max-attempts 3",
      "PROOFPIPE_FAULTS=gpu.after_claim~5:kill timeout -s TERM 240");
  ASSERT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output.find("no proving worker left"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not restarted"), std::string::npos) << r.output;
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 11) << summary.dump();
  ASSERT_EQ(summary["failed"].size(), 1u) << summary.dump();
  EXPECT_EQ(summary["failed"][0]["partition"], "p05");
  ASSERT_EQ(summary["failed"][0]["causes"].size(), 3u) << summary.dump();
  for (const auto& cause : summary["failed"][0]["causes"])
    EXPECT_NE(cause.get<std::string>().find("killed by SIGKILL"), std::string::npos) << cause;
  EXPECT_EQ(summary["workers"]["restarts"], 3) << summary.dump();
  for (int i = 0; i < 12; ++i) {
    if (i == 5) continue;
    const std::string stem = fmt::format("p{:02}", i);
    EXPECT_EQ(pp_verify(multi_io() / "verification_key.json", tmp / "out" / (stem + ".public.json"),
                        tmp / "out" / (stem + ".proof.json"))
                  .exit_code,
              0)
        << stem;
  }
}

}  // namespace
}  // namespace proofpipe::test
