// Exclusive, link-safe file writes (safe_file.hpp).
#include "proofpipe/common/safe_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace proofpipe {
namespace fs = std::filesystem;
namespace {

// Twelve letters and digits from the OS's random source: a name nobody can
// plant a link at in advance (O_EXCL refuses one planted at random anyway).
std::string random_suffix() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s(12, '0');
  for (char& c : s) c = kAlphabet[rd() % (sizeof(kAlphabet) - 1)];
  return s;
}

// The directory a target lives in ("." for a bare name).
fs::path dir_of(const fs::path& target) {
  const fs::path parent = target.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

void fsync_dir(const fs::path& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  (void)::fsync(dfd);  // best effort: the file itself is already durable
  ::close(dfd);
}

}  // namespace

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "regular file";
  if (S_ISLNK(mode)) return "symbolic link";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  return "special file";
}

Status check_output_target(const fs::path& target, std::string_view what) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::ok();
    return make_error(ErrorCode::kIo, "{} '{}': {}", what, target.string(), std::strerror(errno));
  }
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return Status::ok();
  return make_error(ErrorCode::kInvalidArgument, "{} '{}' is a {}, not a regular file", what, target.string(),
                    file_kind(st.st_mode));
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal()) return true;
  // lstat: a link at an output name is replaced, not written through, so
  // two links to one file are two names; a hard link is the same file.
  struct stat sa {
  }, sb{};
  return ::lstat(a.c_str(), &sa) == 0 && ::lstat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

Result<PendingFile> PendingFile::create(const fs::path& target, std::string_view what) {
  PP_RETURN_IF_ERROR(check_output_target(target, what));
  for (int tries = 0;; ++tries) {
    fs::path tmp = dir_of(target) / (target.filename().string() + ".tmp-" + random_suffix());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return PendingFile(target, std::move(tmp), std::string(what), fd);
    if (errno != EEXIST || tries == 8) {
      return make_error(ErrorCode::kIo, "cannot write {} '{}': {}", what, target.string(), std::strerror(errno));
    }
  }
}

PendingFile::PendingFile(PendingFile&& o) noexcept
    : target_(std::move(o.target_)),
      tmp_(std::move(o.tmp_)),
      what_(std::move(o.what_)),
      fd_(o.fd_),
      committed_(o.committed_) {
  o.fd_ = -1;
  o.committed_ = true;  // nothing left for the moved-from object to clean up
}

PendingFile& PendingFile::operator=(PendingFile&& o) noexcept {
  if (this != &o) {
    discard();
    target_ = std::move(o.target_);
    tmp_ = std::move(o.tmp_);
    what_ = std::move(o.what_);
    fd_ = o.fd_;
    committed_ = o.committed_;
    o.fd_ = -1;
    o.committed_ = true;
  }
  return *this;
}

PendingFile::~PendingFile() { discard(); }

void PendingFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!committed_) ::unlink(tmp_.c_str());
  committed_ = true;
}

Status PendingFile::io_error(const char* step, int err) {
  discard();
  return make_error(ErrorCode::kIo, "cannot write {} '{}': {} failed: {}", what_, target_.string(), step,
                    std::strerror(err));
}

Status PendingFile::write(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("write", errno);
    }
    done += size_t(n);
  }
  return Status::ok();
}

Status PendingFile::sync() {
  if (fd_ < 0) return Status::ok();
  if (::fsync(fd_) != 0) return io_error("fsync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return io_error("close", errno);
  return Status::ok();
}

Status PendingFile::commit() {
  if (committed_) return make_error(ErrorCode::kInternal, "{} '{}' was already committed", what_, target_.string());
  PP_RETURN_IF_ERROR(sync());
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) return io_error("rename", errno);
  committed_ = true;
  fsync_dir(dir_of(target_));
  return Status::ok();
}

Status write_file_replace(const fs::path& target, std::string_view bytes, std::string_view what) {
  PP_ASSIGN_OR_RETURN(PendingFile file, PendingFile::create(target, what));
  PP_RETURN_IF_ERROR(file.write(bytes));
  return file.commit();
}

Status commit_together(std::span<PendingFile> files) {
  for (PendingFile& f : files) PP_RETURN_IF_ERROR(f.sync());
  for (size_t i = 0; i < files.size(); ++i) {
    if (Status st = files[i].commit(); !st) {
      for (size_t j = 0; j < i; ++j) ::unlink(files[j].target().c_str());
      return st;
    }
  }
  return Status::ok();
}

std::string read_kernel_text(const std::filesystem::path& path) {
  constexpr size_t kMax = 1 << 20;  // /proc/self/mountinfo of a busy host is tens of KB
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[8192];
  while (text.size() < kMax) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, size_t(n));
  }
  ::close(fd);
  return text;
}

Status write_together(std::span<const TextFile> files) {
  std::vector<PendingFile> pending;
  for (const TextFile& f : files) {
    PP_ASSIGN_OR_RETURN(PendingFile file, PendingFile::create(f.target, f.what));
    PP_RETURN_IF_ERROR(file.write(f.text));
    pending.push_back(std::move(file));
  }
  return commit_together(pending);
}

Status open_new_stream(const fs::path& path, std::string_view what, std::ofstream& out) {
  PP_RETURN_IF_ERROR(check_output_target(path, what));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return make_error(ErrorCode::kIo, "cannot write {} '{}': {}", what, path.string(), std::strerror(errno));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(ErrorCode::kIo, "cannot write {} '{}': {}", what, path.string(), std::strerror(errno));
  // The stream opens our own new file through its descriptor's /proc entry,
  // never `path` again: a name swapped in the meantime cannot redirect it.
  out.open(fmt::format("/proc/self/fd/{}", fd), std::ios::out | std::ios::binary);
  ::close(fd);
  if (!out) return make_error(ErrorCode::kIo, "cannot write {} '{}'", what, path.string());
  return Status::ok();
}

Result<std::string> read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what,
                                      bool follow_links) {
  const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW);
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    return make_error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo, "{} '{}': {}", what, path.string(),
                      std::strerror(err));
  }
  struct stat st {};
  std::string bytes;
  Status status = Status::ok();
  if (::fstat(fd, &st) != 0) {
    status = make_error(ErrorCode::kIo, "{} '{}': {}", what, path.string(), std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    status = make_error(ErrorCode::kInvalidArgument, "{} '{}' is a {}, not a regular file", what, path.string(),
                        file_kind(st.st_mode));
  } else if (uint64_t(st.st_size) > max_bytes) {
    status = make_error(ErrorCode::kResourceExhausted, "{} '{}' is {} bytes, more than {}", what, path.string(),
                        st.st_size, max_bytes);
  } else {
    bytes.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < bytes.size() && status) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        status = make_error(ErrorCode::kIo, "{} '{}': {}", what, path.string(),
                            n < 0 ? std::strerror(errno) : "shorter than its size (changed while read)");
      } else {
        got += size_t(n);
      }
    }
  }
  ::close(fd);
  if (!status) return status;
  return bytes;
}

}  // namespace proofpipe
