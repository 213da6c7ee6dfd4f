// MSM planning and scalar folding (see msm/msm.hpp, msm/digits.hpp): the
// group-independent part of the CPU Pippenger. The cost model counts field
// multiplications (M); docs/design/numbers.md §4 uses the same unit.
#include <algorithm>
#include <cmath>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/digits.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/tiles.hpp"

namespace proofpipe::msm {

namespace {

// Costs in M of the group's field (Fq for G1, Fq2 for G2): a batch add is
// 5M + 1S = 6 plus ~0.5 for deferrals and bucket-cache misses, plus its
// share of an inversion (buckets.hpp); an XYZZ madd is 8M + 2S = 10, a full
// add 12M + 2S = 14, a doubling 6M + 3S = 9.
constexpr double kMadd = 10, kFullAdd = 14, kDouble = 9;
constexpr double kBatchAddBase = 6.5;
// A task's fixed cost: allocation, flag reset, dispatch (~25 us at 50 ns/M).
constexpr double kTaskOverhead = 500;
// Largest window: 2^17 buckets, 12 MB of G1 (24 MB of G2) buckets per tile.
constexpr unsigned kMaxWindow = 18;

struct Cost {
  double makespan;
  Accumulation acc;
  unsigned tail_tiles;
};

// Mean cost of one tile of `points` terms over the W windows, with the
// engine each window would get in pippenger.hpp (XYZZ where batches cannot
// fill, e.g. the narrow top window).
double mean_tile(double points, unsigned c, unsigned bits, Accumulation acc, double inversion) {
  const unsigned w = detail::window_count(c, bits);
  double sum = 0;
  for (unsigned j = 0; j < w; ++j) {
    const size_t nb = detail::window_buckets(j, c, bits);
    const bool affine = acc == Accumulation::kBatchAffine && detail::batch_affine_pays(nb, size_t(points), inversion);
    const double fill = std::min(points, double(detail::batch_capacity(nb, inversion)));
    const double add = affine ? kBatchAddBase + inversion / std::max(1.0, fill) : kMadd;
    // Expected share of non-empty buckets after `points` uniform digits.
    const double live = 1.0 - std::exp(-points / double(nb));
    // Reduction as the engines do it (buckets.hpp, reduce.hpp).
    const double reduce = affine ? std::min(detail::running_reduce_cost(double(nb), live),
                                            detail::tree_reduce_cost(double(nb), live, inversion))
                                 : double(nb) * (live * kFullAdd + kFullAdd);
    sum += points * add + reduce;
  }
  return sum / w + kTaskOverhead;
}

// Makespan of W*splits tiles on `threads` threads. When the tile count is
// not a multiple of the thread count, the last rem tiles may instead be cut
// into `threads` pieces each (one extra bucket reduction per piece): e.g.
// W = 17 on 2 threads: 16 whole windows + 1 window in 2 halves gives 8.5
// windows per thread instead of 9, for 1/17 more reduction work.
Cost tile_cost(double n, unsigned c, unsigned bits, unsigned splits, unsigned threads, Accumulation want,
               double inversion) {
  const double w = detail::window_count(c, bits);
  const double tiles = w * splits;
  const double rem = std::fmod(tiles, threads);
  const double per_tile = n / splits;
  const bool can_cut = rem != 0 && per_tile / threads >= 64;
  // Serial combine: (W-1)*c doublings and one add per tile.
  const double combine = (w - 1) * c * kDouble + (tiles + rem * threads) * kFullAdd;
  Cost best{-1, Accumulation::kXyzz, 0};
  for (Accumulation acc : {Accumulation::kXyzz, Accumulation::kBatchAffine}) {
    if (want != Accumulation::kAuto && want != acc) continue;
    const double whole = mean_tile(per_tile, c, bits, acc, inversion);
    for (bool cut : {false, true}) {
      if (cut && !can_cut) continue;
      const double t =
          cut ? (tiles - rem) / threads * whole + rem * mean_tile(per_tile / threads, c, bits, acc, inversion)
              : std::ceil(tiles / threads) * whole;
      if (best.makespan < 0 || t + combine < best.makespan) best = {t + combine, acc, cut ? unsigned(rem) : 0u};
    }
  }
  return best;
}

}  // namespace

MsmPlan plan(size_t n, unsigned threads, const MsmOptions& options, Group group, unsigned scalar_bits) {
  const double inversion = group == Group::kG1 ? detail::kInversionFq : detail::kInversionFq2;
  threads = std::max(1u, threads);
  PP_ASSERT(options.window_bits <= kMaxWindow, "msm: window_bits above 18");
  const unsigned c_lo = options.window_bits ? options.window_bits : 1;
  const unsigned c_hi = options.window_bits ? options.window_bits : kMaxWindow;
  // Splitting a window over point ranges repeats its bucket reduction, so
  // it only pays when W windows alone would leave threads idle at the end.
  const unsigned s_hi = options.point_splits ? options.point_splits : 4 * threads;
  const unsigned s_lo = options.point_splits ? options.point_splits : 1;
  const unsigned bits = scalar_bits;
  MsmPlan best{c_lo, detail::window_count(c_lo, bits), bits, s_lo, 0, threads, Accumulation::kXyzz};
  double best_cost = -1;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    for (unsigned s = s_lo; s <= s_hi; ++s) {
      if (s > 1 && size_t(s) * 64 > n) break;  // tiles under 64 points: not worth a task
      const Cost cost = tile_cost(double(n), c, bits, s, threads, options.accumulation, inversion);
      if (best_cost < 0 || cost.makespan < best_cost) {
        best_cost = cost.makespan;
        best = {c, detail::window_count(c, bits), bits, s, cost.tail_tiles, threads, cost.acc};
      }
    }
  }
  return best;
}

namespace detail {

std::vector<TileSpec> make_tiles(const MsmPlan& p, size_t m) {
  std::vector<TileSpec> tiles;
  const size_t whole = size_t(p.windows) * p.point_splits - p.tail_tiles;
  for (size_t t = 0; t < size_t(p.windows) * p.point_splits; ++t) {
    // t -> (window t % W, range t / W): tasks handed out together share a
    // point range, which then stays in L2/L3 for all threads.
    const unsigned j = unsigned(t % p.windows), s = unsigned(t / p.windows);
    const size_t lo = m * s / p.point_splits, hi = m * (s + 1) / p.point_splits;
    if (t < whole) {
      tiles.push_back({j, lo, hi});
    } else {
      for (unsigned k = 0; k < p.tail_pieces; ++k) {
        tiles.push_back({j, lo + (hi - lo) * k / p.tail_pieces, lo + (hi - lo) * (k + 1) / p.tail_pieces});
      }
    }
  }
  return tiles;
}

}  // namespace detail

}  // namespace proofpipe::msm
