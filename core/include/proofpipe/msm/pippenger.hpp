// MSM internals, part 3: the Pippenger driver behind msm_g1/msm_g2
// (msm/msm.hpp). Three phases, the first two parallel_for on the pool:
//   1. prepare: scalars -> canonical, folded Terms; zero scalars and identity
//      points dropped, +-1 scalars added straight into a per-chunk sum;
//   2. tiles: (window j, term range) -> sum_b (b+1) * bucket_b;
//   3. combine (serial, (W-1)*c doublings + one add per tile): Horner.
// Instantiated once per group and curve in core/src/msm_g1.cpp, msm_g2.cpp
// and msm_bn254.cpp.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/digits.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/tiles.hpp"

namespace proofpipe::msm::detail {

template <class P>
inline ff::Limbs<4> canonical_limbs(const ff::Field<P>& f) {
  return f.to_canonical();
}
inline const ff::Limbs<4>& canonical_limbs(const ff::Limbs<4>& l) { return l; }

inline void add_stats(MsmStats& into, const MsmStats& s) {
  into.batch_adds += s.batch_adds;
  into.batch_inversions += s.batch_inversions;
  into.madds += s.madds;
  into.full_adds += s.full_adds;
  into.doublings += s.doublings;
  into.skipped += s.skipped;
  into.ones += s.ones;
}

// Runs one tile with engine E: feeds every non-zero digit of window j of
// `terms` into E's buckets, then reduces them.
template <class Cfg, class E>
ec::Xyzz<Cfg> run_tile(std::span<const ec::Affine<Cfg>> points, std::span<const Term> terms, unsigned j, unsigned c,
                       MsmStats* stats) {
  E engine;
  engine.reset(window_buckets(j, c), stats);
  for (const Term& t : terms) {
    const int32_t d = booth_digit(t.k, j, c);
    if (d == 0) continue;  // probability ~2^-c for uniform scalars
    engine.add(uint32_t(std::abs(d) - 1), points[t.index], (d < 0) != (t.neg != 0));
  }
  return engine.reduce();
}

// Fr: the scalar field (its r folds the scalars); In: Fr (Montgomery) or
// canonical limbs.
template <class Cfg, class In, class Fr = ff::Fr>
ec::Jacobian<Cfg> pippenger(std::span<const ec::Affine<Cfg>> points, std::span<const In> scalars,
                            const MsmOptions& options) {
  using X = ec::Xyzz<Cfg>;
  PP_ASSERT(points.size() == scalars.size(), "msm: points and scalars differ in length");
  PP_ASSERT(points.size() < (size_t(1) << 32), "msm: more than 2^32 points");
  const size_t n = points.size();
  const unsigned threads = worker_count();
  MsmStats total_stats{};

  // ---- 1. prepare: ~4 chunks per thread; each compacts its general terms
  // to the front of its own range, then the ranges are closed up serially
  // (a memmove of <= 40 bytes per term, ~1% of even one window's work).
  const size_t step = n == 0 ? 1 : (n + 4 * threads - 1) / (4 * threads);
  const size_t chunks = (n + step - 1) / step;
  std::vector<Term> terms(n);
  std::vector<size_t> kept(chunks);
  std::vector<X> ones(chunks, X::identity());
  std::vector<MsmStats> chunk_stats(chunks);
  parallel_for(chunks, [&](size_t ch) {
    const size_t begin = ch * step, end = std::min(n, begin + step);
    MsmStats& st = chunk_stats[ch];
    X one_sum = X::identity();
    size_t out = begin;
    for (size_t i = begin; i < end; ++i) {
      ff::Limbs<4> k = canonical_limbs(scalars[i]);
      uint32_t neg = 0;
      const ScalarClass cls = fold_scalar<typename Fr::Params>(k, &neg);
      if (cls == ScalarClass::kZero || points[i].is_identity()) {
        ++st.skipped;
      } else if (cls == ScalarClass::kOne) {
        one_sum = neg ? one_sum.sub_affine(points[i]) : one_sum.add_affine(points[i]);
        ++st.ones;
        ++st.madds;
      } else {
        terms[out++] = Term{k, uint32_t(i), neg};
      }
    }
    kept[ch] = out - begin;
    ones[ch] = one_sum;
  });
  size_t m = 0;
  for (size_t ch = 0; ch < chunks; ++ch) {
    if (m != ch * step && kept[ch] != 0) std::memmove(&terms[m], &terms[ch * step], kept[ch] * sizeof(Term));
    m += kept[ch];
    add_stats(total_stats, chunk_stats[ch]);
  }
  terms.resize(m);

  // ---- 2. tiles (msm/tiles.hpp), then 3. combine.
  X acc = X::identity();
  constexpr Group kGroup = Cfg::kG2 ? Group::kG2 : Group::kG1;
  const MsmPlan pl = plan(m, threads, options, kGroup);
  const std::vector<TileSpec> tiles = m == 0 ? std::vector<TileSpec>() : make_tiles(pl, m);
  if (!tiles.empty()) {
    const unsigned c = pl.window_bits, w = pl.windows;
    std::vector<X> tile_sum(tiles.size());
    std::vector<MsmStats> tile_stats(tiles.size());
    parallel_for(tiles.size(), [&](size_t t) {
      const TileSpec& ts = tiles[t];
      std::span<const Term> range(terms.data() + ts.lo, ts.hi - ts.lo);
      // The plan picks the engine; a tile too small for full batches (the
      // narrow top window, tail pieces of a small MSM) falls back to XYZZ.
      const bool affine = pl.accumulation == Accumulation::kBatchAffine &&
                          (options.accumulation == Accumulation::kBatchAffine ||
                           batch_affine_pays(window_buckets(ts.window, c), range.size(), inversion_cost<Cfg>()));
      tile_sum[t] = affine ? run_tile<Cfg, AffineBuckets<Cfg>>(points, range, ts.window, c, &tile_stats[t])
                           : run_tile<Cfg, XyzzBuckets<Cfg>>(points, range, ts.window, c, &tile_stats[t]);
    });
    std::vector<X> window_sum(w, X::identity());
    for (size_t t = 0; t < tiles.size(); ++t) window_sum[tiles[t].window] += tile_sum[t];
    total_stats.full_adds += tiles.size();
    // sum_j 2^(jc) S_j by Horner from the top window: (W-1)*c doublings.
    for (unsigned j = w; j-- > 0;) {
      if (j + 1 != w) {
        for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
        total_stats.doublings += c;
      }
      acc += window_sum[j];
    }
    total_stats.full_adds += w;
    for (const MsmStats& st : tile_stats) add_stats(total_stats, st);
  }
  for (const X& o : ones) acc += o;
  total_stats.full_adds += chunks;

  if (options.stats != nullptr) {
    total_stats.window_bits = pl.window_bits;
    total_stats.windows = pl.windows;
    total_stats.point_splits = pl.point_splits;
    total_stats.tiles = unsigned(tiles.size());
    total_stats.accumulation = pl.accumulation;
    *options.stats = total_stats;
  }
  return acc.to_jacobian();
}

}  // namespace proofpipe::msm::detail
