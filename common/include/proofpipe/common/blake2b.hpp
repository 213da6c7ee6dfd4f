// BLAKE2b (RFC 7693), unkeyed, streaming: the service's job digests (the same
// id with the same content is the same job) and, later, the provenance hash of
// a .zkey. update() compresses whole 128-byte blocks straight from the caller's
// buffer, so hashing a GiB-sized key costs one pass over it (no per-byte calls).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace proofpipe {

class Blake2b {
 public:
  static constexpr size_t kBlockBytes = 128;
  static constexpr size_t kMaxOutBytes = 64;

  // out_len: 1..64 bytes of digest (anything else is a bug: asserted).
  explicit Blake2b(size_t out_len = 32);

  void update(std::span<const uint8_t> bytes);
  void update(std::string_view bytes);
  // The digest (out_len bytes). Once only: the state is spent afterwards.
  std::vector<uint8_t> final();
  // final(), in lowercase hex.
  std::string final_hex();

 private:
  void compress(const uint8_t* block, bool last);

  std::array<uint64_t, 8> h_{};
  uint64_t t_lo_ = 0, t_hi_ = 0;  // bytes hashed so far, a 128-bit counter
  std::array<uint8_t, kBlockBytes> buf_{};
  size_t buf_len_ = 0;
  size_t out_len_;
  bool finished_ = false;
};

// BLAKE2b of `bytes`, in lowercase hex (2 * out_len characters).
std::string blake2b_hex(std::string_view bytes, size_t out_len = 32);

// Lowercase hex of any bytes ("0e57...").
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace proofpipe
