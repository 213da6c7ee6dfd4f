// The kernel's cgroup files and the probe for our memory cgroup (cgroup_fs.hpp).
#include "cgroup_fs.hpp"
#include "proofpipe/common/safe_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace proofpipe::engine {
namespace fs = std::filesystem;

std::optional<std::string> CgroupFs::read(const fs::path& file) const {
  // O_NOFOLLOW: a link where a kernel file is expected is not followed;
  // O_NONBLOCK: a FIFO planted in a fake tree cannot hang us.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string text;
  char buf[4096];
  // cgroup files are small (memory.stat is the largest, ~2 KiB); 64 KiB bounds a surprise.
  for (ssize_t n; text.size() < 65536 && (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    text.append(buf, size_t(n));
  }
  ::close(fd);
  return text;
}

Status CgroupFs::write(const fs::path& file, const std::string& value) {
  // No O_CREAT: a kernel file that is not there is a controller that is not
  // enabled, never something to create.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return make_error(ErrorCode::kIo, "cannot write '{}' to {}: {}", value, file.string(), std::strerror(errno));
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (n != ssize_t(value.size())) {
    return make_error(ErrorCode::kIo, "cannot write '{}' to {}: {}", value, file.string(),
                      n < 0 ? std::strerror(err) : "short write");
  }
  return Status::ok();
}

Status CgroupFs::make_dir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0)
    return make_error(ErrorCode::kIo, "cannot create cgroup {}: {}", dir.string(), std::strerror(errno));
  return Status::ok();
}

Status CgroupFs::remove_dir(const fs::path& dir) {
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT)
    return make_error(ErrorCode::kIo, "cannot remove cgroup {}: {}", dir.string(), std::strerror(errno));
  return Status::ok();
}

bool CgroupFs::exists(const fs::path& p) const {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

std::vector<std::string> CgroupFs::children(const fs::path& dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && !e.is_symlink(ec)) out.push_back(e.path().filename().string());
  }
  return out;
}

bool CgroupFs::delegation_marked(const fs::path& dir) const {
  for (const char* attr : {"trusted.delegate", "user.delegate"}) {
    char value[8] = {};
    const ssize_t n = ::getxattr(dir.c_str(), attr, value, sizeof value - 1);
    if (n == 1 && value[0] == '1') return true;
  }
  // Delegate=yes with User=: systemd hands the unit's files to that user.
  struct stat procs {
  }, control{};
  return ::geteuid() != 0 && ::stat((dir / "cgroup.procs").c_str(), &procs) == 0 &&
         ::stat((dir / "cgroup.subtree_control").c_str(), &control) == 0 && procs.st_uid == ::geteuid() &&
         control.st_uid == ::geteuid();
}

bool CgroupFs::kill_members(const fs::path& dir, int wait_ms) const {
  if (!dir.string().starts_with("/sys/fs/cgroup/")) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    std::istringstream procs(read(dir / "cgroup.procs").value_or(""));
    bool any = false;
    for (pid_t pid = 0; procs >> pid;) {
      if (pid > 0) any = ::kill(pid, SIGKILL) == 0 || any;
    }
    if (!any) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

CgroupFs& real_cgroup_fs() {
  static CgroupFs fs;
  return fs;
}

namespace {

// "<mount point> of the first mount of `type` whose options hold `option`"
// ("" for any); "" when none. /proc/mounts escapes spaces as \040: cgroup
// mount points have none.
std::string find_mount(const std::string& mounts, const std::string& type, const std::string& option) {
  std::istringstream in(mounts);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string dev, point, fstype, opts;
    if (!(l >> dev >> point >> fstype >> opts) || fstype != type) continue;
    if (option.empty() || ("," + opts + ",").find("," + option + ",") != std::string::npos) return point;
  }
  return "";
}

bool contains(const std::vector<std::string>& words, const std::string& w) {
  for (const auto& x : words) {
    if (x == w) return true;
  }
  return false;
}

}  // namespace

CgroupEnv CgroupEnv::system() {
  CgroupEnv env;
  env.fs = &real_cgroup_fs();
  env.proc_self_cgroup = read_kernel_text("/proc/self/cgroup");
  env.proc_mounts = read_kernel_text("/proc/mounts");
  env.self = ::getpid();
  return env;
}

uint64_t cgroup_keyed_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

std::vector<std::string> cgroup_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

CgroupProbe probe_cgroups(const CgroupEnv& env) {
  CgroupProbe p;
  CgroupFs& cfs = *env.fs;
  const auto under_root = [&](const std::string& point, const std::string& path) {
    return env.sysroot / fs::path(point).relative_path() / fs::path(path).relative_path();
  };
  std::istringstream in(env.proc_self_cgroup);
  std::string line, v2_path;
  bool have_v2_line = false;
  while (std::getline(in, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.rfind("0::", 0) == 0) {
      v2_path = path;
      have_v2_line = true;
      continue;
    }
    // v1 wins where the memory controller is bound to it (hybrid hosts, as
    // the build machines: cgroup2 there offers only hugetlb).
    std::istringstream cs(controllers);
    for (std::string c; std::getline(cs, c, ',');) {
      if (c != "memory") continue;
      const std::string point = find_mount(env.proc_mounts, "cgroup", "memory");
      if (point.empty() || !cfs.exists(under_root(point, "/") / "memory.limit_in_bytes")) continue;
      p.version = CgroupVersion::kV1;
      p.own_path = path;
      p.own = under_root(point, path);
      p.memory = true;
      p.delegated = true;  // v1 has no delegation model: writable is what counts
      // Not refused here: creating the run's cgroup says why it cannot (as before v2 support).
      p.writable = ::access((p.own / "cgroup.procs").c_str(), W_OK) == 0;
      return p;
    }
  }
  const std::string point = find_mount(env.proc_mounts, "cgroup2", "");
  if (!have_v2_line || point.empty()) {
    p.why = "no memory controller in /proc/self/cgroup and no cgroup2 mount";
    return p;
  }
  p.version = CgroupVersion::kV2;
  p.own_path = v2_path;
  p.own = under_root(point, v2_path);
  const auto controllers = cgroup_words(cfs.read(p.own / "cgroup.controllers").value_or(""));
  p.memory = contains(controllers, "memory");
  p.pids = contains(controllers, "pids");
  p.writable = ::access((p.own / "cgroup.procs").c_str(), W_OK) == 0 &&
               ::access((p.own / "cgroup.subtree_control").c_str(), W_OK) == 0;
  // "/": a container's own cgroup namespace (or the host's root, which is root's).
  p.delegated = v2_path == "/" || cfs.delegation_marked(p.own);
  p.has_peak = p.memory && cfs.exists(p.own / "memory.peak");
  if (!p.memory) {
    p.why = fmt::format("the memory controller is not enabled for {} (cgroup.controllers: '{}')", p.own.string(),
                        fmt::join(controllers, " "));
  } else if (!p.delegated) {
    p.why = fmt::format(
        "{} is not delegated to this process (systemd Delegate=yes, or a container's own cgroup "
        "namespace)",
        p.own.string());
  } else if (!p.writable) {
    p.why = fmt::format("{} is not writable by this process", p.own.string());
  }
  return p;
}

}  // namespace proofpipe::engine
