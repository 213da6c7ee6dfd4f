// Segment (segment.hpp): shm_open/fallocate/mmap through Boost.Interprocess.
// Boost throws interprocess_exception; every call is wrapped here and turned
// into a Status carrying the errno text, so nothing throws past this file.
#include "proofpipe/shm/segment.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/permissions.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cerrno>
#include <cstring>
#include <utility>

#include "proofpipe/common/sizes.hpp"

namespace proofpipe::shm {
namespace bip = boost::interprocess;

namespace {

// Owner read/write only: the ring holds witness-derived data of the run.
constexpr unsigned kSegmentMode = 0600;
// Names are also embedded in ipc paths and log lines; 200 leaves room under
// NAME_MAX (255) for the "-ctl"/"-data" suffixes.
constexpr size_t kMaxNameChars = 200;

Status os_error(const std::string& name, const char* what, int err) {
  const ErrorCode code = err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo;
  return make_error(code, "shm segment {}: {}: {}", name, what, std::strerror(err));
}

Status boost_error(const std::string& name, const char* what, const bip::interprocess_exception& e) {
  const int err = e.get_native_error();
  if (err == 0) return make_error(ErrorCode::kIo, "shm segment {}: {}: {}", name, what, e.what());
  if (err == EEXIST) {
    return make_error(ErrorCode::kIo, "shm segment {}: {}: already exists (left by an earlier run? unlink it first)",
                      name, what);
  }
  return os_error(name, what, err);
}

Status space_error(const std::string& name, uint64_t requested, const char* detail) {
  auto avail = shm_available_bytes();
  const std::string free_text = avail.is_ok() ? format_size(*avail) : "an unknown amount";
  return make_error(ErrorCode::kResourceExhausted,
                    "shm segment {}: needs {} ({} bytes) but {} has {} free{}; enlarge it (docker --shm-size, "
                    "mount -o remount,size=...) or use fewer/smaller slots",
                    name, format_size(requested), requested, kShmMount, free_text, detail);
}

}  // namespace

struct Segment::Impl {
  std::string name;
  bip::shared_memory_object object;
  bip::mapped_region region;
};

Result<uint64_t> shm_available_bytes() {
  struct statvfs st {};
  if (::statvfs(kShmMount, &st) != 0) {
    return make_error(ErrorCode::kIo, "statvfs({}): {}", kShmMount, std::strerror(errno));
  }
  return uint64_t{st.f_bavail} * uint64_t{st.f_frsize};
}

Status Segment::check_name(std::string_view name) {
  if (name.size() < 2 || name.front() != '/' || name.size() > kMaxNameChars + 1 ||
      name.find('/', 1) != std::string_view::npos) {
    return make_error(ErrorCode::kInvalidArgument,
                      "shm segment name '{}': expected '/' then 1..{} characters without '/'", name, kMaxNameChars);
  }
  return Status::ok();
}

Result<Segment> Segment::create(const std::string& name, uint64_t size) {
  PP_RETURN_IF_ERROR(check_name(name));
  if (size == 0) return make_error(ErrorCode::kInvalidArgument, "shm segment {}: size 0", name);
  // Fail before creating anything when the space is plainly not there:
  // posix_fallocate on tmpfs would otherwise allocate (and zero) every free
  // page before it gives up with ENOSPC.
  PP_ASSIGN_OR_RETURN(const uint64_t available, shm_available_bytes());
  if (size > available) return space_error(name, size, "");

  auto impl = std::make_unique<Impl>();
  impl->name = name;
  try {
    impl->object =
        bip::shared_memory_object(bip::create_only, name.c_str(), bip::read_write, bip::permissions(kSegmentMode));
  } catch (const bip::interprocess_exception& e) {
    return boost_error(name, "create", e);
  }
  // From here on the name exists: unlink it again on every failure path.
  // posix_fallocate also sets the size (no ftruncate first: a sparse file
  // would be the SIGBUS-later case this guards against). It returns the
  // error number instead of setting errno.
  const int fd = impl->object.get_mapping_handle().handle;
  if (const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0) {
    impl.reset();
    bip::shared_memory_object::remove(name.c_str());
    if (err == ENOSPC || err == EFBIG) {
      return space_error(name, size, fmt::format(" (posix_fallocate: {})", std::strerror(err)).c_str());
    }
    return os_error(name, "posix_fallocate", err);
  }
  try {
    impl->region = bip::mapped_region(impl->object, bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    Status st = boost_error(name, "map", e);
    impl.reset();
    bip::shared_memory_object::remove(name.c_str());
    return st;
  }
  return Segment(std::move(impl));
}

Result<Segment> Segment::open(const std::string& name) {
  PP_RETURN_IF_ERROR(check_name(name));
  auto impl = std::make_unique<Impl>();
  impl->name = name;
  try {
    impl->object = bip::shared_memory_object(bip::open_only, name.c_str(), bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    if (e.get_native_error() == ENOENT) {
      return make_error(ErrorCode::kNotFound, "shm segment {}: does not exist (ring not created, or already unlinked)",
                        name);
    }
    return boost_error(name, "open", e);
  }
  bip::offset_t size = 0;
  if (!impl->object.get_size(size) || size <= 0) {
    return make_error(ErrorCode::kBadFormat, "shm segment {}: is empty (creator died before allocating it?)", name);
  }
  try {
    impl->region = bip::mapped_region(impl->object, bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    return boost_error(name, "map", e);
  }
  return Segment(std::move(impl));
}

Status Segment::unlink(const std::string& name) {
  PP_RETURN_IF_ERROR(check_name(name));
  // remove() is shm_unlink underneath and reports only a bool; errno is
  // still the one shm_unlink set.
  errno = 0;
  if (bip::shared_memory_object::remove(name.c_str())) return Status::ok();
  const int err = errno;
  if (err == ENOENT) return make_error(ErrorCode::kNotFound, "shm segment {}: does not exist", name);
  return os_error(name, "unlink", err != 0 ? err : EIO);
}

Segment::Segment(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Segment::Segment(Segment&&) noexcept = default;
Segment& Segment::operator=(Segment&&) noexcept = default;
Segment::~Segment() = default;

const std::string& Segment::name() const { return impl_->name; }
uint64_t Segment::size() const { return impl_->region.get_size(); }
std::byte* Segment::data() const { return static_cast<std::byte*>(impl_->region.get_address()); }

}  // namespace proofpipe::shm
