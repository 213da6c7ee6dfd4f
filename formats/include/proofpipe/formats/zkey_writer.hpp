// Writing Groth16 proving keys in snarkjs's .zkey format (version 1, protocol
// 1, BLS12-381; docs/design/formats.md §1, §2.3, §2.4): the counterpart
// of load_zkey. Sections are written in the order 1, 2, ..., 10 (the order
// `snarkjs zkey contribute` uses). Points go out in the library's in-memory
// affine Montgomery layout, which is exactly the file's "LEM" layout (the
// identity as all-zero bytes); coefficients as ZkeyCoefT records.
//
// Not a ceremony tool: section 10 (the MPC transcript) is either given raw by
// the caller or written as "no contributions" (64-byte csHash of zeros, then
// u32 nContrib = 0). snarkjs's `zkey export verificationkey`, `groth16 prove`
// and `groth16 verify` never read section 10; `zkey verify` against a ptau
// will reject such a key (there is no ptau it came from).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/zkey.hpp"

#include <type_traits>

namespace proofpipe::formats {

// Everything a Groth16 zkey holds, as views over caller memory (vectors, or
// the spans of a loaded ZkeyT). Sizes must agree with the header:
//   ic: nPublic+1, a/b1/b2: nVars, c: nVars-nPublic-1, h: domainSize.
// header.log2_domain_size is ignored (derived from domain_size).
template <class C>
struct ZkeyPartsT {
  using Curve = C;
  ZkeyHeaderT<C> header;
  std::span<const typename C::G1Affine> ic;
  std::span<const ZkeyCoefT<C>> coefs;  // section 4, in file order
  std::span<const typename C::G1Affine> a;
  std::span<const typename C::G1Affine> b1;
  std::span<const typename C::G2Affine> b2;
  std::span<const typename C::G1Affine> c;
  std::span<const typename C::G1Affine> h;
  // Raw section-10 bytes; nullopt writes 64 zero bytes + u32 0 (68 bytes).
  std::optional<std::span<const uint8_t>> contributions;
};

// Size in bytes of the file write_zkey would produce for `parts`.
template <class C>
uint64_t zkey_file_size(const ZkeyPartsT<C>& parts);

// Writes `parts` to `path`: to "<path>.tmp-<pid>" first, then renamed over
// `path`, so a reader never sees a half-written key and a failure leaves no
// partial file. Validation first (nothing is written on failure):
// kInvalidArgument for a domainSize that is not a power of two, nPublic + 1 >
// nVars or > domainSize, a span of the wrong length ("section 7 (B2) has 10
// points, expected 12"), a coefficient with matrix > 1 or an index out of
// range. Header points are not checked (the caller made them). kIo with the
// path and errno text for open/write/rename failures.
// @concurrent: thread-safe for different paths (no shared state).
template <class C>
[[nodiscard]] Status write_zkey(const std::filesystem::path& path, const ZkeyPartsT<C>& parts);

// The section-4 value of an r1cs coefficient: LE bytes of coef*R^2 mod r
// (R = 2^256), for a Montgomery-form Fr `coef` (see ZkeyCoefT). With
// ZkeyCoefT<C>{...}.coef() this round-trips.
template <class C>
ZkeyCoefT<C> make_zkey_coef(uint32_t matrix, uint32_t constraint, uint32_t signal,
                            const std::type_identity_t<typename C::Fr>& coef);

}  // namespace proofpipe::formats
