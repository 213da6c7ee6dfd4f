// A process as procfs tells it. For the sampler: resident set, its
// shared-memory part (ring pages it touched), and the high-water mark, which
// can be reset so that each sample reports the peak since the previous one.
// For stale-run recognition (run_dir.hpp): the name and start time, which
// together tell a live coordinator from another program that reused its pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace proofpipe::engine {

struct ProcMemory {
  uint64_t rss = 0;        // VmRSS
  uint64_t rss_shmem = 0;  // RssShmem (part of VmRSS)
  uint64_t hwm = 0;        // VmHWM: peak RSS since start or the last reset
};

// nullopt when the process is gone.
std::optional<ProcMemory> read_proc_memory(pid_t pid);

// Resets VmHWM to the current RSS (writes 5 to /proc/<pid>/clear_refs).
void reset_proc_hwm(pid_t pid);

// /proc/<pid>/comm without the newline; nullopt when unreadable.
std::optional<std::string> read_proc_comm(pid_t pid);

// When the process started, in clock ticks after boot (/proc/<pid>/stat field
// 22); nullopt when the process is gone. A pid reused by a later process has
// a later start time.
std::optional<uint64_t> read_proc_start_ticks(pid_t pid);

}  // namespace proofpipe::engine
