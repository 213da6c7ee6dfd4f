// Loading the PostgreSQL queue module (queue_module.hpp): where it may come
// from, the checks on the file before it is mapped into a process that may
// run as root, and the one line that says why it was not loaded.
#include "queue_module.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// Why `path` must not be mapped (empty: it may). A missing file sets *missing.
std::string refusal(const fs::path& path, uid_t exe_owner, bool* missing) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    *missing = errno == ENOENT;
    return fmt::format("{}: {}", path.string(), std::strerror(errno));
  }
  // A link could point anywhere; a module writable by group or others, or
  // owned by a third user, could be replaced by someone other than whoever
  // installed proofpipe, and `serve` may run as root.
  if (!S_ISREG(st.st_mode)) return fmt::format("{}: not a regular file", path.string());
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fmt::format("{}: writable by group or others (mode {:o}), refused", path.string(), st.st_mode & 07777);
  }
  if (st.st_uid != 0 && st.st_uid != exe_owner) {
    return fmt::format("{}: owned by uid {}, neither root nor the executable's owner (uid {}), refused", path.string(),
                       st.st_uid, exe_owner);
  }
  return {};
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
    if (std::string why = refusal(path, self.st_uid, &missing); !why.empty()) {
      m.tried.push_back(std::move(why));
      if (missing) continue;  // the next place; a file present but refused ends the search
      m.code = ErrorCode::kPermissionDenied;
      return m;
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* sym = handle != nullptr ? ::dlsym(handle, kPgQueueOpenSymbol) : nullptr;
    if (sym == nullptr) {
      const char* err = ::dlerror();  // names the path itself
      m.tried.emplace_back(err != nullptr ? err : path.string() + ": no " + kPgQueueOpenSymbol);
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
  if (q == nullptr) return error;
  return std::unique_ptr<JobQueue>(q);
}

}  // namespace proofpipe::service
