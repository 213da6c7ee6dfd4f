// Private: recognising the field primes written in file headers, so that a
// wrong-curve file says "unsupported curve bn128" instead of a bare mismatch.
#pragma once

#include <cstdint>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/binfile.hpp"

namespace proofpipe::formats::detail {

enum class FieldKind { kScalar, kBase };  // r (Fr) or q (Fq)

// Checks a header's element size `n8` and prime bytes (LE, n8 bytes) against
// BLS12-381's r or q. Errors, through f.error(): "unsupported curve bn128 ...",
// "unsupported curve: ... elements are 40 bytes, expected 32", "prime
// mismatch: ...". `label` names the field in messages ("prime", "q", "r").
Status check_prime(const BinFile& f, FieldKind kind, uint32_t n8, std::span<const uint8_t> prime, const char* label);

// True when the n8 LE bytes encode a value below BLS12-381's r (n8 = 32).
bool below_r(const uint8_t* bytes32);

}  // namespace proofpipe::formats::detail
