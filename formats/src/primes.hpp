// Private: recognising the field primes written in file headers, so that a
// file for the other curve says which curve it is for instead of a bare
// mismatch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/formats/binfile.hpp"

namespace proofpipe::formats::detail {

enum class FieldKind { kScalar, kBase };  // r (Fr) or q (Fq)

// The curve whose r (kScalar) or q (kBase) the n8 LE bytes are, if any.
std::optional<curves::CurveId> curve_of_prime(FieldKind kind, std::span<const uint8_t> prime);

// The curve a circom/snarkjs binary file is for, read from the prime at the
// start of one section (u32 n8, then n8 bytes): the zkey's q in section 2,
// the wtns's and r1cs's r in section 1. `kind` is the file's magic ("zkey",
// "wtns", "r1cs"), also its name in messages. kBadFormat naming the file for
// a prime of neither curve.
Result<curves::CurveId> file_curve(const std::filesystem::path& path, const char* kind, uint32_t version,
                                   uint32_t section, FieldKind field);
// The same over bytes already in memory, `name` standing for the path.
Result<curves::CurveId> bytes_curve(std::span<const uint8_t> bytes, const std::filesystem::path& name, const char* kind,
                                    uint32_t version, uint32_t section, FieldKind field);

// Checks a header's element size `n8` and prime bytes (LE, n8 bytes) against
// curve C's r or q. Errors, through f.error(): "curve bn128 (its scalar field
// prime), expected bls12381", "unsupported curve: ... elements are 40 bytes,
// expected 32", "prime mismatch: ...". `label` names the field ("prime", "q", "r").
template <class C>
Status check_prime(const BinFile& f, FieldKind kind, uint32_t n8, std::span<const uint8_t> prime, const char* label);

// True when the 32 LE bytes encode a value below C's r.
template <class C>
bool below_r(const uint8_t* bytes32) {
  typename C::Fr::Repr v;
  std::memcpy(v.data(), bytes32, 32);
  return !ff::limbs_geq(v, C::Fr::C::kP);
}

}  // namespace proofpipe::formats::detail
