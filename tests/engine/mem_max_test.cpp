// `proofpipe run --mem-max TOTAL` (docs/operations.md "One memory
// budget"): a run at the smallest TOTAL the plan takes proves every
// partition with no OOM kill while the parent cgroup (coordinator, ring and
// workers) never holds more than TOTAL, at any sample or at its peak; a
// TOTAL too small is one line and exit 2 with nothing made; without a
// writable memory cgroup --mem-max is refused (a bound that cannot be
// enforced is not claimed); a killed coordinator's capped parent is removed
// by the next run. Tests that need a writable memory cgroup skip, saying so,
// where there is none.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <future>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/descendant.hpp"
#include "support/json_file.hpp"
#include "support/sanitizer.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path multi_io() { return data_dir() / "multi_io"; }

// This process's memory cgroup directory (v1 "memory" line, else v2 "0::"),
// where a run's proofpipe-<pid>-<run> parent is made; empty if none.
fs::path own_memory_cgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string v2;
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (("," + controllers + ",").find(",memory,") != std::string::npos && fs::exists("/sys/fs/cgroup/memory")) {
      return fs::path("/sys/fs/cgroup/memory") / fs::path(path).relative_path();
    }
    if (line.rfind("0::", 0) == 0) v2 = path;
  }
  return v2.empty() ? fs::path() : fs::path("/sys/fs/cgroup") / fs::path(v2).relative_path();
}

// The proofpipe-* cgroups (run parents, v2 coordinator leaves) under ours.
std::set<std::string> run_cgroups() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(own_memory_cgroup(), ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("proofpipe-", 0) == 0) names.insert(n);
  }
  return names;
}

// The pid a run's cgroup is named for ("proofpipe-<pid>-<run>" or
// "proofpipe-coordinator-<pid>"), 0 for any other name.
pid_t pid_of_cgroup(const std::string& name) {
  for (const std::string prefix : {"proofpipe-coordinator-", "proofpipe-"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const size_t n = std::min(rest.find_first_not_of("0123456789"), rest.size());
    return n == 0 || n > 9 ? 0 : pid_t(std::stol(rest.substr(0, n)));
  }
  return 0;
}

// The run cgroups present now, not in `before`, of processes the test
// started since `mark` (a run of someone else's may come and go meanwhile).
std::set<std::string> new_own_cgroups(const std::set<std::string>& before, size_t mark) {
  std::set<std::string> added;
  for (const auto& n : run_cgroups()) {
    if (!before.count(n) && started_by_test(pid_of_cgroup(n), mark)) added.insert(n);
  }
  return added;
}

bool no_writable_cgroup(const std::string& output) {
  return output.find("--mem-max needs a writable memory cgroup") != std::string::npos;
}

size_t lines_in(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

// "needs at least 73.43 MiB" -> the next 0.01 MiB up, as a --mem-max value.
std::string minimum_from(const std::string& refusal) {
  std::smatch m;
  if (!std::regex_search(refusal, m, std::regex("needs at least ([0-9.]+) MiB"))) return "";
  return fmt::format("{:.2f}M", std::stod(m[1]) + 0.01);
}

TEST(MemMax, TooSmallIsOneLineAndMakesNothing) {
  TempDir tmp;
  const auto rings = shm_rings();
  const auto cgroups = run_cgroups();
  const size_t mark = started_mark();
  const std::string flags = "--zkey " + quote(multi_io() / "circuit.zkey") + " --witness-dir " + quote(multi_io()) +
                            " --out " + quote(tmp / "out");
  auto r = pp_run(flags + " --mem-max 16M");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(lines_in(r.output), 1u) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: --mem-max 16.00 MiB cannot hold the coordinator, 1 slot and 2 synth "
                           "workers + 1 proving worker: needs at least ",
                           0),
            0u)
      << r.output;
  // Explicit --slots beyond TOTAL: refused naming the flag.
  auto slots = pp_run(flags + " --mem-max 100M --slots 4000");
  EXPECT_EQ(slots.exit_code, 2) << slots.output;
  EXPECT_EQ(lines_in(slots.output), 1u) << slots.output;
  EXPECT_NE(slots.output.find("4000 slots (--slots 4000)"), std::string::npos) << slots.output;
  auto zero = pp_run(flags + " --mem-max 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--mem-max 0: a memory cap must be more than 0 bytes"), std::string::npos) << zero.output;
  EXPECT_FALSE(fs::exists(tmp / "out"));
  EXPECT_TRUE(new_rings(rings).empty());
  EXPECT_EQ(new_own_cgroups(cgroups, mark), std::set<std::string>{});
}

