// Stale-run cleanup (stale.hpp).
#include "stale.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <spdlog/spdlog.h>

#include "proofpipe/engine/run_dir.hpp"
#include "proofpipe/shm/ring.hpp"

namespace proofpipe::engine {
namespace fs = std::filesystem;

void clean_stale_runs(const fs::path& shm_dir, const fs::path& run_base) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(shm_dir, ec)) {
    const std::string name = e.path().filename().string();
    const auto ring = shm::parse_ring_name(name);
    if (!ring || coordinator_alive(ring->pid)) continue;
    // Another user's segment (even one named like ours) is never ours to remove.
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    spdlog::info("removing stale shared memory {} (coordinator {} is gone)", e.path().string(), ring->pid);
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

}  // namespace proofpipe::engine
