// Run directory life cycle (run_dir.hpp).
#include "proofpipe/engine/run_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "procfs.hpp"
#include "proofpipe/formats/bounded_json.hpp"

namespace proofpipe::engine {
namespace fs = std::filesystem;
namespace {

// run.json is a few hundred bytes; anything much larger is not ours.
constexpr off_t kMaxRunJson = 64 * 1024;

RunDirVerdict foreign(std::string why) { return {RunDirKind::kForeign, std::move(why)}; }

// Closes a descriptor or DIR* on every way out.
struct DirCloser {
  DIR* d;
  ~DirCloser() {
    if (d != nullptr) ::closedir(d);
  }
};

// The entries of an open directory (without . and ..), checked one by one
// against kRunDirFiles; an empty `why` when all are ours.
std::string check_entries(int dir_fd, bool* has_run_json, bool* empty) {
  const int fd = ::dup(dir_fd);
  DirCloser d{fd >= 0 ? ::fdopendir(fd) : nullptr};
  if (d.d == nullptr) {
    if (fd >= 0) ::close(fd);
    return fmt::format("cannot list it: {}", std::strerror(errno));
  }
  *has_run_json = false;
  *empty = true;
  while (const dirent* e = ::readdir(d.d)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    *empty = false;
    if (!is_run_dir_file(name)) return fmt::format("it holds '{}', which proofpipe does not write", name);
    struct stat st {};
    if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return fmt::format("cannot stat '{}': {}", name, std::strerror(errno));
    }
    if (st.st_uid != ::geteuid()) return fmt::format("'{}' is owned by uid {}", name, st.st_uid);
    const bool want_socket = name == "control";
    if (want_socket ? !S_ISSOCK(st.st_mode) : !S_ISREG(st.st_mode)) {
      return fmt::format("'{}' is not a {}", name, want_socket ? "socket" : "regular file");
    }
    if (name == "run.json") {
      if (st.st_size > kMaxRunJson) return "its run.json is too large to be proofpipe's";
      *has_run_json = true;
    }
  }
  return {};
}

// The recorded coordinator of a checked run.json: its pid and start time.
std::optional<std::pair<long, uint64_t>> run_json_owner(int dir_fd, std::string* why) {
  const int fd = ::openat(dir_fd, "run.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = fmt::format("cannot read its run.json: {}", std::strerror(errno));
    return std::nullopt;
  }
  std::string text(size_t(kMaxRunJson), '\0');
  const ssize_t got = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (got < 0) {
    *why = fmt::format("cannot read its run.json: {}", std::strerror(errno));
    return std::nullopt;
  }
  text.resize(size_t(got));
  // Depth-capped like every JSON this project reads from a file.
  auto parsed = formats::parse_json_bounded(text);
  const nlohmann::json j = parsed ? std::move(*parsed) : nlohmann::json();
  const bool ours = j.is_object() && j.contains("pid") && j["pid"].is_number_integer() &&
                    j.contains("pid_start_ticks") && j["pid_start_ticks"].is_number_unsigned() && j.contains("ring") &&
                    j["ring"].is_string() && j.contains("endpoint") && j["endpoint"].is_string();
  if (!ours || j["pid"].get<long>() <= 0) {
    *why = "its run.json is not a proofpipe run's (pid, pid_start_ticks, ring, endpoint)";
    return std::nullopt;
  }
  return std::pair{j["pid"].get<long>(), j["pid_start_ticks"].get<uint64_t>()};
}

}  // namespace

bool is_run_dir_file(std::string_view name) {
  return std::find(kRunDirFiles.begin(), kRunDirFiles.end(), name) != kRunDirFiles.end() ||
         name.starts_with(kRunJsonTmpPrefix);
}

bool coordinator_alive(long pid, std::optional<uint64_t> start_ticks) {
  if (pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno != EPERM)) return false;
  // Unreadable (hidepid): assume alive, so nothing of a live run is removed.
  const auto name = read_proc_comm(pid_t(pid));
  if (name && *name != "proofpipe") return false;
  if (!start_ticks) return true;
  const auto started = read_proc_start_ticks(pid_t(pid));
  return !started || *started == *start_ticks;
}

fs::path default_run_base() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  return (xdg && ::access(xdg, W_OK) == 0) ? fs::path(xdg) : fs::temp_directory_path();
}

