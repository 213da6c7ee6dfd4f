// Groth16 proving keys in snarkjs's .zkey format (version 1, protocol 1),
// for BLS12-381 and BN254 (bn128): one template over the curve C
// (proofpipe/curves.hpp), which every caller names
// (docs/design/formats.md §2.3, §2.4). Points are exposed
// as spans straight into the mmap (zero copy) after every section size has been
// checked against nVars/nPublic/domainSize. Not a writer; not PLONK/FFLONK.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/formats/fwd.hpp"
#include "proofpipe/formats/mapped_file.hpp"

namespace proofpipe::formats {

// Section ids of a Groth16 zkey.
enum ZkeySection : uint32_t {
  kZkeyHeader = 1,          // u32 protocol
  kZkeyGroth16Header = 2,   // primes, sizes, alpha/beta/gamma/delta
  kZkeyIC = 3,              // (nPublic+1) G1
  kZkeyCoefs = 4,           // u32 nCoef, nCoef x ZkeyCoefT
  kZkeyA = 5,               // nVars G1
  kZkeyB1 = 6,              // nVars G1
  kZkeyB2 = 7,              // nVars G2
  kZkeyC = 8,               // (nVars-nPublic-1) G1, private wires only
  kZkeyH = 9,               // domainSize G1 (odd Lagrange basis of the 2n-domain / delta)
  kZkeyContributions = 10,  // MPC transcript: not read by the prover
};

// Section 2, decoded. Points are affine Montgomery (the zkey's own layout);
// all six have been checked to be fully reduced, on the curve, in the r-order
// subgroup and not the point at infinity.
template <class C>
struct ZkeyHeaderT {
  using Curve = C;
  static constexpr uint32_t kN8q = uint32_t(C::Fq::kBytes);  // 48 (BLS12-381), 32 (BN254)
  static constexpr uint32_t kN8r = 32;
  uint32_t n_vars = 0;       // = r1cs nWires, wire 0 is the constant 1
  uint32_t n_public = 0;     // public outputs + public inputs, excluding wire 0
  uint32_t domain_size = 0;  // a power of two
  uint32_t log2_domain_size = 0;
  typename C::G1Affine alpha1, beta1, delta1;
  typename C::G2Affine beta2, gamma2, delta2;
};

// One entry of section 4, the QAP's A and B matrices (snarkjs never stores C).
// Exactly the file layout: 44 bytes, 4-byte aligned, little-endian, so a span
// of these points into the mmap.
//
// Value convention (checked against r1cs coefficients in tests/formats/zkey_test.cpp):
//   value_bytes = LE(coef * R^2 mod r), R = 2^256.
// Interpreted as a Montgomery representation this is the element coef*R, so:
//   * coef()              = from_mont(value) * from_mont(1)        -> the element coef
//   * snarkjs's shortcut  = from_mont(value) * from_mont(w_canonical_limbs)
//                         = the element coef*w, when the witness is kept in
//                           STANDARD form (as the .wtns stores it). With a
//                           Montgomery-form witness (formats::WitnessT) use
//                           coef() * w instead.
// Validated on load: matrix < 2, constraint < domainSize, signal < nVars,
// value < r.
template <class C>
struct ZkeyCoefT {
  using Fr = typename C::Fr;
  uint32_t matrix;      // 0 = A, 1 = B
  uint32_t constraint;  // row = index into the n-domain
  uint32_t signal;      // wire index
  uint8_t value_bytes[32];

