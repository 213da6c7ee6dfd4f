// ntt::DomainT: snarkjs roots of unity, the per-size twiddle cache, and the
// public transforms and H step composed from the passes in ntt_kernels.cpp.
// See proofpipe/ntt/ntt.hpp for the contract, docs/design/formats.md
// §3.2-3.3 for the roots and the odd-coset trick.
#include "proofpipe/ntt/ntt.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ntt/instances.hpp"
#include "proofpipe/ntt/kernels.hpp"

namespace proofpipe::ntt {

template <class Fr>
Fr root_of_unity(unsigned log_n) {
  PP_ASSERT(log_n <= Fr::Params::kTwoAdicity, "root_of_unity: Fr has no 2^k-th root for k above its 2-adicity");
  // (r - 1) / 2^log_n is exact: r - 1 = 2^s * odd, log_n <= s.
  const auto exp = ff::limbs_shr(ff::limbs_sub_u64(Fr::C::kP, 1), log_n);
  return Fr::from_u64(Fr::Params::kRootGenerator).pow(exp);
}

// One Domain per size, built on first use. std::call_once makes the first
// get() for a size build it exactly once while concurrent callers wait.
template <class Fr>
struct DomainCache {
  std::array<std::once_flag, kMaxLogSize + 1> once;
  std::array<std::unique_ptr<DomainT<Fr>>, kMaxLogSize + 1> domains;

  const DomainT<Fr>& get(unsigned log_n) {
    std::call_once(once[log_n], [&] { domains[log_n].reset(new DomainT<Fr>(log_n)); });
    return *domains[log_n];
  }
};

template <class Fr>
const DomainT<Fr>& DomainT<Fr>::get(unsigned log_n) {
  // The odd coset needs w_{2n}: 2n within the field's 2-adicity.
  PP_ASSERT(log_n <= kMaxLogSize && log_n < Fr::Params::kTwoAdicity, "ntt: domain size above the field's limit");
  static DomainCache<Fr> cache;
  return cache.get(log_n);
}

template <class Fr>
DomainT<Fr>::DomainT(unsigned log_n)
    : log_n_(log_n),
      omega_(root_of_unity<Fr>(log_n)),
      omega_inv_(omega_.inverse()),
      size_inv_(Fr::from_u64(uint64_t(1) << log_n).inverse()),
      omega_2n_(root_of_unity<Fr>(log_n + 1)) {
  if (make_plan(log_n).passes.size() <= 1) return;  // the shared level tables suffice
  const size_t count = size() / 2 + 1;
  // (2 MiB pages for this table were tried for the strided column-pass reads:
  // no measurable gain at 2^20-2^22, and 3-4x slower to build.)
  top_.resize(count);
  Fr* mem = top_.data();
  // top_[j] = w^j: chunks of 4096 start from w^start (one pow) and multiply a
  // shared table of w^0..w^4095, so every entry is one independent multiply
  // instead of a 2^27-long dependent chain at 2^28.
  constexpr size_t kChunk = 4096;
  const std::vector<Fr> base = powers(omega_, kChunk);
  parallel_for((count + kChunk - 1) / kChunk, [&](size_t c) {
    const size_t start = c * kChunk;
    const Fr ws = omega_.pow_u64(start);
    const size_t end = std::min(count, start + kChunk);
    for (size_t j = start; j < end; ++j) mem[j] = ws * base[j - start];
  });
}

namespace {
template <class Fr>
void check_size(const DomainT<Fr>& d, std::span<Fr> x, const char* what) {
  PP_ASSERT(x.size() == d.size(), what);
}
}  // namespace

template <class Fr>
void DomainT<Fr>::ntt(std::span<Fr> x) const {
  check_size(*this, x, "ntt: span size differs from the domain size");
  const Plan plan = make_plan(log_n_);
  dif(x.data(), plan, top_.data(), /*inverse=*/false);
  bit_reverse(x.data(), log_n_, Fr::one());
}

template <class Fr>
void DomainT<Fr>::intt(std::span<Fr> x) const {
  check_size(*this, x, "intt: span size differs from the domain size");
  const Plan plan = make_plan(log_n_);
  dif(x.data(), plan, top_.data(), /*inverse=*/true);
  bit_reverse(x.data(), log_n_, size_inv_);  // 1/n rides on the permutation pass
}

template <class Fr>
void DomainT<Fr>::coset_ntt(std::span<Fr> x, const Fr& g) const {
  check_size(*this, x, "coset_ntt: span size differs from the domain size");
  scale_by_powers(x.data(), log_n_, g, Fr::one());
  ntt(x);
}

template <class Fr>
void DomainT<Fr>::coset_intt(std::span<Fr> x, const Fr& g) const {
  check_size(*this, x, "coset_intt: span size differs from the domain size");
  PP_ASSERT(!g.is_zero(), "coset_intt: the coset shift must be non-zero");
  const Plan plan = make_plan(log_n_);
  dif(x.data(), plan, top_.data(), /*inverse=*/true);
  bit_reverse(x.data(), log_n_, Fr::one());
  scale_by_powers(x.data(), log_n_, g.inverse(), size_inv_);
}

template <class Fr>
void DomainT<Fr>::evals_to_odd_coset(std::span<Fr> x) const {
  check_size(*this, x, "evals_to_odd_coset: span size differs from the domain size");
  // Inverse DIF leaves coefficient rev(pos) at pos; the forward DIT takes
  // exactly that order, so the only work between them is the scaling by
  // w_2n^j / n, done inside the bottom pass while each block is in L2.
  const Plan plan = make_plan(log_n_);
  dif_columns(x.data(), plan, top_.data(), /*inverse=*/true);
  bottom_inverse_scale_forward(x.data(), plan, omega_2n_, size_inv_);
  dit_columns(x.data(), plan, top_.data(), /*inverse=*/false);
}

template <class Fr>
void compute_h_odd_coset(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) {
  const size_t n = a.size();
  PP_ASSERT(b.size() == n && c.size() == n, "compute_h_odd_coset: a, b, c differ in size");
  PP_ASSERT(n != 0 && (n & (n - 1)) == 0, "compute_h_odd_coset: size is not a power of two");
  const unsigned log_n = unsigned(__builtin_ctzll(n));
  const DomainT<Fr>& d = DomainT<Fr>::get(log_n);
  d.evals_to_odd_coset(a);
  d.evals_to_odd_coset(b);
  d.evals_to_odd_coset(c);
  const bool lanes = ifma_lanes();
  parallel_for_range(n, [&](size_t i0, size_t i1) {
    if (lanes) {
      ifma_mul_sub(a.data() + i0, b.data() + i0, c.data() + i0, i1 - i0);
      return;
    }
    for (size_t i = i0; i < i1; ++i) a[i] = a[i] * b[i] - c[i];
  });
}

#define PP_NTT_DOMAIN(F)                 \
  template F root_of_unity<F>(unsigned); \
  template class DomainT<F>;             \
  template void compute_h_odd_coset<F>(std::span<F>, std::span<F>, std::span<F>);
PP_NTT_FOR_EACH_FIELD(PP_NTT_DOMAIN)

}  // namespace proofpipe::ntt
