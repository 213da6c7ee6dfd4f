// cgroup v1/v2 memory caps (cgroup.hpp).
#include "cgroup.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <linux/magic.h>
#include <spdlog/spdlog.h>

namespace proofpipe::coord {
namespace fs = std::filesystem;
namespace {

Status write_file(const fs::path& file, const std::string& value) {
  std::ofstream f(file);
  f << value;
  f.flush();
  if (!f) return make_error(ErrorCode::kIo, "cannot write '{}' to {}", value, file.string());
  return Status::ok();
}

std::optional<std::string> read_file(const fs::path& file) {
  std::ifstream f(file);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// "key value" lines (memory.events, memory.oom_control): the value of `key`.
uint64_t keyed_value(const fs::path& file, const std::string& key) {
  auto text = read_file(file);
  if (!text) return 0;
  std::istringstream in(*text);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

uint64_t number_file(const fs::path& file) {
  auto text = read_file(file);
  if (!text) return 0;
  try {
    return std::stoull(*text);
  } catch (...) {
    return 0;  // "max"
  }
}

bool is_cgroup2(const fs::path& p) {
  struct statfs st {};
  return ::statfs(p.c_str(), &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC;
}

// Our memory cgroup directory: the v1 "memory" controller line of
// /proc/self/cgroup under /sys/fs/cgroup/memory, else the v2 "0::" line
// under a cgroup2 /sys/fs/cgroup.
std::pair<CgroupVersion, fs::path> own_memory_cgroup() {
  auto text = read_file("/proc/self/cgroup");
  if (!text) return {CgroupVersion::kUnavailable, {}};
  std::istringstream in(*text);
  std::string line, v2_path;
  while (std::getline(in, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::istringstream cs(controllers);
    for (std::string c; std::getline(cs, c, ',');) {
      if (c == "memory" && fs::exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
        return {CgroupVersion::kV1, fs::path("/sys/fs/cgroup/memory") / fs::path(path).relative_path()};
      }
    }
    if (line.rfind("0::", 0) == 0) v2_path = path;
  }
  if (!v2_path.empty() && is_cgroup2("/sys/fs/cgroup")) {
    return {CgroupVersion::kV2, fs::path("/sys/fs/cgroup") / fs::path(v2_path).relative_path()};
  }
  return {CgroupVersion::kUnavailable, {}};
}

bool pid_alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// rmdir every leaf, then the directory itself. Leaves of dead workers are
// empty; a populated one (cannot happen after a reap) makes rmdir fail,
// which is logged and left for the next start.
void remove_tree(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && ::rmdir(e.path().c_str()) != 0) {
      spdlog::warn("cannot remove cgroup {}: {}", e.path().string(), std::strerror(errno));
    }
  }
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("cannot remove cgroup {}: {}", dir.string(), std::strerror(errno));
  }
}

void clean_stale(const fs::path& own) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(own, ec)) {
    const std::string name = e.path().filename().string();
    pid_t pid = 0;
    // A run's parent, or (v2) the leaf its coordinator moved itself into.
    if (std::sscanf(name.c_str(), "proofpipe-%d-", &pid) != 1 &&
        std::sscanf(name.c_str(), "proofpipe-coordinator-%d", &pid) != 1)
      continue;
    if (pid_alive(pid)) continue;
    spdlog::info("removing stale cgroup {} (coordinator {} is gone)", e.path().string(), pid);
    remove_tree(e.path());
  }
}

// A memory cap on `dir`: v1 memory.limit_in_bytes, and memsw (memory +
// swap) where the kernel accounts swap, so nothing escapes to swap; v2
// memory.max and memory.swap.max = 0.
Status write_cap(CgroupVersion version, const fs::path& dir, uint64_t bytes) {
  const std::string text = std::to_string(bytes);
  if (version == CgroupVersion::kV1) {
    PP_RETURN_IF_ERROR(write_file(dir / "memory.limit_in_bytes", text));
    if (fs::exists(dir / "memory.memsw.limit_in_bytes"))
      PP_RETURN_IF_ERROR(write_file(dir / "memory.memsw.limit_in_bytes", text));
    return Status::ok();
  }
  PP_RETURN_IF_ERROR(write_file(dir / "memory.max", text));
  if (fs::exists(dir / "memory.swap.max")) PP_RETURN_IF_ERROR(write_file(dir / "memory.swap.max", "0"));
  return Status::ok();
}

// --mem-max on a fresh parent `dir`: the cap, counted over the whole subtree.
Status cap_parent(CgroupVersion version, const fs::path& dir, uint64_t mem_max) {
  // v1 counts the leaves into the parent only with use_hierarchy (always on
  // since Linux 5.x; settable only while the parent has no children).
  const fs::path hier = dir / "memory.use_hierarchy";
  if (version == CgroupVersion::kV1 && fs::exists(hier) && number_file(hier) != 1) {
    PP_RETURN_IF_ERROR(write_file(hier, "1"));
  }
  return write_cap(version, dir, mem_max);
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

Status CgroupLeaf::add(pid_t pid) const { return write_file(dir_ / "cgroup.procs", std::to_string(pid)); }

uint64_t CgroupLeaf::oom_kills() const {
  return version_ == CgroupVersion::kV1 ? keyed_value(dir_ / "memory.oom_control", "oom_kill")
                                        : keyed_value(dir_ / "memory.events", "oom_kill");
}

uint64_t CgroupLeaf::peak_bytes() const {
  return number_file(dir_ / (version_ == CgroupVersion::kV1 ? "memory.max_usage_in_bytes" : "memory.peak"));
}

uint64_t CgroupLeaf::usage_bytes() const {
  return number_file(dir_ / (version_ == CgroupVersion::kV1 ? "memory.usage_in_bytes" : "memory.current"));
}

void CgroupLeaf::reset_peak() const {
  if (version_ == CgroupVersion::kV1) (void)write_file(dir_ / "memory.max_usage_in_bytes", "0");
}

void CgroupLeaf::remove() const {
  if (::rmdir(dir_.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("cannot remove cgroup {}: {}", dir_.string(), std::strerror(errno));
  }
}

CgroupRun CgroupRun::create(uint64_t run_id, std::string* why, uint64_t mem_max) {
  CgroupRun run;
  auto [version, own] = own_memory_cgroup();
  if (version == CgroupVersion::kUnavailable) {
    *why = "no memory cgroup controller found in /proc/self/cgroup";
    return run;
  }
  clean_stale(own);
  fs::path home = own;
  if (version == CgroupVersion::kV2) {
    // No internal processes: move ourselves into a leaf, then delegate memory.
    home = own / fmt::format("proofpipe-coordinator-{}", ::getpid());
    if (::mkdir(home.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = fmt::format("cannot create cgroup {}: {}", home.string(), std::strerror(errno));
      return run;
    }
    if (!write_file(home / "cgroup.procs", "0") || !write_file(own / "cgroup.subtree_control", "+memory")) {
      *why = fmt::format("cannot delegate the memory controller below {}", own.string());
      return run;
    }
  }
  const fs::path dir = own / fmt::format("proofpipe-{}-{:016x}", ::getpid(), run_id);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    *why = fmt::format("cannot create cgroup {}: {}", dir.string(), std::strerror(errno));
    return run;
  }
  if (version == CgroupVersion::kV2 && !write_file(dir / "cgroup.subtree_control", "+memory")) {
    *why = fmt::format("cannot enable the memory controller in {}", dir.string());
    ::rmdir(dir.c_str());
    return run;
  }
  run.version_ = version;
  run.dir_ = dir;
  run.home_ = home;
  if (mem_max == 0) return run;
  // The cap, then the coordinator into its leaf: from here on what it
  // allocates (the ring first) is charged inside the cap. What it allocated
  // before stays charged where it was (charges never move with a process).
  Status st = cap_parent(version, dir, mem_max);
  if (st) {
    auto leaf = run.make_leaf("coordinator", 0);
    if (leaf) {
      run.coordinator_.emplace(std::move(*leaf));
      st = run.coordinator_->add(::getpid());
    } else {
      st = leaf.status();
    }
  }
  if (!st) {
    *why = st.message();
    run.move_home();
    remove_tree(dir);
    run.version_ = CgroupVersion::kUnavailable;
    run.dir_.clear();
    run.coordinator_.reset();
    return run;
  }
  run.mem_max_ = mem_max;
  return run;
}

CgroupRun::CgroupRun(CgroupRun&& o) noexcept
    : version_(o.version_),
      dir_(std::move(o.dir_)),
      mem_max_(o.mem_max_),
      coordinator_(std::move(o.coordinator_)),
      home_(std::move(o.home_)) {
  o.version_ = CgroupVersion::kUnavailable;
  o.dir_.clear();
  o.coordinator_.reset();
}

CgroupRun::~CgroupRun() {
  if (version_ == CgroupVersion::kUnavailable || dir_.empty()) return;
  move_home();
  remove_tree(dir_);
}

void CgroupRun::move_home() {
  if (!coordinator_) return;
  if (Status st = write_file(home_ / "cgroup.procs", std::to_string(::getpid())); !st) {
    spdlog::warn("cannot move the coordinator out of {}: {}", coordinator_->dir().string(), st.message());
  }
}

Result<CgroupLeaf> CgroupRun::make_leaf(const std::string& name, uint64_t max_bytes) const {
  const fs::path dir = dir_ / name;
  if (::mkdir(dir.c_str(), 0755) != 0) {
    return make_error(ErrorCode::kIo, "cannot create cgroup {}: {}", dir.string(), std::strerror(errno));
  }
  CgroupLeaf leaf(version_, dir);
  Status st = Status::ok();
  if (max_bytes != 0) {
    st = write_cap(version_, dir, max_bytes);
    // v2: an OOM kill takes the whole leaf (the worker and any child of it).
    if (st && version_ == CgroupVersion::kV2 && fs::exists(dir / "memory.oom.group")) {
      st = write_file(dir / "memory.oom.group", "1");
    }
  }
  if (!st) {
    leaf.remove();
    return st;
  }
  return leaf;
}

}  // namespace proofpipe::coord
