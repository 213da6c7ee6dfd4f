// The iden3 "binfile" container shared by .r1cs, .wtns, .zkey and .ptau
// (@iden3/binfileutils; docs/design/formats.md §1), read over bytes that
// the caller owns (normally a MappedFile). Every access is bounds-checked;
// nothing here dereferences a raw pointer computed from file contents.
//
// Layout (little-endian):  magic[4] | u32 version | u32 nSections |
//                          nSections x { u32 type | u64 size | size bytes }
// Sections follow each other with no gap, in any order (circom writes r1cs as
// 2,1,3; groth16 setup writes zkey as 1,2,4,3,9,8,5,6,7,10). Because the
// table is walked header by header, sections can never overlap; a wrong size
// field shows up as a truncation, a bogus next header, or trailing bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::formats {

// One section's place in the file (all offsets are file offsets, in bytes).
struct BinSection {
  uint32_t type = 0;
  uint64_t header_offset = 0;  // where its 12-byte {type, size} header starts
  uint64_t data_offset = 0;    // header_offset + 12
  uint64_t size = 0;           // data bytes, excluding the header
};

// A small forward reader over one span, for headers and variable-length
// records. Each read checks the remaining length first and, on failure,
// returns a kBadFormat Status "<what>: truncated: <field> needs N bytes at
// offset O, only M left" (offsets relative to the span). Never reads past
// the span. Not thread-safe (it has a position); cheap to copy.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> data, std::string what) : data_(data), what_(std::move(what)) {}

  Result<uint32_t> u32(const char* field);
  Result<uint64_t> u64(const char* field);
  // The next n bytes (a sub-span of the input, no copy).
  Result<std::span<const uint8_t>> bytes(uint64_t n, const char* field);
  // A trivially copyable value copied out byte-wise (any alignment).
  template <class T>
  Result<T> pod(const char* field) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto b = bytes(sizeof(T), field);
    if (!b.is_ok()) return b.status();
    T v;
    std::memcpy(&v, b->data(), sizeof(T));
    return v;
  }
  Status skip(uint64_t n, const char* field) { return bytes(n, field).status(); }
  // kBadFormat "<what>: N unexpected trailing bytes" unless fully consumed.
  Status expect_end() const;

  uint64_t offset() const { return pos_; }
  uint64_t remaining() const { return data_.size() - pos_; }
  const std::string& what() const { return what_; }

 private:
  std::span<const uint8_t> data_;
  uint64_t pos_ = 0;
  std::string what_;
};

// The parsed section table of one container. Holds a span over the caller's
// bytes (it does not own them): keep the MappedFile alive while this and any
// span it returned are in use. Move/copy are cheap; @concurrent: const methods
// may be called from any thread.
class BinFile {
 public:
  // Checks the magic (exactly 4 ASCII bytes, e.g. "zkey") and the version,
  // then walks the section table: rejects a truncated header, a section whose
  // size runs past the end of the file, a duplicate section type, and any bytes
  // after the last section (snarkjs/circom never write any; they would mean a
  // miscounted table). `what` prefixes every error, e.g. "zkey 'a/c.zkey'".
  [[nodiscard]] static Result<BinFile> parse(std::span<const uint8_t> bytes, std::string_view magic, uint32_t version,
                                             std::string what);

  uint32_t version() const { return version_; }
  const std::vector<BinSection>& sections() const { return sections_; }
  const BinSection* find(uint32_t type) const;
  bool has(uint32_t type) const { return find(type) != nullptr; }

  // The data of section `type`. kBadFormat "<what>: section N is missing".
  [[nodiscard]] Result<std::span<const uint8_t>> section(uint32_t type) const;
  // The same, also requiring the exact size:
  // "<what>: section 7 is 1024 bytes, expected 2048".
  [[nodiscard]] Result<std::span<const uint8_t>> section(uint32_t type, uint64_t expected_size) const;
  // A Cursor over section `type`, named "<what> section N" in its errors.
  [[nodiscard]] Result<Cursor> cursor(uint32_t type) const;

  const std::string& what() const { return what_; }
  // A kBadFormat Status "<what>: <message>" (the one-line error convention).
  template <class... Args>
  Status error(fmt::format_string<Args...> f, Args&&... args) const {
    return Status(ErrorCode::kBadFormat, what_ + ": " + fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 0;
  std::vector<BinSection> sections_;
  std::string what_;
};

// Reinterprets `bytes` as `count` objects of T in place (zero copy) when the
// size is exactly count*sizeof(T) and the address is aligned for T; nullopt
// when misaligned. The caller checks the size beforehand (this asserts it).
// T must be trivially copyable with no padding-sensitive invariants (field
// elements, affine points, packed records): such types are implicit-lifetime,
// so viewing mapped bytes as them is the C++20 "implicit object creation" case.
template <class T>
std::optional<std::span<const T>> aligned_view(std::span<const uint8_t> bytes, uint64_t count) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (bytes.size() != count * sizeof(T)) return std::nullopt;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(T) != 0) return std::nullopt;
  return std::span<const T>(reinterpret_cast<const T*>(bytes.data()), count);
}

}  // namespace proofpipe::formats
