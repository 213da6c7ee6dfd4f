// A process's memory as procfs tells it, for the sampler: resident set, its
// shared-memory part (ring pages it touched), and the high-water mark, which
// can be reset so that each sample reports the peak since the previous one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace proofpipe::coord {

struct ProcMemory {
  uint64_t rss = 0;        // VmRSS
  uint64_t rss_shmem = 0;  // RssShmem (part of VmRSS)
  uint64_t hwm = 0;        // VmHWM: peak RSS since start or the last reset
};

// nullopt when the process is gone.
std::optional<ProcMemory> read_proc_memory(pid_t pid);

// Resets VmHWM to the current RSS (writes 5 to /proc/<pid>/clear_refs).
void reset_proc_hwm(pid_t pid);

}  // namespace proofpipe::coord
