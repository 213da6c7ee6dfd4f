// Helpers shared by the fuzz targets: the readers of binary formats take a
// path, so each input is handed to them as a file; and a failed property
// aborts so that libFuzzer saves the input.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace proofpipe::fuzz {

// The input as a file: one memfd per process, rewritten for every input
// (no directory entry, no fsync, so it costs a write and a truncate). The
// readers open it by its /proc/self/fd path, which names a regular file.
inline const std::filesystem::path& bytes_as_file(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("pp-fuzz-input", MFD_CLOEXEC);
  static const std::filesystem::path path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  return path;
}

// A scratch directory for round trips through the writers (which go through
// safe_file: temp file, fsync, rename), made once per process under $TMPDIR.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pp-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

// A property that must hold: print what broke and abort (libFuzzer then
// writes the reproducer).
#define PP_FUZZ_CHECK(cond)                                                            \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

}  // namespace proofpipe::fuzz

namespace proofpipe::fuzz {

// The JSON readers' property: text the reader accepts is written back by the
// writer as text that reads to the same value, and that text is a fixed
// point of read -> write (snarkjs's exact shape).
template <class Read, class Write>
void check_json_round_trip(const uint8_t* data, size_t size, Read&& read, Write&& write) {
  auto value = read(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!value) return;
  const std::string text = write(*value);
  auto back = read(std::string_view(text));
  PP_FUZZ_CHECK(back.is_ok() && *back == *value);
  PP_FUZZ_CHECK(write(*back) == text);
}

}  // namespace proofpipe::fuzz
