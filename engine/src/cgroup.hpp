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
//   v2 (unified, docs/operations.md "cgroup v2"), only under a cgroup
//   delegated to us (cgroup_fs.hpp), in the order the kernel accepts:
//     1. mkdir <own>/proofpipe-<pid>-<run>/ and its leaf coordinator/, and
//        move the coordinator into that leaf: a cgroup that enables
//        controllers for its children may hold no process itself;
//     2. "+memory" (and "+pids" where offered) into <own>/cgroup.subtree_control,
//        then into <run>/cgroup.subtree_control (top-down);
//     3. per worker incarnation a leaf <run>/<seat>.<incarnation>/ with
//        memory.max and memory.swap.max = 0 (when capped) and
//        memory.oom.group left 0 (an OOM kill takes the generator, not the worker);
//     OOM kills from memory.events (oom_kill, oom_group_kill), peaks from
//     memory.peak (Linux >= 5.19) or else the largest memory.current the
//     sampler saw; a leaf is removed once cgroup.events says "populated 0"
//     (bounded wait, then a warning). At the end the coordinator moves to
//     <own> if no controller is enabled there, else to a sibling leaf
//     <own>/proofpipe-coordinator-<pid> (which the next run sweeps).
//   neither writable: a warning, and RLIMIT_AS on synthesis workers only.
//
// --mem-max TOTAL (docs/operations.md, "One memory budget"): the parent gets
// the cap (v1 memory.limit_in_bytes and memory.memsw.limit_in_bytes, with
// use_hierarchy so the leaves count; v2 memory.max, memory.swap.max = 0), and
// the coordinator moves itself into the leaf "<parent>/coordinator" so that
// it, and the ring it allocates, count too (v2: it is there already). At exit
// it moves back (v1: to its own cgroup, v2: see above) before the parent is
// removed: rmdir of a cgroup with a live process fails. A killed coordinator's parent is empty
// once it is gone, and the next run's stale sweep removes it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "proofpipe/common/status.hpp"

namespace proofpipe::engine {

enum class CgroupVersion { kUnavailable, kV1, kV2 };
const char* cgroup_version_name(CgroupVersion v);

class CgroupFs;
struct CgroupEnv;

// How long removing a v2 leaf waits for "populated 0" (cgroup_fs.hpp, CgroupEnv).
inline constexpr int kPopulatedWaitMs = 2000;

class CgroupLeaf {
 public:
  // `fs` nullptr: the real files. `populated_wait_ms`: remove()'s bound (v2).
  CgroupLeaf(CgroupVersion v, std::filesystem::path dir, CgroupFs* fs = nullptr,
             int populated_wait_ms = kPopulatedWaitMs);
  const std::filesystem::path& dir() const { return dir_; }
  // Moves `pid` in (the spawner calls this before the child execs).
  Status add(pid_t pid) const;
  // OOM kills inside this leaf since it was made (fresh per incarnation; v2:
  // the larger of memory.events' oom_kill and oom_group_kill, less their
  // values when the leaf was made).
  uint64_t oom_kills() const;
  // The leaf's memory high-water mark: v1 memory.max_usage_in_bytes, v2
  // memory.peak, or where that is missing (Linux < 5.19) the largest
  // memory.current read through this leaf (or a copy of it) so far.
  uint64_t peak_bytes() const;
  uint64_t usage_bytes() const;
  bool peak_sampled() const;  // v2 without memory.peak
  // Starts a new high-water interval (v1: memory.max_usage_in_bytes := usage).
  // v2's memory.peak resets only per open file: there the peak stays the
  // lifetime peak, which still bounds every interval's.
  void reset_peak() const;
  // rmdir; the leaf must be empty (its worker reaped). v2 first waits for
  // cgroup.events "populated 0" (bounded; then a warning and rmdir anyway).
  void remove() const;

 private:
  struct Shared {
    uint64_t oom_base = 0;
    bool has_peak = false;
    std::atomic<uint64_t> sampled_peak{0};
  };
  uint64_t oom_count() const;
  CgroupVersion version_;
  std::filesystem::path dir_;
  CgroupFs* fs_;
  int populated_wait_ms_;
  std::shared_ptr<Shared> shared_;  // copies (the spawner's) see the same sampled peak
};

class CgroupRun {
 public:
  // Finds our memory cgroup, removes stale proofpipe-<pid>-* parents whose
  // coordinator is dead, and creates this run's parent; with `mem_max` != 0
  // caps it and moves the coordinator into it. Never fails: without a
  // writable memory cgroup (or one that takes the cap) it returns a
  // kUnavailable run, nothing left behind, and `why` says why.
  // `env` nullptr: this process and the real files (CgroupEnv::system()).
  static CgroupRun create(uint64_t run_id, std::string* why, uint64_t mem_max = 0, const CgroupEnv* env = nullptr);
  CgroupRun(CgroupRun&&) noexcept;
  CgroupRun& operator=(CgroupRun&&) = delete;
  ~CgroupRun();  // removes the run's parent (and any leaf left)

  CgroupVersion version() const { return version_; }
  const std::filesystem::path& dir() const { return dir_; }
  // For the start line: "cgroup v1", "cgroup v2, peaks from memory.peak",
  // "cgroup v2, peaks sampled from memory.current".
  std::string describe() const;
  // A leaf named `name` with memory cap `max_bytes` (0: no cap, still a leaf
  // for the peak and OOM figures).
  Result<CgroupLeaf> make_leaf(const std::string& name, uint64_t max_bytes) const;

  // --mem-max: the cap on the parent (0: none), the coordinator's own leaf
  // (nullptr without --mem-max), and the parent's figures, which count every
  // process of the run and the ring once: its usage now and its high-water
  // mark since it was made (v1 memory.max_usage_in_bytes, v2 memory.peak or
  // sampled; never reset, unlike the leaves'). v2 has the coordinator's leaf
  // without --mem-max too.
  uint64_t mem_max() const { return mem_max_; }
  const CgroupLeaf* coordinator_leaf() const { return coordinator_ ? &*coordinator_ : nullptr; }
  uint64_t usage_bytes() const { return parent_ ? parent_->usage_bytes() : 0; }
  uint64_t peak_bytes() const { return parent_ ? parent_->peak_bytes() : 0; }

 private:
  CgroupRun() = default;
  Status setup_v2(const std::filesystem::path& own, bool pids);
  // Moves the coordinator out of its leaf (v1: back to `home_`; v2: see
  // above) so the parent can be removed.
  void move_home();
  // move_home, the run's tree removed, and back to kUnavailable.
  void tear_down();

  CgroupVersion version_ = CgroupVersion::kUnavailable;
  std::filesystem::path dir_;
  uint64_t mem_max_ = 0;
  CgroupFs* fs_ = nullptr;
  int populated_wait_ms_ = kPopulatedWaitMs;
  pid_t self_ = 0;
  std::optional<CgroupLeaf> parent_;       // dir_ itself, for its figures
  std::optional<CgroupLeaf> coordinator_;  // the coordinator's leaf under dir_ (v1: --mem-max only)
  std::filesystem::path home_;             // v1: the cgroup the coordinator came from; v2: <own>
};

}  // namespace proofpipe::engine
