// cgroup v1/v2 memory caps (cgroup.hpp).
#include "cgroup.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cgroup_fs.hpp"

namespace proofpipe::engine {
namespace fs = std::filesystem;
namespace {

CgroupFs& fs_or_real(CgroupFs* fs) { return fs != nullptr ? *fs : real_cgroup_fs(); }

uint64_t number_file(const CgroupFs& cfs, const fs::path& file) {
  auto text = cfs.read(file);
  if (!text) return 0;
  try {
    return std::stoull(*text);
  } catch (...) {
    return 0;  // "max"
  }
}

bool pid_alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// Every leaf (v2: once its cgroup.events says "populated 0"), then the
// directory itself. Leaves of dead workers are empty; one still populated
// after the wait makes rmdir fail, which is logged and left for the next
// start.
void remove_tree(CgroupVersion version, CgroupFs& cfs, const fs::path& dir, int wait_ms) {
  for (const auto& name : cfs.children(dir)) CgroupLeaf(version, dir / name, &cfs, wait_ms).remove();
  if (Status st = cfs.remove_dir(dir); !st) spdlog::warn("{}", st.message());
}

void clean_stale(CgroupVersion version, CgroupFs& cfs, const fs::path& own, int wait_ms) {
  for (const auto& name : cfs.children(own)) {
    pid_t pid = 0;
    // A run's parent, or (v2) the leaf a coordinator moved to at its end.
    if (std::sscanf(name.c_str(), "proofpipe-%d-", &pid) != 1 &&
        std::sscanf(name.c_str(), "proofpipe-coordinator-%d", &pid) != 1)
      continue;
    if (pid_alive(pid)) continue;
    spdlog::info("removing stale cgroup {} (coordinator {} is gone)", (own / name).string(), pid);
    remove_tree(version, cfs, own / name, wait_ms);
  }
}

// A memory cap on `dir`: v1 memory.limit_in_bytes, and memsw (memory +
// swap) where the kernel accounts swap, so nothing escapes to swap; v2
// memory.max and memory.swap.max = 0.
Status write_cap(CgroupVersion version, CgroupFs& cfs, const fs::path& dir, uint64_t bytes) {
  const std::string text = std::to_string(bytes);
  if (version == CgroupVersion::kV1) {
    PP_RETURN_IF_ERROR(cfs.write(dir / "memory.limit_in_bytes", text));
    if (cfs.exists(dir / "memory.memsw.limit_in_bytes"))
      PP_RETURN_IF_ERROR(cfs.write(dir / "memory.memsw.limit_in_bytes", text));
    return Status::ok();
  }
  PP_RETURN_IF_ERROR(cfs.write(dir / "memory.max", text));
  // Absent without swap accounting (CONFIG_MEMCG_SWAP off, or swapaccount=0).
  if (cfs.exists(dir / "memory.swap.max")) PP_RETURN_IF_ERROR(cfs.write(dir / "memory.swap.max", "0"));
  return Status::ok();
}

// --mem-max on a fresh parent `dir`: the cap, counted over the whole subtree.
Status cap_parent(CgroupVersion version, CgroupFs& cfs, const fs::path& dir, uint64_t mem_max) {
  // v1 counts the leaves into the parent only with use_hierarchy (always on
  // since Linux 5.x; settable only while the parent has no children).
  const fs::path hier = dir / "memory.use_hierarchy";
  if (version == CgroupVersion::kV1 && cfs.exists(hier) && number_file(cfs, hier) != 1) {
    PP_RETURN_IF_ERROR(cfs.write(hier, "1"));
  }
  return write_cap(version, cfs, dir, mem_max);
}

bool has_word(const CgroupFs& cfs, const fs::path& file, const std::string& word) {
  for (const auto& w : cgroup_words(cfs.read(file).value_or(""))) {
    if (w == word) return true;
  }
  return false;
}

// "+memory" (and "+pids") into `dir`'s cgroup.subtree_control, each only
// where not enabled yet: the kernel refuses it (EBUSY) while `dir` itself
// holds a process, so the coordinator has left by now.
Status enable_controllers(CgroupFs& cfs, const fs::path& dir, bool pids) {
  const fs::path control = dir / "cgroup.subtree_control";
  if (!has_word(cfs, control, "memory")) PP_RETURN_IF_ERROR(cfs.write(control, "+memory"));
  // pids only bounds a fork bomb: its absence costs nothing the run needs.
  if (pids && !has_word(cfs, control, "pids")) {
    if (Status st = cfs.write(control, "+pids"); !st) spdlog::debug("pids controller not enabled: {}", st.message());
  }
  return Status::ok();
}

}  // namespace

const char* cgroup_version_name(CgroupVersion v) {
  switch (v) {
    case CgroupVersion::kV1: return "cgroup v1";
    case CgroupVersion::kV2: return "cgroup v2";
    case CgroupVersion::kUnavailable: return "no cgroup";
  }
  return "?";
}

CgroupLeaf::CgroupLeaf(CgroupVersion v, fs::path dir, CgroupFs* fs, int populated_wait_ms)
    : version_(v),
      dir_(std::move(dir)),
      fs_(&fs_or_real(fs)),
      populated_wait_ms_(populated_wait_ms),
      shared_(std::make_shared<Shared>()) {
  if (version_ == CgroupVersion::kV2) {
    shared_->has_peak = fs_->exists(dir_ / "memory.peak");
    shared_->oom_base = oom_count();
  }
}

Status CgroupLeaf::add(pid_t pid) const { return fs_->write(dir_ / "cgroup.procs", std::to_string(pid)); }

uint64_t CgroupLeaf::oom_count() const {
  if (version_ == CgroupVersion::kV1) {
    return cgroup_keyed_value(fs_->read(dir_ / "memory.oom_control").value_or(""), "oom_kill");
  }
  // oom_kill counts the processes killed, oom_group_kill (Linux >= 5.19)
  // the group kills memory.oom.group made: either rising is an OOM kill.
  const std::string events = fs_->read(dir_ / "memory.events").value_or("");
  return std::max(cgroup_keyed_value(events, "oom_kill"), cgroup_keyed_value(events, "oom_group_kill"));
}

uint64_t CgroupLeaf::oom_kills() const {
  const uint64_t n = oom_count();
  return n > shared_->oom_base ? n - shared_->oom_base : 0;
}

uint64_t CgroupLeaf::usage_bytes() const {
  const uint64_t usage =
      number_file(*fs_, dir_ / (version_ == CgroupVersion::kV1 ? "memory.usage_in_bytes" : "memory.current"));
  if (peak_sampled()) {
    uint64_t seen = shared_->sampled_peak.load();
    while (usage > seen && !shared_->sampled_peak.compare_exchange_weak(seen, usage)) {
    }
  }
  return usage;
}

uint64_t CgroupLeaf::peak_bytes() const {
  if (version_ == CgroupVersion::kV1) return number_file(*fs_, dir_ / "memory.max_usage_in_bytes");
  if (!peak_sampled()) return number_file(*fs_, dir_ / "memory.peak");
  (void)usage_bytes();  // this read is a sample too
  return shared_->sampled_peak.load();
}

bool CgroupLeaf::peak_sampled() const { return version_ == CgroupVersion::kV2 && !shared_->has_peak; }

void CgroupLeaf::reset_peak() const {
  if (version_ == CgroupVersion::kV1) (void)fs_->write(dir_ / "memory.max_usage_in_bytes", "0");
}

void CgroupLeaf::remove() const {
  // Whatever the reaped worker left in its leaf (a witness generator's own
  // children that left its process group, which PR_SET_PDEATHSIG does not
  // reach, when the worker was killed before it could kill them) is killed:
  // v2 by cgroup.kill (Linux >= 5.14), else (v1, older v2) one by one from
  // cgroup.procs.
  if (version_ == CgroupVersion::kV2 && fs_->exists(dir_ / "cgroup.kill")) {
    (void)fs_->write(dir_ / "cgroup.kill", "1");
  } else if (!fs_->kill_members(dir_, populated_wait_ms_)) {
    spdlog::warn("cgroup {}: processes left after {} ms of SIGKILL", dir_.string(), populated_wait_ms_);
  }
  if (version_ == CgroupVersion::kV2 && fs_->exists(dir_ / "cgroup.events")) {
    // The reaped worker may still be counted for a moment (and an OOM group
    // kill may still be taking down its children): rmdir would say EBUSY.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(populated_wait_ms_);
    while (cgroup_keyed_value(fs_->read(dir_ / "cgroup.events").value_or(""), "populated") != 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        spdlog::warn("cgroup {} still populated after {} ms; removing it anyway", dir_.string(), populated_wait_ms_);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  if (Status st = fs_->remove_dir(dir_); !st) spdlog::warn("{}", st.message());
}

std::string CgroupRun::describe() const {
  if (version_ != CgroupVersion::kV2 || !parent_) return cgroup_version_name(version_);
  return parent_->peak_sampled() ? "cgroup v2, peaks sampled from memory.current" : "cgroup v2, peaks from memory.peak";
}

CgroupRun CgroupRun::create(uint64_t run_id, std::string* why, uint64_t mem_max, const CgroupEnv* env_in) {
  CgroupRun run;
  const CgroupEnv env = env_in != nullptr ? *env_in : CgroupEnv::system();
  const CgroupProbe probe = probe_cgroups(env);
  if (probe.version == CgroupVersion::kUnavailable || !probe.usable()) {
    *why = probe.version == CgroupVersion::kUnavailable ? "no memory cgroup controller found in /proc/self/cgroup"
                                                        : probe.why;
    return run;
  }
  CgroupFs& cfs = *env.fs;
  run.fs_ = &cfs;
  run.populated_wait_ms_ = env.populated_wait_ms;
  run.self_ = env.self;
  clean_stale(probe.version, cfs, probe.own, env.populated_wait_ms);
  const fs::path dir = probe.own / fmt::format("proofpipe-{}-{:016x}", env.self, run_id);
  if (Status st = cfs.make_dir(dir); !st) {
    *why = st.message();
    return run;
  }
  run.version_ = probe.version;
  run.dir_ = dir;
  run.home_ = probe.own;
  Status st = probe.version == CgroupVersion::kV2 ? run.setup_v2(probe.own, probe.pids) : Status::ok();
  if (st) run.parent_.emplace(run.version_, dir, &cfs, run.populated_wait_ms_);
  if (st && mem_max != 0) {
    // The cap, then (v1) the coordinator into its leaf: from here on what it
    // allocates (the ring first) is charged inside the cap. What it allocated
    // before stays charged where it was (charges never move with a process).
    st = cap_parent(run.version_, cfs, dir, mem_max);
    if (st && !run.coordinator_) {
      auto leaf = run.make_leaf("coordinator", 0);
      if (leaf) {
        run.coordinator_.emplace(std::move(*leaf));
        st = run.coordinator_->add(env.self);
      } else {
        st = leaf.status();
      }
    }
  }
  if (!st) {
    *why = st.message();
    run.tear_down();
    return run;
  }
  run.mem_max_ = mem_max;
  return run;
}

// Steps 1 and 2 of cgroup.hpp's v2 order; the run's directory exists.
Status CgroupRun::setup_v2(const fs::path& own, bool pids) {
  PP_RETURN_IF_ERROR(fs_->make_dir(dir_ / "coordinator"));
  coordinator_.emplace(version_, dir_ / "coordinator", fs_, populated_wait_ms_);
  PP_RETURN_IF_ERROR(coordinator_->add(self_));
  PP_RETURN_IF_ERROR(enable_controllers(*fs_, own, pids));
  // +pids in the run only where <own> now hands it down.
  return enable_controllers(*fs_, dir_, pids && has_word(*fs_, own / "cgroup.subtree_control", "pids"));
}

CgroupRun::CgroupRun(CgroupRun&& o) noexcept
    : version_(o.version_),
      dir_(std::move(o.dir_)),
      mem_max_(o.mem_max_),
      fs_(o.fs_),
      populated_wait_ms_(o.populated_wait_ms_),
      self_(o.self_),
      parent_(std::move(o.parent_)),
      coordinator_(std::move(o.coordinator_)),
      home_(std::move(o.home_)) {
  o.version_ = CgroupVersion::kUnavailable;
  o.dir_.clear();
  o.parent_.reset();
  o.coordinator_.reset();
}

CgroupRun::~CgroupRun() {
  if (version_ == CgroupVersion::kUnavailable || dir_.empty()) return;
  move_home();
  remove_tree(version_, *fs_, dir_, populated_wait_ms_);
}

void CgroupRun::tear_down() {
  if (!dir_.empty()) {
    move_home();
    remove_tree(version_, *fs_, dir_, populated_wait_ms_);
  }
  version_ = CgroupVersion::kUnavailable;
  dir_.clear();
  parent_.reset();
  coordinator_.reset();
}

void CgroupRun::move_home() {
  if (!coordinator_) return;
  fs::path to = home_;
  // v2: a cgroup that hands controllers down may hold no process (EBUSY):
  // then a sibling leaf of the run takes the coordinator for its last moments.
  if (version_ == CgroupVersion::kV2 &&
      !cgroup_words(fs_->read(home_ / "cgroup.subtree_control").value_or("")).empty()) {
    to = home_ / fmt::format("proofpipe-coordinator-{}", self_);
    if (Status st = fs_->make_dir(to); !st && !fs_->exists(to)) {
      spdlog::warn("cannot move the coordinator out of {}: {}", coordinator_->dir().string(), st.message());
      return;
    }
  }
  if (Status st = fs_->write(to / "cgroup.procs", std::to_string(self_)); !st) {
    spdlog::warn("cannot move the coordinator out of {}: {}", coordinator_->dir().string(), st.message());
  }
}

Result<CgroupLeaf> CgroupRun::make_leaf(const std::string& name, uint64_t max_bytes) const {
  const fs::path dir = dir_ / name;
  PP_RETURN_IF_ERROR(fs_->make_dir(dir));
  CgroupLeaf leaf(version_, dir, fs_, populated_wait_ms_);
  Status st = max_bytes != 0 ? write_cap(version_, *fs_, dir, max_bytes) : Status::ok();
  // v2: memory.oom.group stays 0, so an OOM kill takes one process, the
  // kernel's choice: a synthesis worker's witness generator runs with
  // oom_score_adj 1000 (witness_gen/generator.hpp) and is that choice, so the
  // worker survives its generator's OOM and reports it (a group kill would
  // take the worker too, and charge a process start to every poison input).
  // The generator's own children die with it or when the leaf is removed.
  if (!st) {
    leaf.remove();
    return st;
  }
  return leaf;
}

}  // namespace proofpipe::engine
