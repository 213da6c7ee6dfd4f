// Witness generation under faults (docs/witness-gen.md), with
// small shell stand-ins for the generator where the fault needs one:
//  - a generator that allocates past --synth-mem-max is OOM-killed inside the
//    worker's cgroup, the death is classified as OOM and the partition is
//    retried within --max-attempts while the other inputs are proved (skips
//    where no writable memory cgroup exists);
//  - a synthesis worker SIGKILLed while its generator runs takes the
//    generator with it (PDEATHSIG), and the witness it was writing was a
//    memfd, so nothing is left in the run directory or anywhere else;
//  - a generator stuck without using CPU or writing is a stall: its worker
//    kills it after --hang-timeout and lives on (no hang kill, no restart),
//    and the retry proves the partition.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "support/fault_support.hpp"
#include "support/spawn.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A stand-in generator: `body` as a shell script; circom's calling
// convention (input file, output file) is "$1" "$2".
fs::path write_generator(const fs::path& dir, const std::string& body) {
  const fs::path path = dir / "gen.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

fs::path copy_inputs(const fs::path& dir, int count) {
  const fs::path in = dir / "inputs";
  fs::create_directories(in);
  for (int i = 0; i < count; ++i) {
    fs::copy_file(multi_io() / fmt::format("inputs/w{:02}.json", i), in / fmt::format("p{:02}.json", i));
  }
  return in;
}

std::string input_flags(const fs::path& inputs, const fs::path& gen, const fs::path& out, const fs::path& run_dir) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " + quote(inputs) +
         " --witness-gen native:" + quote(gen) + " --out " + quote(out) + " --run-dir " + quote(run_dir) +
         " --backend cpu";
}

TEST(WitnessGenFault, GeneratorPastTheCapIsOomKilledAndRetried) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), 3);
  std::ofstream(inputs / "hog.json") << "{\"hog\": 1}\n";
  // The input marked "hog" writes 512 MiB; the others go to circom's wasm generator.
  const fs::path js = multi_io() / "circuit_js";
  const fs::path gen =
      write_generator(tmp.path(),
                      "if grep -q hog \"$1\"; then exec python3 -c 'x = b\"x\" * (512 << 20)'; fi\n"
                      "exec node " +
                          quote(js / "generate_witness.js") + " " + quote(js / "multi_io.wasm") + " \"$1\" \"$2\"");
  auto r = pp_run(input_flags(inputs, gen, tmp / "out", tmp / "run") +
                  " --synth-workers 2 --gpu-workers 1 --max-attempts 2 --synth-mem-max 64M");
  if (!has_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("FAILED hog after 2 attempts"), std::string::npos) << r.output;
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 3);
  ASSERT_EQ(summary["failed"].size(), 1u);
  ASSERT_EQ(summary["failed"][0]["causes"].size(), 2u);
  for (const auto& cause : summary["failed"][0]["causes"]) {
    EXPECT_NE(cause.get<std::string>().find("OOM-killed by its cgroup (memory cap 64.00 MiB)"), std::string::npos)
        << cause;
  }
  for (int i = 0; i < 3; ++i) {
    const std::string stem = fmt::format("p{:02}", i);
    EXPECT_EQ(pp_verify(multi_io() / "verification_key.json", tmp / "out" / (stem + ".public.json"),
                        tmp / "out" / (stem + ".proof.json"))
                  .exit_code,
              0)
        << stem;
  }
}

// Field 4 of /proc/<pid>/stat (after the name in parentheses).
long parent_of(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(in, line);
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(line.substr(paren + 2));
  char state = 0;
  long ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

bool gone(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';  // a zombie is dead
}

std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    names.insert(it->path().string());
  }
  return names;
}

