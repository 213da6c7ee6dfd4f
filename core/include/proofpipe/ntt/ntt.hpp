// Number-theoretic transform over a scalar field Fr (BLS12-381's or BN254's:
// one template, instantiated for both in core/src/ntt*.cpp), with the roots
// of unity snarkjs uses (w_n = g^((r-1)/n), g = 5 for both fields,
// docs/design/formats.md §3.2), and the odd-coset H step of snarkjs/rapidsnark's Groth16 prover (§3.3).
// Not a polynomial library: no division, no arbitrary-size domains.
//
// Representation: every Fr here is Montgomery form (the only form Fr has in
// memory). Vectors are caller-owned spans transformed in place; nothing keeps a
// reference to them after the call. Sizes are powers of two 2^k, k in
// [0, kMaxLogSize]; a wrong size is a bug (PP_ASSERT aborts), not a Status.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"

namespace proofpipe::ntt {

// Largest transform: 2^28 elements, 8 GiB per vector (the H step holds three).
// BN254's Fr has 2-adicity 28, so there the odd coset of 2^28 does not exist
// either (checked where a domain is made). BLS12-381's allows 2^32, but at k = 32 the odd coset has no w_{2n} (snarkjs
// switches to the shift 25 there), a case this code does not implement.
inline constexpr unsigned kMaxLogSize = 28;

// w_{2^log_n} = 5^((r-1) / 2^log_n), a primitive 2^log_n-th root of unity,
// log_n in [0, 32]. NOT the 7-based root of arkworks/bellman/blst: same set of
// roots, different order, so mixing the two gives wrong proofs.
// log_n in [0, Fr::Params::kTwoAdicity].
template <class Fr>
Fr root_of_unity(unsigned log_n);

// One power-of-two evaluation domain {w^i : 0 <= i < n}, n = 2^k, w = root_of_unity(k).
//
// Holds the twiddle table w^j for j in [0, n/2] (16n bytes: 16 MiB at 2^20,
// 4 GiB at 2^28) when k > 12; smaller sizes use a shared 2^12-entry table.
// Instances are created once per k on first use and live until process exit.
//
// @concurrent get() and every const method may be called from any thread.
// The transforms themselves run on the process-wide pool (parallel_for), which
// serialises concurrent callers; two threads transforming at once are safe but
// take turns. Spans passed to concurrent calls must not overlap.
// Build sizes up front (get() at setup), not from inside a parallel_for body:
// the first get() of a size runs parallel_for itself, and if another thread's
// pool job waited on that same size the two would deadlock on the pool.
template <class Fr>
class DomainT {
 public:
  // The cached domain of size 2^log_n (log_n <= kMaxLogSize). The first call
  // for a given size builds the table: n/2 multiplies and page faults, about
  // 0.2 s at 2^22 and 0.7 s at 2^24 on the (shared) 2-core dev VM.
  static const DomainT& get(unsigned log_n);

  DomainT(const DomainT&) = delete;
  DomainT& operator=(const DomainT&) = delete;

  unsigned log_size() const { return log_n_; }
  size_t size() const { return size_t(1) << log_n_; }
  const Fr& omega() const { return omega_; }          // w_n
  const Fr& omega_inv() const { return omega_inv_; }  // w_n^-1
  const Fr& size_inv() const { return size_inv_; }    // 1/n
  // w_{2n}: the shift of the odd coset {w_{2n}^(2i+1)} = w_{2n} * <w_n>.
  const Fr& odd_coset_shift() const { return omega_2n_; }

  // Coefficients -> evaluations: x[i] <- sum_j x[j] * w^(i*j), natural order
  // on both sides (snarkjs Fr.fft). x.size() must equal size().
  void ntt(std::span<Fr> x) const;
  // Evaluations -> coefficients, including the 1/n: intt(ntt(x)) == x.
  void intt(std::span<Fr> x) const;
  // Coefficients -> evaluations at g * w^i: x[i] <- sum_j x[j] * g^j * w^(i*j).
  // g may be any element; g = 0 gives every output equal to x[0].
  void coset_ntt(std::span<Fr> x, const Fr& g) const;
  // Inverse of coset_ntt for the same g (g must be non-zero).
  void coset_intt(std::span<Fr> x, const Fr& g) const;

  // Evaluations on the domain -> evaluations on the odd coset, both natural
  // order: x[i] <- P(w_{2n}^(2i+1)) where P is the degree < n polynomial with
  // P(w^i) = x[i] on input. Equal to intt, scale coefficient j by w_{2n}^j,
  // ntt, but with no bit-reversal pass: the inverse runs natural -> bit-reversed,
  // the forward bit-reversed -> natural, and the scaling happens in between on
  // cache-resident blocks. Two size-n transforms' worth of work.
  void evals_to_odd_coset(std::span<Fr> x) const;

 private:
  explicit DomainT(unsigned log_n);
  template <class>
  friend struct DomainCache;

  unsigned log_n_;
  Fr omega_, omega_inv_, size_inv_, omega_2n_;
  std::vector<Fr> top_;  // w^j, j in [0, n/2]; empty when one pass suffices
};

// The H step of the snarkjs Groth16 prover (docs/design/formats.md §3.3).
//
// In: a, b, c hold A(w^i), B(w^i), C(w^i) for i < n, the QAP evaluations on the
// n-domain in natural order (A_T, B_T, C_T of buildABC1), n = 2^k, k <= 28,
// all three the same size.
// Out: a[i] = A(s_i) * B(s_i) - C(s_i) with s_i = w_{2n}^(2i+1), the odd-coset
// point; these are the scalars of the H MSM against zkey section 9 (after
// to_canonical). No division by Z (it is the constant -2 there, folded into the
// zkey's H points). b and c are clobbered: they end up holding B and C on the
// odd coset. Six size-n transforms (three evals_to_odd_coset) and n
// multiplications.
//
// @concurrent the spans must not overlap each other or another caller's.
template <class Fr>
void compute_h_odd_coset(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c);

}  // namespace proofpipe::ntt
