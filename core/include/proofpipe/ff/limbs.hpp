// Multi-precision helpers on little-endian arrays of 64-bit limbs, constexpr so
// that field constants (R mod p, R^2 mod p, -p^-1 mod 2^64, exponents) are
// derived at compile time from the modulus alone: nothing is typed in twice.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "proofpipe/hd.hpp"

namespace proofpipe::ff {

using u128 = unsigned __int128;

template <size_t N>
using Limbs = std::array<uint64_t, N>;

// Parses "0x..." hex (at most 16*N digits) at compile time.
template <size_t N>
constexpr Limbs<N> limbs_from_hex(const char* hex) {
  Limbs<N> out{};
  size_t len = 0;
  while (hex[len] != '\0') ++len;
  size_t start = (len >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) ? 2 : 0;
  size_t bit = 0;
  for (size_t i = len; i > start; --i) {
    char c = hex[i - 1];
    uint64_t v = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                 : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                                          : uint64_t(c - 'A' + 10);
    out[bit / 64] |= v << (bit % 64);
    bit += 4;
  }
  return out;
}

template <size_t N>
constexpr bool limbs_geq(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

template <size_t N>
constexpr bool limbs_is_zero(const Limbs<N>& a) {
  uint64_t acc = 0;
  for (size_t i = 0; i < N; ++i) acc |= a[i];
  return acc == 0;
}

// a += b, returns the carry out.
template <size_t N>
constexpr uint64_t limbs_add(Limbs<N>& a, const Limbs<N>& b) {
  uint64_t carry = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) + b[i] + carry;
    a[i] = uint64_t(t);
    carry = uint64_t(t >> 64);
  }
  return carry;
}

// a -= b, returns the borrow out (1 when b > a).
template <size_t N>
constexpr uint64_t limbs_sub(Limbs<N>& a, const Limbs<N>& b) {
  uint64_t borrow = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) - b[i] - borrow;
    a[i] = uint64_t(t);
    borrow = uint64_t(t >> 64) & 1;
  }
  return borrow;
}

template <size_t N>
constexpr Limbs<N> limbs_sub_u64(Limbs<N> a, uint64_t v) {
  Limbs<N> b{};
  b[0] = v;
  limbs_sub(a, b);
  return a;
}

template <size_t N>
constexpr Limbs<N> limbs_shr(Limbs<N> a, unsigned s) {
  while (s >= 64) {
    for (size_t i = 0; i + 1 < N; ++i) a[i] = a[i + 1];
    a[N - 1] = 0;
    s -= 64;
  }
  if (s == 0) return a;
  for (size_t i = 0; i < N; ++i) a[i] = (a[i] >> s) | (i + 1 < N ? a[i + 1] << (64 - s) : 0);
  return a;
}

template <size_t N>
constexpr unsigned limbs_bit_length(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != 0) {
      unsigned b = 64;
      while (!((a[i] >> (b - 1)) & 1)) --b;
      return unsigned(i * 64 + b);
    }
  }
  return 0;
}

template <size_t N>
constexpr bool limbs_bit(const Limbs<N>& a, unsigned i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

// (2^bits) mod m by repeated doubling: slow, compile-time only.
template <size_t N>
constexpr Limbs<N> pow2_mod(unsigned bits, const Limbs<N>& m) {
  Limbs<N> x{};
  x[0] = 1;
  for (unsigned i = 0; i < bits; ++i) {
    Limbs<N> d = x;
    uint64_t carry = limbs_add(d, x);
    if (carry || limbs_geq(d, m)) limbs_sub(d, m);
    x = d;
  }
  return x;
}

// -m^-1 mod 2^64 by Newton iteration (m odd).
constexpr uint64_t neg_inv64(uint64_t m0) {
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - m0 * x;
  return ~x + 1;
}

}  // namespace proofpipe::ff
