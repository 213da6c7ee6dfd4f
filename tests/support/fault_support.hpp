// Shared by the fault suites: a run over copies of the multi_io witnesses
// (or another fixture's, e.g. multi_io_bn128: `from`)
// (any number of partitions, named p00, p01, ...), its summary, and the
// checks every fault test ends with: each proof verifies, each is written
// exactly once, nothing is left in /dev/shm or the cgroup tree.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {

inline std::filesystem::path multi_io() { return data_dir() / "multi_io"; }

// `count` witnesses in dir/witnesses: copies of w00..w11, cycling.
inline std::filesystem::path make_witness_dir(const std::filesystem::path& dir, int count,
                                              const std::filesystem::path& from = multi_io()) {
  const auto wdir = dir / "witnesses";
  std::filesystem::create_directories(wdir);
  for (int i = 0; i < count; ++i) {
    std::filesystem::copy_file(from / fmt::format("w{:02}.wtns", i % 12), wdir / fmt::format("p{:02}.wtns", i));
  }
  return wdir;
}

inline std::string run_flags(const std::filesystem::path& wdir, const std::filesystem::path& out,
                             const std::filesystem::path& run_dir, const std::filesystem::path& from = multi_io()) {
  return "--zkey " + quote(from / "circuit.zkey") + " --witness-dir " + quote(wdir) + " --out " + quote(out) +
         " --run-dir " + quote(run_dir);
}

// Every partition proved and verified by `proofpipe verify`, written once
// (two files each plus summary.json, no temporaries).
inline void expect_all_proved(const std::filesystem::path& out, int count,
                              const std::filesystem::path& from = multi_io()) {
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["proved"], count);
  EXPECT_TRUE(summary["failed"].empty()) << summary["failed"].dump();
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out)) files += e.is_regular_file();
  EXPECT_EQ(files, size_t(2 * count + 1));
  for (int i = 0; i < count; ++i) {
    const std::string stem = fmt::format("p{:02}", i);
    auto r = pp_verify(from / "verification_key.json", out / (stem + ".public.json"), out / (stem + ".proof.json"));
    EXPECT_EQ(r.exit_code, 0) << stem << ": " << r.output;
  }
}

// A run's output says its workers' caps are cgroups (else the OOM tests skip).
inline bool has_writable_cgroup(const std::string& run_output) {
  return run_output.find("(cgroup v1)") != std::string::npos || run_output.find("(cgroup v2") != std::string::npos;
}

// cgroup directories a coordinator with this pid would have made. Another
// proofpipe on the host removes its own cgroups while this walks the tree:
// a directory that vanishes under the walk starts it again (a few times),
// rather than throwing out of the test.
inline std::set<std::string> cgroup_dirs_of(long coordinator_pid) {
  namespace fs = std::filesystem;
  const std::string prefix = fmt::format("proofpipe-{}-", coordinator_pid);
  std::set<std::string> found;
  for (int walk = 0; walk < 5; ++walk) {
    found.clear();
    std::error_code ec;
    auto it =
        fs::recursive_directory_iterator("/sys/fs/cgroup/memory", fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename().string().rfind(prefix, 0) == 0) found.insert(it->path().string());
    }
    if (!ec) break;
  }
  return found;
}

}  // namespace proofpipe::test
