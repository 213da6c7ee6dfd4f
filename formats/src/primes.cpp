// Prime recognition for file headers (BLS12-381 supported, bn128 named).
#include "primes.hpp"

#include <cstring>
#include <string>

#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::formats::detail {

namespace {

// bn128 (alt_bn128/BN254) primes, only to name the curve in an error.
constexpr auto kBnQ = ff::limbs_from_hex<4>("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
constexpr auto kBnR = ff::limbs_from_hex<4>("0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");

template <size_t N>
bool equals(std::span<const uint8_t> bytes, const ff::Limbs<N>& p) {
  return bytes.size() == 8 * N && std::memcmp(bytes.data(), p.data(), 8 * N) == 0;
}

// Big-endian hex of LE bytes (at most 96 digits: n8 <= 48 here).
std::string hex(std::span<const uint8_t> le) {
  std::string s = "0x";
  for (size_t i = le.size(); i-- > 0;) s += fmt::format("{:02x}", le[i]);
  return s;
}

}  // namespace

Status check_prime(const BinFile& f, FieldKind kind, uint32_t n8, std::span<const uint8_t> prime, const char* label) {
  const bool scalar = kind == FieldKind::kScalar;
  const uint32_t want_n8 = scalar ? 32 : 48;
  const char* field = scalar ? "scalar field" : "base field";
  if (equals(prime, scalar ? kBnR : kBnQ)) {
    return f.error("unsupported curve bn128 ({} {} is bn128's); proofpipe supports bls12381 only", field, label);
  }
  if (n8 != want_n8) {
    return f.error("unsupported curve: {} elements are {} bytes, expected {} (bls12381)", field, n8, want_n8);
  }
  bool ok = scalar ? equals(prime, ff::MontConsts<ff::FrParams>::kP) : equals(prime, ff::MontConsts<ff::FqParams>::kP);
  if (!ok) {
    return f.error("prime mismatch: {} {} is {}, not bls12381's", field, label, hex(prime));
  }
  return Status::ok();
}

bool below_r(const uint8_t* bytes32) {
  ff::Fr::Repr v;
  std::memcpy(v.data(), bytes32, 32);
  return !ff::limbs_geq(v, ff::MontConsts<ff::FrParams>::kP);
}

}  // namespace proofpipe::formats::detail
