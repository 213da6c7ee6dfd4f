// Rank-1 constraint systems in circom's .r1cs format (version 1;
// docs/design/formats.md §2.1), BLS12-381's scalar field only. Loaded into
// compressed sparse rows; the wire->label map (section 3) is size-checked but
// not loaded; custom gates (sections 4/5, PLONK only) are rejected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/formats/fwd.hpp"

namespace proofpipe::formats {

struct R1csHeader {
  uint32_t n_wires = 0;    // wire 0 is the constant 1
  uint32_t n_pub_out = 0;  // wires 1..n_pub_out
  uint32_t n_pub_in = 0;   // then the public inputs
  uint32_t n_prv_in = 0;   // then the private inputs, then internal wires
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  uint32_t n_public() const { return n_pub_out + n_pub_in; }  // = zkey nPublic
};

// One of A, B, C in CSR form: row c's terms are [row_start[c], row_start[c+1]).
// Term order is the file's (circom does not sort by wire). Coefficients are
// Montgomery-form Fr (the file stores standard form).
template <class C>
struct SparseMatrixT {
  using Fr = typename C::Fr;
  std::vector<uint64_t> row_start;  // n_constraints + 1 entries, row_start[0] = 0
  std::vector<uint32_t> wires;
  std::vector<Fr> coefs;

  size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
  size_t nnz() const { return wires.size(); }
  std::span<const uint32_t> row_wires(size_t c) const {
    return std::span<const uint32_t>(wires).subspan(row_start[c], row_start[c + 1] - row_start[c]);
  }
  std::span<const Fr> row_coefs(size_t c) const {
    return std::span<const Fr>(coefs).subspan(row_start[c], row_start[c + 1] - row_start[c]);
  }
  // <row c, w> for a Montgomery-form witness with every wire index < w.size().
  Fr dot(size_t c, std::span<const Fr> w) const {
    Fr acc = Fr::zero();
    for (uint64_t k = row_start[c]; k < row_start[c + 1]; ++k) acc += coefs[k] * w[wires[k]];
    return acc;
  }
};

// Constraint c means <A_c, w> * <B_c, w> - <C_c, w> = 0 (mod r).
template <class C>
struct R1csT {
  using Curve = C;
  std::filesystem::path path;
  R1csHeader header;
  SparseMatrixT<C> a, b, c;
};

// Loads an r1cs. Errors (prefix "r1cs '<path>': "): missing file, truncated,
// bad magic, unsupported version, missing section 1/2, "unsupported curve
// bn128", "prime mismatch", inconsistent wire counts, a term's wire not below
// nWires, a coefficient not below r, trailing bytes in section 2, a wrong
// section 3 size, custom gates. kBadFormat for content errors.
template <class C>
[[nodiscard]] Result<R1csT<C>> load_r1cs(const std::filesystem::path& path);

// The curve an r1cs is for (circom's --prime), from its header's prime.
[[nodiscard]] Result<curves::CurveId> r1cs_curve(const std::filesystem::path& path);

// Writes `r1cs` in circom's format (sections 1, 2, 3; label i for wire i),
// temp file then rename. kInvalidArgument when the matrices' row counts do
// not match the header; kIo naming the file otherwise.
template <class C>
[[nodiscard]] Status write_r1cs(const std::filesystem::path& path, const R1csT<C>& r1cs);

// nVars == nWires and nPublic == nPubOut + nPubIn. kInvalidArgument naming both.
template <class C>
[[nodiscard]] Status check_r1cs_matches(const ZkeyT<C>& zkey, const R1csT<C>& r1cs);

// Every constraint holds for `witness` (the check `snarkjs wtns check` does;
// `groth16 prove` itself never checks, pitfall P6). kInvalidArgument
// "witness 'w' has N values, r1cs 'x' has nWires = M" or "witness 'w' does not
// satisfy constraint 17 of r1cs 'x'". O(nnz) field multiplications.
template <class C>
[[nodiscard]] Status check_r1cs_satisfied(const R1csT<C>& r1cs, const WitnessT<C>& witness);

}  // namespace proofpipe::formats