TEST(WitnessGenFault, KilledWorkerTakesItsGeneratorAndLeavesNoFiles) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), 1);
  const fs::path mark = tmp / "generator.pid";
  // Busy, not asleep: its CPU time is the worker's progress (no hang kill).
  const fs::path gen =
      write_generator(tmp.path(), "echo $$ > " + quote(mark.string() + ".tmp") + " && mv " +
                                      quote(mark.string() + ".tmp") + " " + quote(mark) + "\nwhile :; do :; done");
  const fs::path run_dir = tmp / "run";
  const pid_t coordinator =
      spawn_proofpipe("run",
                      {"--zkey", (multi_io() / "circuit.zkey").string(), "--inputs", inputs.string(), "--witness-gen",
                       "native:" + gen.string(), "--out", (tmp / "out").string(), "--run-dir", run_dir.string(),
                       "--backend", "cpu", "--synth-workers", "1", "--gpu-workers", "1", "--max-attempts", "1"},
                      {}, tmp / "run.log");
  ASSERT_GT(coordinator, 0);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!fs::exists(mark) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(fs::exists(mark)) << "the generator never started";
  pid_t generator = 0;
  std::ifstream(mark) >> generator;
  ASSERT_GT(generator, 0);
  const long worker = parent_of(generator);
  std::string comm;
  std::ifstream(fmt::format("/proc/{}/comm", worker)) >> comm;
  ASSERT_EQ(comm, "proofpipe-synth") << "the generator's parent is its synthesis worker";
  // Its two files are memfds: nothing with a name on any file system.
  EXPECT_EQ(fs::read_symlink(fmt::format("/proc/{}/fd/3", generator)).string().rfind("/memfd:proofpipe-witness", 0),
            0u);
  EXPECT_EQ(fs::read_symlink(fmt::format("/proc/{}/fd/4", generator)).string().rfind("/memfd:proofpipe-input", 0), 0u);
  const std::set<std::string> before = files_under(run_dir);

  ASSERT_EQ(::kill(pid_t(worker), SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  while (!gone(generator) && std::chrono::steady_clock::now() < killed + 5s) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(gone(generator)) << "the generator outlived its worker";
  for (const std::string& f : files_under(run_dir)) EXPECT_TRUE(before.count(f)) << "new file " << f;

  int status = 0;
  ASSERT_EQ(::waitpid(coordinator, &status, 0), coordinator);
  ASSERT_TRUE(WIFEXITED(status));
  std::ifstream log(tmp / "run.log");
  const std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(WEXITSTATUS(status), 3) << output;
  EXPECT_NE(output.find("FAILED p00 after 1 attempt"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(run_dir)) << "the run directory is removed at the end";
  // --out holds the summary only.
  EXPECT_EQ(files_under(tmp / "out"), std::set<std::string>{(tmp / "out/summary.json").string()});
}

TEST(WitnessGenFault, StuckGeneratorIsAStallTheWorkerSurvivesAndTheRetryProves) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), 1);
  const fs::path mark = tmp / "stuck.pid";
  const fs::path js = multi_io() / "circuit_js";
  // The first run sleeps (no CPU time: no progress); the retry is circom's.
  const fs::path gen =
      write_generator(tmp.path(), "if [ ! -e " + quote(mark) + " ]; then echo $$ > " + quote(mark) +
                                      "; exec sleep 600; fi\n" + "exec node " + quote(js / "generate_witness.js") +
                                      " " + quote(js / "multi_io.wasm") + " \"$1\" \"$2\"");
  auto r = pp_run(input_flags(inputs, gen, tmp / "out", tmp / "run") +
                      " --synth-workers 1 --gpu-workers 1 --max-attempts 2 --hang-timeout 1",
                  "timeout -s TERM 60");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stalled: no CPU time and no output for 1 s"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("sent no heartbeat for"), std::string::npos) << "the worker itself was not hung\n"
                                                                       << r.output;
  EXPECT_EQ(r.output.find(" died: "), std::string::npos) << "no worker died\n" << r.output;
  pid_t stuck = 0;
  std::ifstream(mark) >> stuck;
  ASSERT_GT(stuck, 0);
  EXPECT_TRUE(gone(stuck)) << "the stuck generator outlived its run";
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 1);
  EXPECT_EQ(summary["per_partition"][0]["attempts"], 2);
  EXPECT_EQ(summary["workers"]["restarts"], 0) << summary.dump();
  EXPECT_EQ(pp_verify(multi_io() / "verification_key.json", tmp / "out/p00.public.json", tmp / "out/p00.proof.json")
                .exit_code,
            0);
}

}  // namespace
}  // namespace proofpipe::test
