// snarkjs's JSON files for Groth16 over BLS12-381 ("curve": "bls12381") and
// BN254 ("curve": "bn128"): one template over the curve C (callers name it:
// curves::Bls12_381 or curves::Bn254), instantiated for both in proof_json.cpp:
// proof.json, public.json and verification_key.json, written in exactly
// snarkjs's shape (key order, 1-space indent, no trailing newline, so files are
// byte-identical to `snarkjs groth16 prove` / `zkey export verificationkey`
// output) and read back strictly. docs/design/formats.md §4. No pairing
// here: e(alpha, beta) comes in from the caller (see VerificationKeyT).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/formats/fwd.hpp"

namespace proofpipe::formats {

// A Groth16 proof: affine Montgomery points (pi_a, pi_b, pi_c).
template <class C>
struct ProofT {
  using Curve = C;
  typename C::G1Affine a;
  typename C::G2Affine b;
  typename C::G1Affine c;
  bool operator==(const ProofT&) const = default;
};

// An Fq12 element in snarkjs's nesting of vk_alphabeta_12:
//   Fq12 = c[0] + c[1]*w,  Fq6 c[i] = c[i][0] + c[i][1]*v + c[i][2]*v^2,
//   Fq2 = c0 + c1*u,  with v^3 = 1 + u and w^2 = v (the standard BLS12-381
// tower, which ffjavascript uses too). JSON: [[[c0,c1] x3] x2], decimal.
// Kept as plain coefficients so this library does not depend on the pairing;
// the verifier (groth16/src/verifier.cpp) converts its Fq12 to and from this.
template <class C>
struct Fq12CoeffsT {
  typename C::Fq2 c[2][3];
  bool operator==(const Fq12CoeffsT& o) const {
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        if (c[i][j] != o.c[i][j]) return false;
    return true;
  }
};

template <class C>
struct VerificationKeyT {
  using Curve = C;
  uint32_t n_public = 0;
  typename C::G1Affine alpha1{};
  typename C::G2Affine beta2{}, gamma2{}, delta2{};
  // HOOK for the pairing: vk_alphabeta_12 = e(alpha1, beta2). snarkjs writes
  // it but its verifier never reads it. Written only when set; the groth16
  // layer fills it from pairing/bls12_381.hpp. Read back when present.
  std::optional<Fq12CoeffsT<C>> alphabeta_12;
  std::vector<typename C::G1Affine> ic;  // n_public + 1 entries
  bool operator==(const VerificationKeyT&) const = default;
};

// The verification key of a proving key, as `snarkjs zkey export
// verificationkey` builds it (alpha1, beta2, gamma2, delta2, IC from the zkey).
// `alphabeta_12` is the pairing hook above: pass e(alpha1, beta2) to get a file
// identical to snarkjs's, or nullopt to leave the field out.
template <class C>
VerificationKeyT<C> verification_key_from_zkey(
    const ZkeyT<C>& zkey, std::type_identity_t<std::optional<Fq12CoeffsT<C>>> alphabeta_12 = std::nullopt);

// ----- text <-> values -----
// Writers: numbers are decimal strings of canonical values; points are
// [x, y, "1"] and [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]; the point at
// infinity is ["0", "1", "0"] / [["0","0"], ["1","0"], ["0","0"]].
//
// Readers never throw. Errors are one-line kBadFormat Statuses prefixed by
// `what` (e.g. "proof 'p.json'"): malformed JSON (the parser's message), a
// missing or mistyped field ("pi_b[1]: expected an array of 2"), a bad number
// ("pi_a[0]: '12a' is not a decimal number"), an unsupported "protocol" or
// "curve" (only "groth16" and C's name; the other curve's name is
// "curve mismatch: ... expected ..."), a point not on the curve, an IC of the
// wrong length. The third coordinate is read as snarkjs does, as a Jacobian Z:
// 1 = affine, 0 = infinity, anything else divides (X/Z^2, Y/Z^3). Points are
// checked to be on the curve, not in the subgroup (the verifier's job).
// Unknown extra keys are ignored, as snarkjs does.
template <class C>
std::string proof_to_json(const ProofT<C>& proof);
template <class C>
Result<ProofT<C>> proof_from_json(std::string_view text, std::string_view what = "proof");

// public.json: ["<w1>", ..., "<w_nPublic>"], each below r.
template <class C>
std::string public_to_json(std::span<const typename C::Fr> inputs);
template <class C>
Result<std::vector<typename C::Fr>> public_from_json(std::string_view text, std::string_view what = "public inputs");

template <class C>
std::string verification_key_to_json(const VerificationKeyT<C>& vk);
template <class C>
Result<VerificationKeyT<C>> verification_key_from_json(std::string_view text,
                                                       std::string_view what = "verification key");

// The curve a snarkjs JSON file (proof or verification key) names in its
// "curve" field. kBadFormat (prefixed by `what`) when it is missing or
// neither "bls12381" nor "bn128".
Result<curves::CurveId> json_curve(std::string_view text, std::string_view what);
[[nodiscard]] Result<curves::CurveId> read_json_curve(const std::filesystem::path& path, std::string_view kind);

// ----- files -----
// Writers go through common/safe_file.hpp (an exclusive temporary beside the
// target, fsync, rename; never through a link; a directory, FIFO or device
// as the target is refused), so a reader never sees a partial file; kIo
// naming the path on failure. Readers prefix errors with
// "proof '<path>'", "public inputs '<path>'", "verification key '<path>'".
template <class C>
[[nodiscard]] Status write_proof_json(const std::filesystem::path& path, const ProofT<C>& proof);
template <class C>
[[nodiscard]] Result<ProofT<C>> read_proof_json(const std::filesystem::path& path);
template <class C>
[[nodiscard]] Status write_public_json(const std::filesystem::path& path, std::span<const typename C::Fr> inputs);
template <class C>
[[nodiscard]] Result<std::vector<typename C::Fr>> read_public_json(const std::filesystem::path& path);
// A proof and its public inputs as one unit: both are written, then renamed
// into place; on any failure neither file is left.
template <class C>
[[nodiscard]] Status write_proof_and_public(const std::filesystem::path& proof_path, const ProofT<C>& proof,
                                            const std::filesystem::path& public_path,
                                            std::span<const typename C::Fr> inputs);
template <class C>
[[nodiscard]] Status write_verification_key_json(const std::filesystem::path& path, const VerificationKeyT<C>& vk);
template <class C>
[[nodiscard]] Result<VerificationKeyT<C>> read_verification_key_json(const std::filesystem::path& path);

}  // namespace proofpipe::formats
