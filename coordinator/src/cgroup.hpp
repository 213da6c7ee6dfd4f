// Per-worker memory caps with cgroups (docs/design/overview.md §5, docs/design/recovery.md §5):
// a run-level parent cgroup under the coordinator's own, and one leaf per
// worker incarnation with the cap, created before the worker execs and removed
// when it is reaped. Its OOM-kill counter classifies the death; its peak is
// the worker's peak memory.
//
//   v1 (memory controller mounted on its own, as on our build machines):
//     <memory mount>/<our cgroup>/proofpipe-<pid>-<run>/<seat>.<incarnation>/
//       memory.limit_in_bytes (+ memory.memsw.limit_in_bytes), memory.oom_control
//       (oom_kill N), memory.max_usage_in_bytes
//   v2 (unified): /sys/fs/cgroup/<our cgroup>/proofpipe-<pid>-<run>/<leaf>/
//       memory.max, memory.swap.max = 0, memory.oom.group = 1, memory.events
//       (oom_kill N), memory.peak. v2 forbids processes in a cgroup that hands
//       controllers to children, so the coordinator first moves itself into a
//       sibling leaf "proofpipe-coordinator-<pid>".
//   neither writable: a warning, and RLIMIT_AS on synthesis workers only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "proofpipe/common/status.hpp"

namespace proofpipe::coord {

enum class CgroupVersion { kUnavailable, kV1, kV2 };
const char* cgroup_version_name(CgroupVersion v);

class CgroupLeaf {
 public:
  CgroupLeaf(CgroupVersion v, std::filesystem::path dir) : version_(v), dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  // Moves `pid` in (the spawner calls this before the child execs).
  Status add(pid_t pid) const;
  // OOM kills inside this leaf since it was made (fresh per incarnation).
  uint64_t oom_kills() const;
  // The leaf's memory high-water mark (0 where the kernel has no such file).
  uint64_t peak_bytes() const;
  uint64_t usage_bytes() const;
  // Starts a new high-water interval (v1: memory.max_usage_in_bytes := usage).
  // v2's memory.peak resets only per open file: there the peak stays the
  // lifetime peak, which still bounds every interval's.
  void reset_peak() const;
  // rmdir; the leaf must be empty (its worker reaped).
  void remove() const;

 private:
  CgroupVersion version_;
  std::filesystem::path dir_;
};

class CgroupRun {
 public:
  // Finds our memory cgroup, removes stale proofpipe-<pid>-* parents whose
  // coordinator is dead, and creates this run's parent. Never fails: without
  // a writable memory cgroup it returns a kUnavailable run and `why` says why.
  static CgroupRun create(uint64_t run_id, std::string* why);
  CgroupRun(CgroupRun&&) noexcept;
  CgroupRun& operator=(CgroupRun&&) = delete;
  ~CgroupRun();  // removes the run's parent (and any leaf left)

  CgroupVersion version() const { return version_; }
  const std::filesystem::path& dir() const { return dir_; }
  // A leaf named `name` with memory cap `max_bytes` (0: no cap, still a leaf
  // for the peak and OOM figures).
  Result<CgroupLeaf> make_leaf(const std::string& name, uint64_t max_bytes) const;

 private:
  CgroupRun() = default;
  CgroupVersion version_ = CgroupVersion::kUnavailable;
  std::filesystem::path dir_;
};

}  // namespace proofpipe::coord