RunDirVerdict inspect_run_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return {RunDirKind::kMissing, {}};
    if (err == ENOTDIR || err == ELOOP) return foreign("it is not a directory");
    return foreign(fmt::format("cannot open it: {}", std::strerror(err)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return foreign(fmt::format("cannot stat it: {}", std::strerror(errno)));
  if (st.st_uid != ::geteuid())
    return foreign(fmt::format("it is owned by uid {}, not by this user (uid {})", st.st_uid, ::geteuid()));
  if ((st.st_mode & 07777) != 0700) return foreign(fmt::format("its mode is {:04o}, not 0700", st.st_mode & 07777));
  bool has_run_json = false, empty = true;
  if (std::string why = check_entries(fd, &has_run_json, &empty); !why.empty()) return foreign(std::move(why));
  if (empty) return {RunDirKind::kEmpty, {}};
  if (!has_run_json) return foreign("it has no run.json");
  std::string why;
  const auto owner = run_json_owner(fd, &why);
  if (!owner) return foreign(std::move(why));
  const std::string pid = fmt::format("pid {}", owner->first);
  return {coordinator_alive(owner->first, owner->second) ? RunDirKind::kLive : RunDirKind::kStale, pid};
}

void remove_run_files(const fs::path& dir, bool remove_dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  const int list_fd = ::dup(fd);
  DirCloser d{list_fd >= 0 ? ::fdopendir(list_fd) : nullptr};
  if (d.d == nullptr && list_fd >= 0) ::close(list_fd);
  while (d.d != nullptr) {
    const dirent* e = ::readdir(d.d);
    if (e == nullptr) break;
    struct stat st {};
    if (!is_run_dir_file(e->d_name) || ::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (st.st_uid != ::geteuid() || S_ISDIR(st.st_mode)) continue;
    (void)::unlinkat(fd, e->d_name, 0);
  }
  ::close(fd);
  if (remove_dir) (void)::rmdir(dir.c_str());  // ENOTEMPTY: someone else's files stay, and so does the folder
}

Result<RunDir> RunDir::create_private(const fs::path& base) {
  std::string tmpl = (base / (std::string(kRunDirPrefix) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return make_error(ErrorCode::kIo, "cannot create a run directory under '{}': {}", base.string(),
                      std::strerror(errno));
  }
  return RunDir(fs::path(tmpl), true);
}

Result<RunDir> RunDir::adopt(const fs::path& dir) {
  // mkdir's mode is cut by the umask; the chmod makes it exactly 0700.
  auto make = [&]() -> Result<RunDir> {
    if (::mkdir(dir.c_str(), 0700) != 0) {
      const int err = errno;  // read before anything else can change it
      return make_error(ErrorCode::kIo, "--run-dir '{}': cannot create: {}", dir.string(), std::strerror(err));
    }
    RunDir made(dir, true);
    if (::chmod(dir.c_str(), 0700) != 0) {
      return make_error(ErrorCode::kIo, "--run-dir '{}': cannot set mode 0700: {}", dir.string(), std::strerror(errno));
    }
    return made;
  };
  const RunDirVerdict v = inspect_run_dir(dir);
  switch (v.kind) {
    case RunDirKind::kMissing: return make();
    case RunDirKind::kEmpty: return RunDir(dir, false);
    case RunDirKind::kStale:
      spdlog::info("removing stale run directory {} (its coordinator, {}, is gone)", dir.string(), v.why);
      remove_run_files(dir, true);
      return make();
    case RunDirKind::kLive:
      return make_error(ErrorCode::kInvalidArgument, "--run-dir '{}' belongs to a running proofpipe ({})", dir.string(),
                        v.why);
    case RunDirKind::kForeign: break;
  }
  return make_error(ErrorCode::kInvalidArgument,
                    "--run-dir '{}' exists and is not a proofpipe run directory ({}): not using or removing it; give a "
                    "new path or an empty directory with mode 0700",
                    dir.string(), v.why);
}

RunDir::RunDir(RunDir&& o) noexcept : path_(std::exchange(o.path_, {})), made_(o.made_) {}

RunDir& RunDir::operator=(RunDir&& o) noexcept {
  if (this != &o) {
    if (!path_.empty()) remove_run_files(path_, made_);
    path_ = std::exchange(o.path_, {});
    made_ = o.made_;
  }
  return *this;
}

RunDir::~RunDir() {
  if (!path_.empty()) remove_run_files(path_, made_);
}

}  // namespace proofpipe::engine
