// MappedFile: a read-only, private mmap of a whole file, owned RAII-style.
// It is the storage under the zkey/wtns/r1cs readers; it is not a writer and
// not a growable buffer. POSIX mmap(2); errors name the file.
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

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The whole file. The mapping base is page-aligned.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void reset() noexcept;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::filesystem::path path_;
};

}  // namespace proofpipe::formats
