// Byte encoding of G1/G2 points as the snarkjs .zkey and .ptau files store
// them ("LEM", docs/design/formats.md §2.4): affine x then y, each Fq
// 48 bytes little-endian in Montgomery form (x*2^384 mod q), an Fq2 as c0
// then c1, the point at infinity as all-zero bytes. This is exactly the
// in-memory layout of G1Affine / G2Affine, so a section can also be used in
// place; these functions are for single points and for validating a span.
// Not handled here: the big-endian "U" form and compressed points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ec/bls12_381.hpp"

namespace proofpipe::ec {

inline constexpr size_t kG1Bytes = 96;   // 2 x 48
inline constexpr size_t kG2Bytes = 192;  // 4 x 48
static_assert(sizeof(G1Affine) == kG1Bytes && sizeof(G2Affine) == kG2Bytes);

// How much a reader checks. Coordinates are always checked to be reduced
// (Montgomery limbs < q: the field code assumes it) and on the curve.
// kSubgroup adds [r]P = O, about 255 doublings: ~0.2 ms for G1 and ~0.6 ms
// for G2 at the current field speed, so use it for header points and keys
// from untrusted sources, not for every point of a trusted 2^20-point key.
enum class PointCheck : uint8_t { kOnCurve, kSubgroup };

// Parse one point from exactly kG1Bytes / kG2Bytes bytes (size mismatch is
// kInvalidArgument). All-zero bytes give the identity, which always passes.
// Failures are kBadFormat with the reason. Pure functions: thread-safe.
[[nodiscard]] Result<G1Affine> read_g1(std::span<const uint8_t> bytes, PointCheck check = PointCheck::kOnCurve);
[[nodiscard]] Result<G2Affine> read_g2(std::span<const uint8_t> bytes, PointCheck check = PointCheck::kOnCurve);

// Write one point in the same encoding (the identity as zeros). The point must
// be in the library's normal form (reduced Montgomery), which every value made
// by ec/ff code is; nothing is checked.
void write_g1(const G1Affine& p, std::span<uint8_t, kG1Bytes> out);
void write_g2(const G2Affine& p, std::span<uint8_t, kG2Bytes> out);

// Checks every point of a span already viewed in place (e.g. a mmapped zkey
// section) with the same rules as read_g1/read_g2, in parallel over the
// process pool. The first failing index is named in the message ("point 17:
// not on the curve"); with several bad points, which one is reported is
// unspecified. Empty spans are ok.
[[nodiscard]] Status validate_g1(std::span<const G1Affine> points, PointCheck check = PointCheck::kOnCurve);
[[nodiscard]] Status validate_g2(std::span<const G2Affine> points, PointCheck check = PointCheck::kOnCurve);

}  // namespace proofpipe::ec
