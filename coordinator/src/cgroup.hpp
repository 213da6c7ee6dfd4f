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
//
// --mem-max TOTAL (docs/operations.md, "One memory budget"): the parent gets
// the cap (v1 memory.limit_in_bytes and memory.memsw.limit_in_bytes, with
// use_hierarchy so the leaves count; v2 memory.max, memory.swap.max = 0), and
// the coordinator moves itself into the leaf "<parent>/coordinator" so that
// it, and the ring it allocates, count too. At exit it moves back (v1: to its
// own cgroup, v2: to its sibling leaf) before the parent is removed: rmdir of
// a cgroup with a live process fails. A killed coordinator's parent is empty
// once it is gone, and the next run's stale sweep removes it.
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
  // coordinator is dead, and creates this run's parent; with `mem_max` != 0
  // caps it and moves the coordinator into it. Never fails: without a
  // writable memory cgroup (or one that takes the cap) it returns a
  // kUnavailable run, nothing left behind, and `why` says why.
  static CgroupRun create(uint64_t run_id, std::string* why, uint64_t mem_max = 0);
  CgroupRun(CgroupRun&&) noexcept;
  CgroupRun& operator=(CgroupRun&&) = delete;
  ~CgroupRun();  // removes the run's parent (and any leaf left)

  CgroupVersion version() const { return version_; }
  const std::filesystem::path& dir() const { return dir_; }
  // A leaf named `name` with memory cap `max_bytes` (0: no cap, still a leaf
  // for the peak and OOM figures).
  Result<CgroupLeaf> make_leaf(const std::string& name, uint64_t max_bytes) const;

  // --mem-max: the cap on the parent (0: none), the coordinator's own leaf
  // (nullptr without --mem-max), and the parent's figures, which count every
  // process of the run and the ring once: its usage now and its high-water
  // mark since it was made (v1 memory.max_usage_in_bytes, v2 memory.peak;
  // never reset, unlike the leaves').
  uint64_t mem_max() const { return mem_max_; }
  const CgroupLeaf* coordinator_leaf() const { return coordinator_ ? &*coordinator_ : nullptr; }
  uint64_t usage_bytes() const { return CgroupLeaf(version_, dir_).usage_bytes(); }
  uint64_t peak_bytes() const { return CgroupLeaf(version_, dir_).peak_bytes(); }

 private:
  CgroupRun() = default;
  // Moves the coordinator back to `home_` (where it was before the parent's
  // leaf) so the parent can be removed.
  void move_home();

  CgroupVersion version_ = CgroupVersion::kUnavailable;
  std::filesystem::path dir_;
  uint64_t mem_max_ = 0;
  std::optional<CgroupLeaf> coordinator_;  // --mem-max: the coordinator's leaf under dir_
  std::filesystem::path home_;             // the cgroup the coordinator came from
};

}  // namespace proofpipe::coord
