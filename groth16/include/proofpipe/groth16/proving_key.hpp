// A Groth16 proving key as the prover sees it, for either curve C: header values and zero-copy
// views of the point sections (normally pointing into an mmapped .zkey).
// The views must outlive every use of the key. Points are affine Montgomery,
// infinity all-zero (the zkey layout, docs/design/formats.md §2.3).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::groth16 {

template <class C>
struct ProvingKeyT {
  using Curve = C;
  using G1Affine = typename C::G1Affine;
  using G2Affine = typename C::G2Affine;
  uint32_t n_vars = 0;       // wires, including the constant-one wire 0
  uint32_t n_public = 0;     // public outputs + inputs (wires 1..n_public)
  uint32_t domain_size = 0;  // n, a power of two
  G1Affine alpha1, beta1, delta1;
  G2Affine beta2, gamma2, delta2;
  std::span<const G1Affine> ic;  // n_public + 1
  std::span<const G1Affine> a;   // n_vars
  std::span<const G1Affine> b1;  // n_vars
  std::span<const G2Affine> b2;  // n_vars
  std::span<const G1Affine> c;   // n_vars - n_public - 1 (private wires)
  std::span<const G1Affine> h;   // domain_size (odd-coset Lagrange points)
  // Section 4 (A and B only; see formats::ZkeyCoefT for the R^2 convention).
  std::span<const formats::ZkeyCoefT<C>> coefficients;
  // Whether they are ordered by constraint (synthesis then splits them by
  // rows across threads); unset: synthesize scans them to find out.
  std::optional<bool> coefficients_sorted;

  // Set where one proof is the key's only use (`proofpipe prove`): called
  // with each section as soon as the prover is done with it (synthesize: the
  // coefficients; the CPU backend: A after its MSM, B2 after its MSM), so
  // its memory leaves the process before the next stage (formats::ZkeyT::
  // drop); that span must not be read again. Empty: nothing is given back.
  // A copy of the key made for other work (a backend's known-answer subset)
  // must not carry it.
  // done_with(context, part, first, count): elements [first, first + count)
  // of that part are no longer needed (their pages may go, the span stays
  // readable); count SIZE_MAX with first 0: the whole part, whose span must
  // then not be read again. Ranges come from the pool's threads, at the
  // same time: the function must be thread-safe.
  void (*done_with)(void* context, formats::KeyPart, size_t first, size_t count) = nullptr;
  void* done_context = nullptr;
  void done(formats::KeyPart s, size_t first = 0, size_t count = SIZE_MAX) const {
    if (done_with != nullptr) done_with(done_context, s, first, count);
  }
};

// Views of a loaded zkey (which must outlive the result).
template <class C>
ProvingKeyT<C> proving_key_of(const formats::ZkeyT<C>& zkey);

}  // namespace proofpipe::groth16
