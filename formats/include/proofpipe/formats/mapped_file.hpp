// MappedFile: a read-only, private mmap of a whole file, owned RAII-style.
// It is the storage under the zkey/wtns/r1cs readers; it is not a writer and
// not a growable buffer. POSIX mmap(2); errors name the file. The same readers
// also run over bytes already in memory (the C library's buffers): an owned
// read-only copy (copy_of) or a borrowed view (view_of).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

#include "proofpipe/common/status.hpp"

namespace proofpipe::formats {

// Move-only owner of one mapping. The bytes stay valid (and at the same
// address) until the object holding them is destroyed, including across moves:
// spans taken from bytes() survive moving the MappedFile.
//
// Caveat: the mapping reflects the file. If another process truncates the file
// while it is mapped, touching the lost pages raises SIGBUS; proofpipe treats
// its inputs as immutable while a job runs.
//
// @concurrent: bytes() may be read from any number of threads at once.
class MappedFile {
 public:
  // Maps `path` read-only. Errors: kNotFound (missing file), kInvalidArgument
  // (not a regular file), kIo (open/fstat/mmap failed; errno text included).
  // An empty file is valid and yields an empty span (nothing is mapped).
  [[nodiscard]] static Result<MappedFile> open(const std::filesystem::path& path);

  // A private read-only copy of `bytes` in an anonymous mapping (so the
  // caller's memory may go once this returns); `name` stands for the path in
  // messages. kResourceExhausted when the mapping cannot be made.
  [[nodiscard]] static Result<MappedFile> copy_of(std::span<const uint8_t> bytes, std::filesystem::path name);
  // A view of the caller's bytes, which must outlive the object and every
  // span taken from it; nothing is unmapped on destruction.
  static MappedFile view_of(std::span<const uint8_t> bytes, std::filesystem::path name);

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The whole file. The mapping base is page-aligned.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // Drops this process's resident pages for the whole pages inside `range`
  // (a sub-span of bytes()) with madvise(MADV_DONTNEED). For a private
  // mapping that is never written this only unmaps them: the bytes do not
  // change, and reading them again faults them back in from the page cache.
  // For a process that checks a large section once and does not need it
  // afterwards (the coordinator scans ~200 MB of coefficients at 2^20), so
  // that its RSS does not grow by the section's size. Advisory: errors are
  // ignored. Only for a file's mapping: on a copy_of or view_of it does
  // nothing, since anonymous pages dropped that way would read back as zeros.
  void release(std::span<const uint8_t> range) const;
  size_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void reset() noexcept;

  enum class Kind : uint8_t { kFile, kCopy, kView };

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  Kind kind_ = Kind::kFile;
  std::filesystem::path path_;
};

// Runs check(first, last) over the elements [0, count) of `elems` (elements
// of elem_size bytes inside file.bytes()) in chunks of about 8 MiB, stopping
// at the first error. With `release`, each chunk's pages are released once it
// is checked, so a check-only scan holds at most ~8 MiB of the file resident.
template <class Check>
Status check_in_chunks(const MappedFile& file, std::span<const uint8_t> elems, size_t elem_size, bool release,
                       Check&& check) {
  constexpr size_t kChunkBytes = size_t{8} << 20;
  const size_t count = elems.size() / elem_size, per_chunk = kChunkBytes / elem_size + 1;
  for (size_t first = 0; first < count; first += per_chunk) {
    const size_t last = first + per_chunk < count ? first + per_chunk : count;
    PP_RETURN_IF_ERROR(check(first, last));
    if (release) file.release(elems.subspan(first * elem_size, (last - first) * elem_size));
  }
  return Status::ok();
}

}  // namespace proofpipe::formats
