// A circuit-specific Groth16 setup from toxic waste known to this process, for
// TESTING and benchmarking only (`proofpipe setup-dev`): it produces a
// snarkjs-compatible proving key without a powers-of-tau file, but whoever
// knows tau/alpha/beta/delta can forge proofs for the key.
//
// The key is the one snarkjs's `groth16 setup` + `zkey contribute` would make
// for the same secrets (docs/design/formats.md §2.3, §3), gamma = 1:
//   domain  n = 2^ceil(log2(nConstraints + nPublic + 1)), w = 5^((r-1)/n)
//   rows    r1cs constraint c at w^c, then the public rows nConstraints+s with
//           A[nConstraints+s][s] = 1 for s = 0..nPublic
//   A_s, B_s, C_s = sum_c M[c][s] * L_c(tau)   (Lagrange basis of the n-domain)
//   IC_s  = (beta A_s + alpha B_s + C_s) G1            s <= nPublic
//   C_s   = (beta A_s + alpha B_s + C_s) / delta G1    s >  nPublic
//   H_i   = L^{(2n)}_{2i+1}(tau) / delta G1           (odd Lagrange points of the 2n-domain)
// with L_c(tau) = (tau^n - 1)/n * w^c / (tau - w^c) (one batch inversion).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/formats/zkey_writer.hpp"

namespace proofpipe::groth16 {

// The secrets of a setup (Montgomery Fr). gamma is 1, as in snarkjs.
template <class C>
struct ToxicWasteT {
  typename C::Fr tau, alpha, beta, delta;
  // Overwrites the four values (volatile stores, not optimised away).
  void wipe();
};

// Uniform non-zero alpha, beta, delta and a tau with tau^(2n) != 1 (so tau is
// on neither the n- nor the 2n-domain), from getrandom(2). kIo if the OS
// refuses randomness.
template <class C>
[[nodiscard]] Result<ToxicWasteT<C>> random_toxic_waste(uint32_t domain_size);

// log2 of snarkjs's domainSize for this r1cs: the smallest k with
// 2^k >= nConstraints + nPublic + 1. kInvalidArgument above 2^28 (the prover's
// NTT limit, ntt::kMaxLogSize).
[[nodiscard]] Result<unsigned> dev_setup_log2_domain(const formats::R1csHeader& header);

// A whole proving key in memory; parts() views it for formats::write_zkey.
// At 2^20 rows and ~2^20 wires this is about 0.6 GB.
template <class C>
struct DevKeyT {
  formats::ZkeyHeaderT<C> header;
  std::vector<formats::ZkeyCoefT<C>> coefs;
  std::vector<typename C::G1Affine> ic, a, b1, c, h;
  std::vector<typename C::G2Affine> b2;

  formats::ZkeyPartsT<C> parts() const;
};

// Computes the key for `r1cs` and the given secrets (deterministic: the same
// inputs give the same key). Multithreaded (the process pool). Errors:
// kInvalidArgument for a degenerate r1cs (nWires < nPublic + 1), a domain over
// 2^28, or secrets that are unusable (a zero alpha/beta/delta, tau on the
// 2n-domain).
// For either curve (the r1cs's).
template <class C>
[[nodiscard]] Result<DevKeyT<C>> dev_setup(const formats::R1csT<C>& r1cs, const ToxicWasteT<C>& secrets);

// Fixed-base scalar multiplication: out[i] = scalars[i] * base, affine (the
// identity for a zero scalar). A signed-digit windowed table of multiples of
// `base` is built once (window width chosen from scalars.size()), then the
// points are split over the process pool and normalised with one inversion
// per chunk. out.size() must equal scalars.size() (PP_ASSERT).
void fixed_base_mul(const bls12_381::G1Affine& base, std::span<const bls12_381::Fr> scalars,
                    std::span<bls12_381::G1Affine> out);
void fixed_base_mul(const bls12_381::G2Affine& base, std::span<const bls12_381::Fr> scalars,
                    std::span<bls12_381::G2Affine> out);

}  // namespace proofpipe::groth16