  // from_mont(value_bytes): the raw multiplicand snarkjs uses (element coef*R).
  Fr value_mont() const {
    typename Fr::Repr r;
    std::memcpy(r.data(), value_bytes, sizeof(r));
    return Fr::from_mont(r);
  }
  // The coefficient itself as a Montgomery-form Fr (montmul by 1 strips one R).
  Fr coef() const { return value_mont() * Fr::from_mont(typename Fr::Repr{1, 0, 0, 0}); }
};
static_assert(sizeof(ZkeyCoefT<curves::Bls12_381>) == 44 && alignof(ZkeyCoefT<curves::Bls12_381>) == 4,
              "zkey section 4 entry layout");
static_assert(sizeof(ZkeyCoefT<curves::Bn254>) == 44 && alignof(ZkeyCoefT<curves::Bn254>) == 4);
static_assert(std::is_trivially_copyable_v<ZkeyCoefT<curves::Bls12_381>>);

struct ZkeyLoadOptions {
  // Also check every point of sections 3 and 5-9: coordinates fully reduced
  // (< q) and on the curve. Not the subgroup (snarkjs does not either, P8).
  // Costs a few field multiplications per point (~0.1 s per million G1).
  bool check_points = false;
  // false: sections 5-9 (A, B1, B2, C, H points) are size-checked but neither
  // viewed nor copied, and a()..h() are empty. For processes that need only
  // the header, IC and coefficients (coordinator, synthesis workers): at 2^20
  // constraints those sections are ~560 MB of which about half would be copied
  // for alignment, per process.
  bool points = true;
  // true: section 4's pages are released from this process's RSS as they are
  // checked (MappedFile::release); coefs() stays valid and faults them back
  // in when read. For the coordinator, which only checks them: at 2^20 the
  // section is about 200 MB it would otherwise keep resident.
  bool release_coefficients = false;
};

// Maps and validates a Groth16 zkey for curve C. Every failure is one line naming the file
// (prefix "zkey '<path>': "): missing file (kNotFound), truncated, bad magic,
// unsupported version, missing/duplicate section, "unsupported protocol plonk
// (2)", "unsupported curve bn128", "prime mismatch", "domainSize 1000 is not a
// power of two", "section 7 is 1024 bytes, expected 2048", a coefficient index
// out of range, a header point off the curve or the subgroup, a key for the
// other curve ("curve mismatch: ... is bn128's, expected bls12381").
// kBadFormat for all content errors.
template <class C>
[[nodiscard]] Result<ZkeyT<C>> load_zkey(const std::filesystem::path& path, const ZkeyLoadOptions& options = {});
// The same checks over bytes already mapped, copied or viewed (the C
// library's buffers: MappedFile::copy_of, view_of); the key keeps `file`,
// and messages name its path().
template <class C>
[[nodiscard]] Result<ZkeyT<C>> load_zkey_from(MappedFile file, const ZkeyLoadOptions& options = {});

// ZkeyLoadOptions::check_points's check on a loaded key: every point of
// sections 3 and 5-9 reduced and on its curve, else kBadFormat naming the
// section and index ("section 9 (H) point 3 is not on the curve"). For a
// proof that does not verify: was the key corrupt, or the witness wrong?
template <class C>
[[nodiscard]] Status check_zkey_points(const ZkeyT<C>& zkey);

// The curve a zkey is for, from its header's base-field prime q, reading
// only the section table and section 2's first bytes. kBadFormat naming the
// file for a key of neither curve (or not a Groth16 zkey at all).
[[nodiscard]] Result<curves::CurveId> zkey_curve(const std::filesystem::path& path);
[[nodiscard]] Result<curves::CurveId> zkey_curve(const MappedFile& file);

// Each key's curve, in order (a pipeline worker maps every key of its run,
// of either curve): the first error, or kInvalidArgument when none is given.
[[nodiscard]] inline Result<std::vector<curves::CurveId>> zkey_curves(std::span<const std::string> paths) {
  if (paths.empty()) return make_error(ErrorCode::kInvalidArgument, "no zkey given");
  std::vector<curves::CurveId> out;
  for (const std::string& path : paths) {
    PP_ASSIGN_OR_RETURN(const curves::CurveId curve, zkey_curve(path));
    out.push_back(curve);
  }
  return out;
}

// The sections a one-shot prover can give back as it goes (ZkeyT::drop).
enum class KeyPart : uint8_t { kCoefficients, kA, kB1, kB2, kC, kH };

// A loaded proving key. Move-only: the spans point into the mapping (or into
// owned copies, see below), which move with the object.
//
// Alignment: G1Affine/G2Affine (either curve's) need 8-byte alignment, but a
// section's data offset is only guaranteed to be a multiple of 4 (the 4-byte nCoef and the
// 44-byte coefficients shift everything after section 4; in the snarkjs
// fixtures about half of the point sections start at 4 mod 8). A section whose
// data is aligned is viewed in place; one that is not is copied once into an
// owned 8-byte-aligned buffer at load time (copied_bytes() says how much), so
// no misaligned object access ever happens. Section 4 needs only 4-byte
// alignment and is in practice always viewed in place.
//
// @concurrent: all const methods may be called from any number of threads.
template <class C>
class ZkeyT {
 public:
  using Curve = C;
  using G1Affine = typename C::G1Affine;
  using G2Affine = typename C::G2Affine;
  using Header = ZkeyHeaderT<C>;
  using Coef = ZkeyCoefT<C>;

