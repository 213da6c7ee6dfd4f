// Writing the circom/snarkjs binary container (docs/design/formats.md
// §1): a buffered little-endian writer with a sticky error, and the
// temp-file-then-rename wrapper every writer uses, so a reader never sees a
// half-written file and a failure leaves nothing behind. Internal to formats/.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>

#include "proofpipe/common/status.hpp"

namespace proofpipe::formats::detail {

class BinWriter {
 public:
  explicit BinWriter(std::FILE* f) : f_(f) {}
  void bytes(const void* p, size_t n) {
    if (err_ != 0 || n == 0) return;
    if (std::fwrite(p, 1, n, f_) != n) err_ = errno != 0 ? errno : EIO;
  }
  void u32(uint32_t v) { bytes(&v, 4); }  // host is little-endian (x86-64, aarch64)
  void u64(uint64_t v) { bytes(&v, 8); }
  template <class T>
  void span(std::span<const T> s) {
    bytes(s.data(), s.size_bytes());
  }
  void section(uint32_t id, uint64_t size) {
    u32(id);
    u64(size);
  }
  // magic (4 bytes), version, number of sections.
  void file_header(const char* magic, uint32_t version, uint32_t sections) {
    bytes(magic, 4);
    u32(version);
    u32(sections);
  }
  int error() const { return err_; }

 private:
  std::FILE* f_;
  int err_ = 0;
};

// Runs body(writer) into a fresh temporary beside `path` (common/safe_file.hpp:
// exclusive, never through a link), then renames it over `path`. kIo naming
// `what` ("zkey") with the path, and the failing step.
template <class Body>
Status write_atomically(const std::filesystem::path& path, const std::string& what, Body&& body);

Status write_atomically_impl(const std::filesystem::path& path, const std::string& what,
                             void (*body)(BinWriter&, const void*), const void* ctx);

template <class Body>
Status write_atomically(const std::filesystem::path& path, const std::string& what, Body&& body) {
  using B = std::remove_reference_t<Body>;
  return write_atomically_impl(
      path, what, [](BinWriter& w, const void* ctx) { (*static_cast<const B*>(ctx))(w); }, &body);
}

}  // namespace proofpipe::formats::detail
