// Stale-run cleanup (stale.hpp).
#include "stale.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace proofpipe::coord {
namespace fs = std::filesystem;

bool coordinator_alive(long pid) {
  if (pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno != EPERM)) return false;
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return !(comm >> name) || name == "proofpipe";
}

fs::path default_run_base() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  return (xdg && ::access(xdg, W_OK) == 0) ? fs::path(xdg) : fs::temp_directory_path();
}

bool is_stale_run_dir(const fs::path& dir) {
  try {
    std::ifstream f(dir / "run.json");
    return !coordinator_alive(nlohmann::json::parse(f).at("pid").get<long>());
  } catch (const std::exception&) {
    return false;  // no run.json: not ours, or being written
  }
}

void clean_stale_runs() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
    const std::string name = e.path().filename().string();
    long pid = 0;
    unsigned long long run = 0;
    char tail[8] = {};
    if (std::sscanf(name.c_str(), "proofpipe-%ld-%16llx-%7s", &pid, &run, tail) != 3) continue;
    if (coordinator_alive(pid)) continue;
    spdlog::info("removing stale shared memory /dev/shm/{} (coordinator {} is gone)", name, pid);
    ::shm_unlink(("/" + name).c_str());
  }
  for (const auto& e : fs::directory_iterator(default_run_base(), ec)) {
    if (e.path().filename().string().rfind("proofpipe-run-", 0) != 0) continue;
    if (!is_stale_run_dir(e.path())) continue;
    spdlog::info("removing stale run directory {} (its coordinator is gone)", e.path().string());
    fs::remove_all(e.path(), ec);
  }
}

}  // namespace proofpipe::coord
