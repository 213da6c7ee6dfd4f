// Watching a `proofpipe run` from the outside while it runs: waits for the
// run directory's run.json and maps the run's ring read-write (tests only
// load words and seat records), so a test can sample slot states and find
// the workers' pids in the seat records.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "proofpipe/shm/ring.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {

struct WatchedRun {
  std::string ring_prefix;
  long coordinator_pid = 0;
  shm::Ring ring;
};

// Polls until run.json names a ring that opens, or `stop()` returns true.
template <class Stop>
std::optional<WatchedRun> watch_run(const std::filesystem::path& run_dir, Stop&& stop) {
  while (!stop()) {
    if (std::filesystem::exists(run_dir / "run.json")) {
      try {
        const auto j = read_json(run_dir / "run.json");
        const std::string prefix = j.at("ring");
        if (auto ring = shm::Ring::open(prefix)) return WatchedRun{prefix, j.at("pid").get<long>(), std::move(*ring)};
      } catch (const std::exception&) {  // run.json mid-rename: try again
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::nullopt;
}

}  // namespace proofpipe::test
