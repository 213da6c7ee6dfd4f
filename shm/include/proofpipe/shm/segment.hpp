// Segment: RAII over one named POSIX shared-memory object and its mapping
// (Boost.Interprocess shared_memory_object + mapped_region, kept private to
// segment.cpp). Knows nothing about what is stored in it: see layout.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

namespace proofpipe::shm {

// Where POSIX shm objects live on Linux; statvfs() on it gives the free space.
inline constexpr const char* kShmMount = "/dev/shm";

// Bytes an unprivileged process may still allocate under /dev/shm.
Result<uint64_t> shm_available_bytes();

class Segment {
 public:
  // Creates `name` exclusively (O_CREAT|O_EXCL, mode exactly 0600 whatever
  // the umask), pre-allocates all `size` bytes with posix_fallocate and maps
  // it read-write. The pre-allocation turns a too-small /dev/shm into this
  // error (kResourceExhausted, naming the requested and free sizes) instead of
  // a SIGBUS at first touch hours later, and charges the pages to the
  // creator's cgroup (docs/design/overview.md §3). On any failure the name is unlinked
  // again: no half-made segment is left behind. An existing name is kIo
  // ("already exists"): a stale segment from an earlier run must be unlinked
  // deliberately, never reused.
  static Result<Segment> create(const std::string& name, uint64_t size);

  // Opens and maps an existing segment read-write at its current size.
  // kNotFound if it does not exist.
  static Result<Segment> open(const std::string& name);

  // Removes the name (existing mappings stay valid until unmapped).
  // kNotFound if it does not exist.
  static Status unlink(const std::string& name);

  // A POSIX shm name: "/" then 1..200 characters, none of them '/'.
  static Status check_name(std::string_view name);

  Segment(Segment&&) noexcept;
  Segment& operator=(Segment&&) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();  // unmaps and closes; never unlinks

  const std::string& name() const;
  uint64_t size() const;
  // The mapping; valid for the lifetime of this object and stable across moves.
  std::byte* data() const;

 private:
  struct Impl;
  explicit Segment(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace proofpipe::shm
