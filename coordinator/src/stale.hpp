// Leftovers of a coordinator that was killed (SIGKILL, power loss) before it
// could clean up: its shared-memory ring ("/dev/shm/proofpipe-<pid>-<run>-ctl"
// and "-data") and its default run directory ("proofpipe-run-*" holding a
// run.json with its pid). Its workers are gone already (PR_SET_PDEATHSIG);
// its cgroups are cleaned by cgroup.cpp. Every run calls this at start.
#pragma once

#include <filesystem>

namespace proofpipe::coord {

// True when `pid` is a live process named proofpipe (a reused pid of
// another program does not keep a stale ring alive).
bool coordinator_alive(long pid);

// The default parent of run directories: $XDG_RUNTIME_DIR if writable, else
// the temporary directory.
std::filesystem::path default_run_base();

void clean_stale_runs();

// A run directory whose run.json names a coordinator that is gone.
bool is_stale_run_dir(const std::filesystem::path& dir);

}  // namespace proofpipe::coord
