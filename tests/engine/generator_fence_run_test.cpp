// `proofpipe run --inputs` against a hostile generator and a hostile inputs
// folder (docs/witness-gen.md, "How a worker runs it"): a generator that
// loops fails its partition once at --witness-gen-timeout, with that cause,
// and frees its worker for the next partition; none of its processes is
// left; it does not see the caller's secrets; a link planted among the inputs
// is one error line naming it, its target's content nowhere.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path multi_io() { return data_dir() / "multi_io"; }

// A native: generator that loops on an input holding "loop" (writing its pid
// into `marker` first), prints $PGPASSWORD on one holding "env", and runs
// circom's wasm generator on any other.
fs::path hostile_generator(const fs::path& dir, const fs::path& marker) {
  const fs::path js = multi_io() / "circuit_js";
  const std::string real = "node " + quote(js / "generate_witness.js") + " " + quote(js / "multi_io.wasm") + " ";
  const fs::path path = dir / "gen.sh";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "case \"$(cat \"$1\")\" in\n"
                      << "  *loop*) echo $$ > " << quote(marker) << "; while :; do :; done ;;\n"
                      << "  *env*) echo \"secret: ${PGPASSWORD:-none}\" >&2; exit 1 ;;\n"
                      << "esac\n"
                      << "exec " << real << "\"$1\" \"$2\"\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

bool dead_within_2s(pid_t pid) {
  const auto until = std::chrono::steady_clock::now() + 2s;
  while (fs::exists(fmt::format("/proc/{}", pid))) {
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    std::getline(stat, line);
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

std::string flags(const fs::path& inputs, const fs::path& gen, const fs::path& out, const fs::path& run_dir) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " + quote(inputs) +
         " --witness-gen native:" + quote(gen) + " --out " + quote(out) + " --run-dir " + quote(run_dir) +
         " --backend cpu";
}

TEST(GeneratorFenceRun, ALoopFailsAtTheTimeoutAfterItsAttemptsAndFreesItsWorker) {
  TempDir tmp;
  const fs::path marker = tmp / "loop.pid";
  const fs::path gen = hostile_generator(tmp.path(), marker);
  fs::create_directories(tmp / "in");
  std::ofstream(tmp / "in/a_loop.json") << "{\"loop\": \"1\"}";
  std::ofstream(tmp / "in/b_env.json") << "{\"env\": \"1\"}";
  fs::copy_file(multi_io() / "inputs/w00.json", tmp / "in/w00.json");
  // One worker: w00 is proved only if the looping generator let it go.
  const auto t0 = std::chrono::steady_clock::now();
  auto r = pp_run(
      flags(tmp / "in", gen, tmp / "out", tmp / "run") + " --synth-workers 1 --witness-gen-timeout 2s --max-attempts 2",
      "PGPASSWORD=planted-secret-8d1f");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 120s) << "a generous bound: the loop did not hold the run";
  EXPECT_EQ(r.exit_code, 3) << r.output;
  // A timeout is retried (a contended host may pass next time); the input
  // failure beside it is deterministic and is not.
  EXPECT_NE(r.output.find("FAILED a_loop after 2 attempts:"), std::string::npos) << r.output;
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 1) << summary.dump();
  for (const auto& f : summary["failed"]) {
    ASSERT_EQ(f["causes"].size(), f["partition"] == "a_loop" ? 2u : 1u) << f.dump();
    const std::string cause = f["causes"][0];
    if (f["partition"] == "a_loop") {
      EXPECT_NE(cause.find("--witness-gen-timeout (2 s)"), std::string::npos) << cause;
    } else {
      EXPECT_EQ(f["partition"], "b_env");
      EXPECT_NE(cause.find("secret: none"), std::string::npos) << cause;
    }
  }
  EXPECT_EQ(r.output.find("planted-secret"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(tmp / "out/w00.proof.json"));
  std::ifstream pid_in(marker);
  long pid = 0;
  pid_in >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(dead_within_2s(pid_t(pid))) << "the looping generator outlived its run";
}

TEST(GeneratorFenceRun, ALinkAmongTheInputsIsOneLineWithoutItsTargetsContent) {
  TempDir tmp;
  std::ofstream(tmp / "secret") << "root-only-line-71c2\n";
  ::chmod((tmp / "secret").c_str(), 0600);
  fs::create_directories(tmp / "in");
  fs::copy_file(multi_io() / "inputs/w00.json", tmp / "in/w00.json");
  fs::create_symlink(tmp / "secret", tmp / "in/w01.json");
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " + quote(tmp / "in") +
                  " --witness-gen wasm:" + quote(multi_io() / "circuit_js") + " --out " + quote(tmp / "out") +
                  " --backend cpu");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("w01.json' is a symbolic link"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("root-only"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp / "out")) << "refused before anything starts: no summary.json";
}

TEST(GeneratorFenceRun, ABadTimeoutIsOneLineAndExit2) {
  TempDir tmp;
  for (const char* bad : {"0s", "999ms", "ten", "5x", "200h", "-3s"}) {
    auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " +
                    quote(multi_io() / "inputs/w00.json") + " --witness-gen wasm:" + quote(multi_io() / "circuit_js") +
                    " --out " + quote(tmp / "out") + " --witness-gen-timeout " + quote(bad));
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("proofpipe: error: --witness-gen-timeout"), std::string::npos) << bad << "\n" << r.output;
    EXPECT_FALSE(fs::exists(tmp / "out")) << bad;
  }
}

}  // namespace
}  // namespace proofpipe::test