// Under load at the plan's own minimum: K = 1, every cap at its modelled
// need, a 2^14-constraint key (3.4 MiB slots), 8 partitions.
TEST(MemMax, RunAtItsMinimumFitsUnderTotal) {
  PP_SKIP_UNDER_MEMORY_SANITIZER();
  TempDir tmp;
  auto gen = run_command(proofpipe() + " gen --constraints 16384 --partitions 8 --seed 7 --out " + quote(tmp / "w"));
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  const std::string flags = "--zkey " + quote(tmp / "w" / "circuit.zkey") + " --witness-dir " + quote(tmp / "w") +
                            " --backend cpu --synth-workers 2 --gpu-workers 1 --out " + quote(tmp / "out");
  auto refused = pp_run(flags + " --mem-max 1M");
  ASSERT_EQ(refused.exit_code, 2) << refused.output;
  const std::string total = minimum_from(refused.output);
  ASSERT_FALSE(total.empty()) << refused.output;
  const auto rings = shm_rings();
  auto r = pp_run(flags + " --mem-max " + total + " --sample-ms 20 --metrics " + quote(tmp / "m.jsonl"),
                  "PROOFPIPE_NO_PROGRESS=1");
  if (no_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::printf("--mem-max %s\n", total.c_str());
  const std::regex start(
      "proofpipe: memory: --mem-max [0-9.]+ MiB: K=1 slot of 3\\.[0-9]+ MiB, synth cap [0-9.]+ "
      "MiB x2, gpu cap [0-9.]+ MiB x1, coordinator ~[0-9.]+ MiB, key pages [0-9.]+ MiB \\(cgroup "
      "v[12]\\)");
  EXPECT_TRUE(std::regex_search(r.output, start)) << r.output;
  EXPECT_NE(r.output.find("memory: total peak "), std::string::npos) << r.output;

  const json s = read_json(tmp / "out" / "summary.json");
  const json& m = s["memory"];
  const uint64_t mem_max = m["mem_max_bytes"];
  EXPECT_EQ(s["proved"], 8);
  EXPECT_EQ(s["ring"]["slots"], 1);
  EXPECT_GE(double(mem_max), (std::stod(total) - 0.02) * 1024 * 1024);
  const uint64_t sampled = m["max_total_cgroup_bytes"], peak = m["parent_cgroup_peak_bytes"];
  const uint64_t ring = s["ring"]["ring_bytes"];
  std::printf("parent cgroup: most at a sample %.2f MiB, peak %.2f MiB of %.2f MiB\n", double(sampled) / (1 << 20),
              double(peak) / (1 << 20), double(mem_max) / (1 << 20));
  EXPECT_LE(sampled, mem_max);
  EXPECT_LE(peak, mem_max);
  EXPECT_GE(peak, sampled);
  // The ring is charged inside the parent, to the coordinator: it joined before allocating it.
  EXPECT_GE(uint64_t(m["coordinator_cgroup_peak_bytes"]), ring);
  EXPECT_GE(peak, ring);
  for (const auto& seat : s["seats"]) {
    EXPECT_EQ(seat["oom_kills"], 0) << seat.dump();
    EXPECT_EQ(seat["incarnations"], 1) << seat.dump();
  }
  std::ifstream in(tmp / "m.jsonl");
  size_t records = 0;
  for (std::string line; std::getline(in, line); ++records) {
    const json rec = json::parse(line);
    ASSERT_TRUE(rec.contains("cgroup_total")) << line;
    EXPECT_LE(rec["cgroup_total"].get<uint64_t>(), mem_max) << line;
    EXPECT_LE(rec["cgroup_total_peak"].get<uint64_t>(), mem_max) << line;
  }
  EXPECT_GT(records, 10u);
  for (const char* stem : {"w00", "w07"}) {
    auto v = pp_verify(tmp / "w" / "verification_key.json", tmp / "out" / (std::string(stem) + ".public.json"),
                       tmp / "out" / (std::string(stem) + ".proof.json"));
    EXPECT_EQ(v.exit_code, 0) << stem << ": " << v.output;
  }
  // The coordinator moved back out, so its parent could be removed.
  std::smatch dir;
  ASSERT_TRUE(std::regex_search(r.output, dir, std::regex("worker cgroups under (\\S+) \\(cgroup")));
  EXPECT_FALSE(fs::exists(dir[1].str())) << dir[1];
  EXPECT_TRUE(new_rings(rings).empty());
}

// Memory pressure up to the caps: the first synthesis and proving workers
// allocate until killed. Each is stopped by its own cap, inside TOTAL (the
// parent held the whole cap at its peak and never more than TOTAL), and the
// restarted workers prove every partition.
TEST(MemMax, RunawayWorkersAreStoppedInsideTotal) {
  PP_SKIP_UNDER_MEMORY_SANITIZER();
  TempDir tmp;
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness-dir " + quote(multi_io()) +
                      " --backend cpu --mem-max 256M --sample-ms 20 --out " + quote(tmp / "out"),
                  "PROOFPIPE_NO_PROGRESS=1 PROOFPIPE_FAULTS=synth.mid_write:oom@1,gpu.after_release:oom@1");
  if (no_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("OOM-killed by its cgroup"), std::string::npos) << r.output;
  const json s = read_json(tmp / "out" / "summary.json");
  const json& m = s["memory"];
  EXPECT_EQ(s["proved"], 12);
  uint64_t ooms = 0;
  for (const auto& seat : s["seats"]) ooms += seat["oom_kills"].get<uint64_t>();
  EXPECT_EQ(ooms, 3u) << s["seats"].dump();
  const uint64_t mem_max = m["mem_max_bytes"], peak = m["parent_cgroup_peak_bytes"];
  std::printf("parent cgroup peak %.2f MiB of %.2f MiB; caps synth %.2f, gpu %.2f MiB\n", double(peak) / (1 << 20),
              double(mem_max) / (1 << 20), double(m["synth_mem_max_bytes"].get<uint64_t>()) / (1 << 20),
              double(m["gpu_mem_max_bytes"].get<uint64_t>()) / (1 << 20));
  EXPECT_LE(peak, mem_max);
  EXPECT_LE(m["max_total_cgroup_bytes"].get<uint64_t>(), mem_max);
  EXPECT_GE(peak, m["gpu_mem_max_bytes"].get<uint64_t>()) << "the runaway never reached its cap";
}

