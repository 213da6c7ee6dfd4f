// MSM internals, part 5: bucket reduction sum_b (b+1) * B_b for affine
// buckets, with the additions done in batch-affine form (one inversion per
// up to 2048 adds, Montgomery 1987) instead of a serial running sum.
// Not a public API; used by AffineBuckets::reduce() (msm/buckets.hpp).
//
// With nb = H * L buckets indexed b = h*L + l:
//   sum_b (b+1) B_b = L * sum_h h * G_h + sum_l (l+1) * C_l,
//   G_h = sum_l B_{h,l} (row sums), C_l = sum_h B_{h,l} (column sums).
// Row and column sums are pairwise trees whose levels are independent adds,
// i.e. big batches: ~2 * nb batch adds of ~6.3 M. Only the H + L sums then
// need running sums (~28 M each), and L = 2^k costs k doublings. Against
// the running sum over all buckets (one madd 10 M + one full add 14 M per
// bucket) that is ~13 M instead of 24 M per bucket: at 2^18 (c = 15) about
// 10% of the whole MSM.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/ff/ifma/batch_affine.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/msm/msm.hpp"

namespace proofpipe::msm::detail {

// Estimated costs (M) of the two reductions for nb buckets of which a share
// `live` is non-empty. Running sum: a madd per live bucket and a full add
// per bucket. Tree: ~2 * nb * live batch adds, an inversion per tree level
// (lg nb levels) and per 2048 adds, and the H + L running sums. The tree
// wins from nb ~ 128 for G1 (inversion ~70 M) and ~64 for G2 (~20 M).
inline double running_reduce_cost(double nb, double live) { return nb * (live * 10 + 14); }
inline double tree_reduce_cost(double nb, double live, double inversion) {
  unsigned lg = 0;
  while (double(size_t(1) << lg) < nb) ++lg;
  const double l_len = double(size_t(1) << (lg / 2)), h_len = nb / l_len;
  return 2 * nb * live * 6.3 + (lg + 2 * nb * live / 2048) * inversion + 28 * (h_len + l_len) + 9 * (lg / 2);
}

#if defined(PP_IFMA_COMPILED)
template <class Cfg>
void add_pairs_ifma(std::vector<std::pair<ec::Affine<Cfg>*, const ec::Affine<Cfg>*>>& pairs, MsmStats* stats);
#endif

// *pairs[k].first += *pairs[k].second for every k, affine in and out, the
// identity encoded as (0,0) on either side. Destinations must be distinct
// and must not be a source of another pair. Batches of at most kBatch share
// one inversion. Both groups take the eight-lane IFMA path where simd_path()
// allows.
template <class Cfg>
void add_pairs(std::vector<std::pair<ec::Affine<Cfg>*, const ec::Affine<Cfg>*>>& pairs, MsmStats* stats) {
  using F = typename Cfg::Field;
  using A = ec::Affine<Cfg>;
#if defined(PP_IFMA_COMPILED)
  if (ff::ifma::simd_path() == ff::ifma::SimdPath::kIfma) return add_pairs_ifma<Cfg>(pairs, stats);
#endif
  constexpr size_t kBatch = 2048;
  struct Slot {
    F den, prefix, num;
    A* dst;
    const A* src;
  };
  std::vector<Slot> slot;
  slot.reserve(std::min(kBatch, pairs.size()));
  for (size_t base = 0; base < pairs.size(); base += kBatch) {
    const size_t end = std::min(pairs.size(), base + kBatch);
    slot.clear();
    F acc = F::one();
    for (size_t k = base; k < end; ++k) {
      A* dst = pairs[k].first;
      const A* src = pairs[k].second;
      if (src->is_identity()) continue;
      if (dst->is_identity()) {  // a copy, no arithmetic
        *dst = *src;
        continue;
      }
      F d = src->x - dst->x, num;
      if (!d.is_zero()) {
        num = src->y - dst->y;
      } else if (src->y == dst->y && !dst->y.is_zero()) {  // tangent
        const F x2 = dst->x.sqr();
        num = x2.dbl() + x2;
        d = dst->y.dbl();
      } else {  // P + (-P)
        *dst = A::identity();
        continue;
      }
      slot.push_back({d, acc, num, dst, src});
      acc = acc * d;
    }
    if (slot.empty()) continue;
    F inv = acc.inverse();
    ++stats->batch_inversions;
    for (size_t k = slot.size(); k-- > 0;) {
      const Slot& s = slot[k];
      const F inv_k = inv * s.prefix;
      inv = inv * s.den;
      const F lambda = s.num * inv_k;
      const F x3 = lambda.sqr() - s.dst->x - s.src->x;
      s.dst->y = lambda * (s.dst->x - x3) - s.dst->y;
      s.dst->x = x3;
    }
    stats->batch_adds += slot.size();
  }
}

#if defined(PP_IFMA_COMPILED)
// add_pairs on eight IFMA lanes (ff/ifma/batch_affine.hpp): the identities
// here, everything else in the kernel, which writes each sum (or the
// identity, for P + (-P)) in place. Batches of 512 for G1 and 256 for G2 (an
// inversion's share stays near 0.15 M per add, as in msm/buckets.hpp) bound
// the scratch to 384 Packs (192 Pack2s): 120 KB on BN254, 192 KB on
// BLS12-381, for either group.
template <class Cfg>
void add_pairs_ifma(std::vector<std::pair<ec::Affine<Cfg>*, const ec::Affine<Cfg>*>>& pairs, MsmStats* stats) {
  using F = typename Cfg::Field;
  using A = ec::Affine<Cfg>;
  constexpr size_t kBatch = Cfg::kG2 ? 256 : 512;
  static_assert(sizeof(A) == 2 * sizeof(F), "the kernel reads a point as (x, y), two consecutive F");
  const size_t cap = std::min(kBatch, pairs.size());
  auto dst = std::make_unique_for_overwrite<F*[]>(cap);
  auto src = std::make_unique_for_overwrite<const F*[]>(cap);
  auto neg = std::make_unique<uint8_t[]>(cap);  // pair additions never negate
  auto cancelled = std::make_unique_for_overwrite<uint8_t[]>(cap);
  auto packs = std::make_unique_for_overwrite<typename ff::ifma::LanePack<F>::type[]>(6 * ((cap + 7) / 8));
  for (size_t base = 0; base < pairs.size(); base += kBatch) {
    const size_t end = std::min(pairs.size(), base + kBatch);
    size_t m = 0;
    for (size_t k = base; k < end; ++k) {
      A* d_pt = pairs[k].first;
      const A* s_pt = pairs[k].second;
      if (s_pt->is_identity()) continue;
      if (d_pt->is_identity()) {  // a copy, no arithmetic
        *d_pt = *s_pt;
        continue;
      }
      dst[m] = &d_pt->x;
      src[m++] = &s_pt->x;
    }
    if (m == 0) continue;
    ff::ifma::batch_affine_add(dst.get(), src.get(), neg.get(), m, packs.get(), cancelled.get());
    ++stats->batch_inversions;
    // As the scalar path counts: a pair that cancelled was no addition.
    for (size_t k = 0; k < m; ++k) stats->batch_adds += cancelled[k] == 0;
  }
}
#endif  // PP_IFMA_COMPILED

// sum_b (b+1) * v[b] for nb = 2^k affine values (identity allowed). v is
// clobbered; `copy` is scratch of nb points.
template <class Cfg>
ec::Xyzz<Cfg> tree_reduce(ec::Affine<Cfg>* v, ec::Affine<Cfg>* copy, size_t nb, MsmStats* stats) {
  using A = ec::Affine<Cfg>;
  using X = ec::Xyzz<Cfg>;
  unsigned lg = 0;
  while ((size_t(1) << lg) < nb) ++lg;
  const size_t l_len = size_t(1) << (lg / 2), h_len = nb / l_len;  // L <= H
  std::copy(v, v + nb, copy);
  std::vector<std::pair<A*, const A*>> pairs;
  pairs.reserve(nb / 2);
  // Row sums into v[h*L]: level s adds v[h*L + l + s] into v[h*L + l].
  for (size_t s = 1; s < l_len; s *= 2) {
    pairs.clear();
    for (size_t h = 0; h < h_len; ++h) {
      for (size_t l = 0; l + s < l_len; l += 2 * s) pairs.push_back({&v[h * l_len + l], &v[h * l_len + l + s]});
    }
    add_pairs<Cfg>(pairs, stats);
  }
  // Column sums into copy[l]: level s adds row h + s into row h.
  for (size_t s = 1; s < h_len; s *= 2) {
    pairs.clear();
    for (size_t h = 0; h + s < h_len; h += 2 * s) {
      for (size_t l = 0; l < l_len; ++l) pairs.push_back({&copy[h * l_len + l], &copy[(h + s) * l_len + l]});
    }
    add_pairs<Cfg>(pairs, stats);
  }
  // sum_h h * G_h and sum_l (l+1) * C_l by running sums (madd into XYZZ).
  X running = X::identity(), rows = X::identity();
  for (size_t h = h_len; h-- > 1;) {
    running += v[h * l_len];
    rows += running;
  }
  X cols = X::identity();
  running = X::identity();
  for (size_t l = l_len; l-- > 0;) {
    running += copy[l];
    cols += running;
  }
  stats->madds += h_len + l_len;
  stats->full_adds += h_len + l_len + 1;
  for (unsigned i = 0; i < lg / 2; ++i) rows = rows.dbl();
  stats->doublings += lg / 2;
  return rows + cols;
}

}  // namespace proofpipe::msm::detail
