// Run-directory fixtures for the clean-up tests: a pid that is
// certainly not running, a private (0700) folder as proofpipe makes one, and
// a run.json with proofpipe's fields (engine/include/proofpipe/engine/run_dir.hpp).
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace proofpipe::test {

// A child that has exited and been reaped: its pid names no process.
inline long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

inline std::filesystem::path make_private_dir(const std::filesystem::path& p) {
  std::filesystem::create_directories(p);
  std::filesystem::permissions(p, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
  return p;
}

inline void write_run_json(const std::filesystem::path& dir, long pid, uint64_t start_ticks = 12345) {
  std::ofstream(dir / "run.json") << nlohmann::json{{"pid", pid},
                                                    {"pid_start_ticks", start_ticks},
                                                    {"ring", "/proofpipe-1-0000000000000001"},
                                                    {"endpoint", "ipc://" + (dir / "control").string()}}
                                         .dump();
}

}  // namespace proofpipe::test
