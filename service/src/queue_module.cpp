// Loading the PostgreSQL queue module (queue_module.hpp): where it may come
// from, the checks on the file before it is mapped into a process that may
// run as root, and the one line that says why it was not loaded.
#include "queue_module.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pg_secrets.hpp"
#include "proofpipe/common/own_exe.hpp"

namespace proofpipe::service {
namespace {

namespace fs = std::filesystem;

// Set by service/CMakeLists.txt: the module's file name, and the installed
// lib/proofpipe/ relative to the installed bin/ (GNUInstallDirs' layout).
constexpr const char* kModuleFile = PP_QUEUE_PG_MODULE_FILE;
constexpr const char* kInstalledDir = PP_QUEUE_PG_MODULE_DIR;

struct Module {
  PgQueueOpenFn open = nullptr;
  ErrorCode code = ErrorCode::kOk;  // why not, when `open` is null
  std::vector<std::string> tried;   // every path tried and what was wrong with it
};

// Opens `path` for dlopen: a descriptor on a file that may be mapped, or -1
// and *why (a missing file also sets *missing). Checked on the open
// descriptor, not the path, and loaded through /proc/self/fd/N: the file
// checked is the file mapped, even if the path is swapped in between.
int open_checked(const fs::path& path, uid_t exe_owner, bool* missing, std::string* why) {
  // O_NOFOLLOW: a link could point anywhere. O_NONBLOCK: a FIFO there is
  // refused below, never waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *missing = errno == ENOENT;
    *why = errno == ELOOP ? fmt::format("{}: a symbolic link, refused", path.string())
                          : fmt::format("{}: {}", path.string(), std::strerror(errno));
    return -1;
  }
  struct stat st {};
  // A module writable by group or others, or owned by a third user, could be
  // replaced by someone other than whoever installed proofpipe, and `serve`
  // may run as root.
  if (::fstat(fd, &st) != 0) {
    *why = fmt::format("{}: {}", path.string(), std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    *why = fmt::format("{}: not a regular file", path.string());
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    *why = fmt::format("{}: writable by group or others (mode {:o}), refused", path.string(), st.st_mode & 07777);
  } else if (st.st_uid != 0 && st.st_uid != exe_owner) {
    *why = fmt::format("{}: owned by uid {}, neither root nor the executable's owner (uid {}), refused", path.string(),
                       st.st_uid, exe_owner);
  } else {
    return fd;
  }
  ::close(fd);
  return -1;
}

Module load() {
  Module m{nullptr, ErrorCode::kUnavailable, {}};
  const std::optional<fs::path> exe = own_executable();
  struct stat self {};
  if (!exe || ::stat(exe->c_str(), &self) != 0) {
    m.tried.emplace_back("/proc/self/exe cannot be read, so the module cannot be found");
    return m;
  }
  const fs::path bin = exe->parent_path();
  for (const fs::path& path : {bin / kModuleFile, (bin / kInstalledDir / kModuleFile).lexically_normal()}) {
    bool missing = false;
    std::string why;
    const int fd = open_checked(path, self.st_uid, &missing, &why);
    if (fd < 0) {
      m.tried.push_back(std::move(why));
      if (missing) continue;  // the next place; a file present but refused ends the search
      m.code = ErrorCode::kPermissionDenied;
      return m;
    }
    void* handle = ::dlopen(fmt::format("/proc/self/fd/{}", fd).c_str(), RTLD_NOW | RTLD_LOCAL);
    void* sym = handle != nullptr ? ::dlsym(handle, kPgQueueOpenSymbol) : nullptr;
    ::close(fd);  // the mapping, if any, stays
    if (sym == nullptr) {
      const char* err = ::dlerror();
      m.tried.push_back(fmt::format("{}: {}", path.string(), err != nullptr ? err : "no symbol"));
      return m;
    }
    // Converting dlsym's object pointer to a function pointer is what POSIX
    // defines dlsym for.
    m.open = reinterpret_cast<PgQueueOpenFn>(sym);
    m.code = ErrorCode::kOk;
    return m;
  }
  return m;
}

}  // namespace

Result<std::unique_ptr<JobQueue>> open_pg_module_queue(std::string_view scheme, const PgQueueConfig& cfg) {
  // Once per process, under the static's lock; the handle is never closed:
  // every queue it made runs its code and vtable from it.
  static const Module module = load();
  if (module.open == nullptr) {
    return make_error(module.code,
                      "--queue {}...: the PostgreSQL queue module could not be loaded ({}): reinstall proofpipe",
                      scheme, fmt::join(module.tried, "; "));
  }
  Status error;
  JobQueue* q = module.open(queue_module_build().c_str(), &cfg, &error);
  // The module's messages may quote libpq's, which can repeat the URL.
  if (q == nullptr) return Status(error.code(), hide_passwords(error.message(), cfg.url));
  return std::unique_ptr<JobQueue>(q);
}

}  // namespace proofpipe::service
