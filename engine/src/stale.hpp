// Leftovers of a coordinator that was killed (SIGKILL, power loss) before it
// could clean up: its shared-memory ring ("/dev/shm/proofpipe-<pid>-<run>-ctl"
// and "-data") and its default run directory ("proofpipe-run-*" holding a
// run.json with its pid). Its workers are gone already (PR_SET_PDEATHSIG);
// its cgroups are cleaned by cgroup.cpp. Every run calls this at start.
// Only what this user owns and proofpipe provably made is removed: run
// directories by run_dir.hpp's rule, segments by their exact name.
#pragma once

#include <filesystem>

namespace proofpipe::engine {

// Removes stale rings under `shm_dir` and stale run directories under
// `run_base` (defaults: /dev/shm and default_run_base()).
void clean_stale_runs(const std::filesystem::path& shm_dir, const std::filesystem::path& run_base);
void clean_stale_runs();

}  // namespace proofpipe::engine