  ZkeyT(ZkeyT&&) noexcept = default;
  ZkeyT& operator=(ZkeyT&&) noexcept = default;
  ZkeyT(const ZkeyT&) = delete;
  ZkeyT& operator=(const ZkeyT&) = delete;

  const Header& header() const { return header_; }
  uint32_t n_vars() const { return header_.n_vars; }
  uint32_t n_public() const { return header_.n_public; }
  uint32_t domain_size() const { return header_.domain_size; }

  std::span<const G1Affine> ic() const { return ic_; }  // nPublic + 1
  std::span<const G1Affine> a() const { return a_; }    // nVars
  std::span<const G1Affine> b1() const { return b1_; }  // nVars
  std::span<const G2Affine> b2() const { return b2_; }  // nVars
  std::span<const G1Affine> c() const { return c_; }    // nVars - nPublic - 1; c()[i] is wire nPublic+1+i
  std::span<const G1Affine> h() const { return h_; }    // domainSize
  std::span<const Coef> coefs() const { return coefs_; }
  // Whether section 4 is ordered by constraint (as snarkjs writes it),
  // found by the load's check pass so the prover need not scan it again.
  bool coefs_sorted() const { return coefs_sorted_; }

  const std::filesystem::path& path() const { return file_.path(); }
  // Bytes copied because a section was misaligned (0 when fully zero-copy).
  uint64_t copied_bytes() const { return copied_bytes_; }

  // Gives a section's memory back for a process that is done with it (one
  // proof, then exit: at 2^20 the A and B2 sections are 64 and 128 MiB that
  // would otherwise stay resident through the last MSM). A section viewed in
  // the mapping has its pages released; a copied one has its buffer freed.
  // Either way its span here is empty afterwards, and every span taken from
  // it before (a ProvingKeyT's) must not be read again. check_zkey_points
  // then reads the file anew.
  void drop(KeyPart s);
  bool dropped_any() const { return dropped_ != 0; }
  // Releases the mapped pages under elements [first, first + count) of a
  // section viewed in the mapping; the span stays valid (the pages fault
  // back from the page cache if read again). Nothing for a copied section,
  // whose anonymous pages would read back as zeros.
  void release_range(KeyPart s, size_t first, size_t count) const;

 private:
  template <class D>
  friend Result<ZkeyT<D>> load_zkey_from(MappedFile file, const ZkeyLoadOptions& options);
  ZkeyT() = default;
  std::span<const uint8_t> part_bytes(KeyPart s, size_t first, size_t count) const;

  MappedFile file_;
  // Copies of misaligned sections, by KeyPart (and one for IC).
  static constexpr size_t kIcCopy = 6;
  std::array<std::unique_ptr<uint64_t[]>, 7> owned_;
  uint64_t copied_bytes_ = 0;
  uint8_t dropped_ = 0;  // bit per KeyPart
  bool coefs_sorted_ = true;
  Header header_{};
  std::span<const G1Affine> ic_, a_, b1_, c_, h_;
  std::span<const G2Affine> b2_;
  std::span<const Coef> coefs_;
};

}  // namespace proofpipe::formats
