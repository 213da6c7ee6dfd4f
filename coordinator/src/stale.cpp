// Stale-run cleanup (stale.hpp).
#include "stale.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "run_dir.hpp"

namespace proofpipe::coord {
namespace fs = std::filesystem;
namespace {

// The coordinator pid of a ring segment named exactly
// "proofpipe-<pid>-<16 hex digits>-ctl" or "-data" (pipeline.cpp's names).
std::optional<long> ring_segment_pid(std::string_view name) {
  constexpr std::string_view kHead = "proofpipe-";
  if (!name.starts_with(kHead)) return std::nullopt;
  name.remove_prefix(kHead.size());
  long pid = 0;
  const auto [pid_end, pid_ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (pid_ec != std::errc() || pid <= 0 || pid_end == name.data() + name.size() || *pid_end != '-') return std::nullopt;
  name.remove_prefix(size_t(pid_end - name.data()) + 1);
  if (name.size() < 17 || name[16] != '-') return std::nullopt;
  uint64_t run = 0;
  const auto [run_end, run_ec] = std::from_chars(name.data(), name.data() + 16, run, 16);
  if (run_ec != std::errc() || run_end != name.data() + 16) return std::nullopt;
  name.remove_prefix(17);
  if (name != "ctl" && name != "data") return std::nullopt;
  return pid;
}

}  // namespace

void clean_stale_runs(const fs::path& shm_dir, const fs::path& run_base) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(shm_dir, ec)) {
    const std::string name = e.path().filename().string();
    const auto pid = ring_segment_pid(name);
    if (!pid || coordinator_alive(*pid)) continue;
    // Another user's segment (even one named like ours) is never ours to remove.
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    spdlog::info("removing stale shared memory {} (coordinator {} is gone)", e.path().string(), *pid);
    ::unlink(e.path().c_str());  // shm_unlink("/<name>") is this unlink on Linux
  }
  for (const auto& e : fs::directory_iterator(run_base, ec)) {
    if (e.path().filename().string().rfind(kRunDirPrefix, 0) != 0) continue;
    const RunDirVerdict v = inspect_run_dir(e.path());
    if (v.kind != RunDirKind::kStale) continue;
    spdlog::info("removing stale run directory {} (its coordinator, {}, is gone)", e.path().string(), v.why);
    remove_run_files(e.path(), true);
  }
}

void clean_stale_runs() { clean_stale_runs("/dev/shm", default_run_base()); }

}  // namespace proofpipe::coord
