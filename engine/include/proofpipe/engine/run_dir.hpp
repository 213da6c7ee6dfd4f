// The run directory's life cycle, in one place: create a private one (0700),
// take over a --run-dir, recognise the directory of a dead coordinator, and
// remove what a run left there. proofpipe runs as root on proving hosts, so
// clean-up removes only what it can prove it wrote: its own names
// (is_run_dir_file), owned by this user, and then rmdir, which fails harmlessly on
// a folder holding anything else. It never deletes a folder's unknown
// contents (docs/operations.md, "Run directories").
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

namespace proofpipe::engine {

// Everything a run writes in its directory: run.json, the control socket,
// and run.json's temporary while it is written ("run.json.tmp-<random>",
// safe_file.hpp; left behind only by a crash mid-write).
inline constexpr std::array<std::string_view, 2> kRunDirFiles = {"run.json", "control"};
inline constexpr std::string_view kRunJsonTmpPrefix = "run.json.tmp";
bool is_run_dir_file(std::string_view name);
// The default run directories: <default_run_base()>/proofpipe-run-XXXXXX.
inline constexpr std::string_view kRunDirPrefix = "proofpipe-run-";

// True when `pid` is a live process named proofpipe and, when `start_ticks`
// is given, one that started then (read_proc_start_ticks), so a pid reused by
// another program, or by a later proofpipe, is not taken for the recorded one.
bool coordinator_alive(long pid, std::optional<uint64_t> start_ticks = std::nullopt);

// The default parent of run directories: $XDG_RUNTIME_DIR if writable, else
// the temporary directory.
std::filesystem::path default_run_base();

enum class RunDirKind {
  kMissing,  // nothing there
  kEmpty,    // an empty directory of this user, mode 0700
  kLive,     // a proofpipe run whose coordinator is alive
  kStale,    // a proofpipe run whose coordinator is gone: safe to clean
  kForeign,  // anything else: never touched
};
struct RunDirVerdict {
  RunDirKind kind = RunDirKind::kForeign;
  std::string why;  // kForeign: what rules it out; kLive/kStale: the pid
};

// A proofpipe run directory is: a real directory (not a link) owned by this
// euid with mode 0700, holding only names is_run_dir_file accepts, each owned by
// this euid (run.json a regular file, control a socket), and a run.json that
// parses with proofpipe's fields (pid, pid_start_ticks, ring, endpoint). It is
// stale when that pid is not a live proofpipe started at pid_start_ticks.
RunDirVerdict inspect_run_dir(const std::filesystem::path& dir);

// Removes the entries of `dir` that is_run_dir_file accepts and this euid owns, then rmdir if
// `remove_dir` (left in place, silently, if anything else is inside).
void remove_run_files(const std::filesystem::path& dir, bool remove_dir);

// A run directory this process uses; the destructor removes its files, and
// the directory itself if this process made it.
class RunDir {
 public:
  // A fresh private directory under `base` (mkdtemp: 0700).
  static Result<RunDir> create_private(const std::filesystem::path& base);
  // --run-dir: made (0700) when missing. An existing one is used only if it is
  // empty, ours and 0700 (then kept at exit), or a stale run (its files are
  // removed and it is made afresh); anything else is an error naming it.
  static Result<RunDir> adopt(const std::filesystem::path& dir);

  RunDir(RunDir&& o) noexcept;
  RunDir& operator=(RunDir&& o) noexcept;
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;
  ~RunDir();

  const std::filesystem::path& path() const { return path_; }
  bool made() const { return made_; }
  // Hands the clean-up to the caller (remove_run_files(path(), made())).
  void release() { path_.clear(); }

 private:
  RunDir(std::filesystem::path path, bool made) : path_(std::move(path)), made_(made) {}
  std::filesystem::path path_;
  bool made_ = false;
};

}  // namespace proofpipe::engine
