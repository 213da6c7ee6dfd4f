// The one way proofpipe writes a file (docs/operations.md, "Files proofpipe
// writes"). proofpipe runs as root on proving hosts, so a name in an output
// folder that someone else can write to must never be followed: every file is
// created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) under an unpredictable
// temporary name in the target's own directory, written, fsynced, renamed over
// the target and the directory fsynced. A symbolic link at the final name is
// replaced by the rename (the link itself, never its target); a directory,
// FIFO, device or socket there is refused before anything is written.
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

namespace proofpipe {

// What st_mode says a file is, for error lines: "directory", "FIFO",
// "character device", "block device", "socket", "regular file", ...
const char* file_kind(mode_t mode);

// kInvalidArgument when `target` exists and is neither a regular file nor a
// symbolic link: "<what> '<target>' is a directory, not a regular file".
// `what` names the file for the user ("proof", "--out", "summary").
Status check_output_target(const std::filesystem::path& target, std::string_view what);

// True when a and b name the same file: the same path once made absolute and
// normal, or two hard links of one file. Two symbolic links to one file are
// not the same (each would be replaced, never written through).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// A file on its way to `target`. Destroying one that was not committed
// removes its temporary file, so a failure at any step leaves nothing behind.
class PendingFile {
 public:
  // Refuses a non-regular target (check_output_target), then creates the
  // temporary "<target>.tmp-<random>" exclusively, mode 0644 less the umask.
  static Result<PendingFile> create(const std::filesystem::path& target, std::string_view what);

  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&& other) noexcept;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();

  // The open temporary file, for writers that stream (valid until sync()).
  int fd() const { return fd_; }
  const std::filesystem::path& target() const { return target_; }

  Status write(std::string_view bytes);
  // fsync and close: the bytes are durable under the temporary name.
  Status sync();
  // sync() if not yet, rename over the target, fsync the directory.
  Status commit();
  // Removes the temporary file now (also what the destructor does).
  void discard();

 private:
  PendingFile(std::filesystem::path target, std::filesystem::path tmp, std::string what, int fd)
      : target_(std::move(target)), tmp_(std::move(tmp)), what_(std::move(what)), fd_(fd) {}
  Status io_error(const char* step, int err);

  std::filesystem::path target_, tmp_;
  std::string what_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `bytes` to `target` through a PendingFile.
Status write_file_replace(const std::filesystem::path& target, std::string_view bytes, std::string_view what);

// Commits files that belong together (a proof and its public inputs): all are
// synced first, then renamed in order; if a rename fails, the targets already
// renamed are removed, so either all of them are in place or none is.
Status commit_together(std::span<PendingFile> files);

// Files that belong together, from their text: each created as a
// PendingFile, written, then committed together (all or none).
struct TextFile {
  std::filesystem::path target;
  std::string_view text;
  std::string_view what;  // names it in errors ("proof", "public inputs")
};
Status write_together(std::span<const TextFile> files);

// The one way proofpipe reads a whole small file it is handed: opened with
// O_NONBLOCK (a FIFO is refused, never waited on) and, unless
// `follow_links`, O_NOFOLLOW; then it must be a regular file of at most
// `max_bytes`. Errors are one line: "<what> '<path>': <why>" or
// "<what> '<path>' is a FIFO, not a regular file".
Result<std::string> read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what,
                                      bool follow_links = true);

// A small kernel file as text (procfs, sysfs and cgroupfs report size 0, so
// it is read to EOF, at most 1 MiB); "" when it cannot be opened.
std::string read_kernel_text(const std::filesystem::path& path);

// A file written as a stream while the run goes on (--metrics): an existing
// regular file or link at `path` is removed (the link itself), then `path` is
// created exclusively without following a link and opened as `out`. Any other
// existing file type is refused (check_output_target).
Status open_new_stream(const std::filesystem::path& path, std::string_view what, std::ofstream& out);

}  // namespace proofpipe