// As an unprivileged user (nobody) no cgroup is writable: --mem-max is
// refused at start, one line, and nothing is left.
TEST(MemMax, RefusedWithoutAWritableCgroup) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0)
    GTEST_SKIP() << "needs root and setpriv to run the coordinator as nobody";
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  const fs::path dir = tmp / "nobody";
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::all);
  const auto rings = shm_rings();
  auto r = run_command("exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + proofpipe() +
                       " run --zkey " + quote(multi_io() / "circuit.zkey") + " --witness-dir " + quote(multi_io()) +
                       " --out " + quote(dir / "out") + " --run-dir " + quote(dir / "run") + " --mem-max 1G");
  if (r.exit_code == 0) GTEST_SKIP() << "nobody can write a memory cgroup here:\n" << r.output;
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(lines_in(r.output), 1u) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: --mem-max needs a writable memory cgroup (", 0), 0u) << r.output;
  EXPECT_TRUE(fs::is_empty(dir)) << "left behind in " << dir;
  EXPECT_TRUE(new_rings(rings).empty());
}

// A SIGKILLed coordinator cannot move out or remove its capped parent; once
// its workers are gone the parent is empty, and the next run removes it.
TEST(MemMax, KilledCoordinatorsParentIsRemovedByTheNextRun) {
  PP_SKIP_UNDER_MEMORY_SANITIZER();
  TempDir tmp;
  const std::string flags = "--zkey " + quote(multi_io() / "circuit.zkey") + " --witness-dir " + quote(multi_io()) +
                            " --mem-max 1G --backend cpu";
  const auto before = run_cgroups();
  const size_t mark = started_mark();
  auto run = std::async(std::launch::async, [&] {
    return pp_run(flags + " --out " + quote(tmp / "out1"), "PROOFPIPE_FAULTS=gpu.mid_compute:delay=500");
  });
  std::string parent;
  for (int i = 0; i < 100 && parent.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& n : run_cgroups()) {
      if (!before.count(n) && n.rfind("proofpipe-coordinator-", 0) != 0 && is_descendant(pid_of_cgroup(n))) parent = n;
    }
  }
  if (parent.empty()) {
    const auto r = run.get();
    if (no_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
    FAIL() << "no run cgroup appeared:\n" << r.output;
  }
  const fs::path dir = own_memory_cgroup() / parent;
  const pid_t coordinator = pid_t(std::stol(parent.substr(std::string("proofpipe-").size())));
  // It is inside its own capped parent (it moves there just after making
  // it: waited for, bounded).
  pid_t member = 0;
  for (int i = 0; i < 100 && member == 0; ++i) {
    std::ifstream procs(dir / "coordinator" / "cgroup.procs");
    if (!(procs >> member)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(member, coordinator);
  ASSERT_EQ(::kill(coordinator, SIGKILL), 0);
  EXPECT_NE(run.get().exit_code, 0);
  EXPECT_TRUE(fs::exists(dir)) << "a SIGKILLed coordinator cannot have removed " << dir;
  // Workers die with it (PR_SET_PDEATHSIG); wait until no leaf holds a process.
  for (int i = 0; i < 100; ++i) {
    bool empty = true;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->path().filename() != "cgroup.procs") continue;
      std::ifstream f(it->path());  // cgroupfs reports size 0: read it
      if (f.peek() != std::ifstream::traits_type::eof()) empty = false;
    }
    if (ec) empty = false;  // a leaf went away under the walk: look again
    if (empty) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto next = pp_run(flags + " --out " + quote(tmp / "out2"));
  ASSERT_EQ(next.exit_code, 0) << next.output;
  EXPECT_FALSE(fs::exists(dir)) << next.output;
  // Nothing of the test's two runs is left (a live run of someone else's,
  // started meanwhile, may have its own).
  EXPECT_EQ(new_own_cgroups(before, mark), std::set<std::string>{});
}

}  // namespace
}  // namespace proofpipe::test
