// MappedFile: open + fstat + mmap(PROT_READ, MAP_PRIVATE), unmapped on
// destruction; or an anonymous read-only copy of caller bytes; or a view.
#include "proofpipe/formats/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "proofpipe/common/safe_file.hpp"

namespace proofpipe::formats {

namespace {

// Closes the descriptor on every path out of open(); the mapping outlives it.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait forever for
  // a writer (and a device may block or have side effects); every input is
  // refused here unless it is a regular file. The mapping never reads
  // through the descriptor, so the flag needs no clearing.
  int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return make_error(ErrorCode::kNotFound, "'{}': no such file", name);
    return make_error(ErrorCode::kIo, "'{}': cannot open: {}", name, std::strerror(err));
  }
  FdGuard guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return make_error(ErrorCode::kIo, "'{}': fstat failed: {}", name, std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "'{}': not a regular file (a {})", name, file_kind(st.st_mode));
  }
  MappedFile f;
  f.path_ = path;
  f.size_ = static_cast<size_t>(st.st_size);
  if (f.size_ == 0) return f;  // mmap of length 0 is EINVAL; an empty span is the honest answer
  void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    f.size_ = 0;
    return make_error(ErrorCode::kIo, "'{}': mmap of {} bytes failed: {}", name, static_cast<size_t>(st.st_size),
                      std::strerror(err));
  }
  f.data_ = static_cast<const uint8_t*>(p);
  return f;
}

Result<MappedFile> MappedFile::copy_of(std::span<const uint8_t> bytes, std::filesystem::path name) {
  MappedFile f;
  f.path_ = std::move(name);
  f.kind_ = Kind::kCopy;
  if (bytes.empty()) return f;
  // A mapping of its own rather than a vector: page-aligned like a file's,
  // and made read-only once filled, so the readers' views cannot be written.
  void* p = ::mmap(nullptr, bytes.size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return make_error(ErrorCode::kResourceExhausted, "'{}': cannot map {} bytes for a copy: {}", f.path_.string(),
                      bytes.size(), std::strerror(errno));
  }
  std::memcpy(p, bytes.data(), bytes.size());
  (void)::mprotect(p, bytes.size(), PROT_READ);
  f.data_ = static_cast<const uint8_t*>(p);
  f.size_ = bytes.size();
  return f;
}

MappedFile MappedFile::view_of(std::span<const uint8_t> bytes, std::filesystem::path name) {
  MappedFile f;
  f.path_ = std::move(name);
  f.kind_ = Kind::kView;
  f.data_ = bytes.data();
  f.size_ = bytes.size();
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      kind_(o.kind_),
      path_(std::move(o.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    kind_ = o.kind_;
    path_ = std::move(o.path_);
  }
  return *this;
}

MappedFile::~MappedFile() { reset(); }

void MappedFile::release(std::span<const uint8_t> range) const {
  static const uintptr_t kPage = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(range.data()) + kPage - 1) & ~(kPage - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(range.data()) + range.size()) & ~(kPage - 1);
  const uintptr_t base = reinterpret_cast<uintptr_t>(data_);
  if (kind_ != Kind::kFile || data_ == nullptr || hi <= lo || lo < base || hi > base + size_) return;
  (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

void MappedFile::reset() noexcept {
  if (data_ != nullptr && kind_ != Kind::kView) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace proofpipe::formats
