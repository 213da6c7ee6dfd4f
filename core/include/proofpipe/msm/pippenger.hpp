// MSM internals, part 3: the Pippenger driver behind msm_g1/msm_g2
// (msm/msm.hpp). Three phases, the first two parallel_for on the pool:
//   1. prepare: scalars -> canonical, folded Terms; zero scalars and identity
//      points dropped, +-1 scalars' points summed per chunk (msm/ones.hpp);
//   2. tiles: (window j, term range) -> sum_b (b+1) * bucket_b;
//   3. combine (serial, (W-1)*c doublings + one add per tile): Horner.
// Instantiated once per group and curve in core/src/msm_bls12_381_g1.cpp, msm_bls12_381_g2.cpp
// and msm_bn254_g1.cpp, msm_bn254_g2.cpp. With GLV (ec/glv.hpp) phase 1 cuts
// each scalar in two halves of 127 bits, the second on phi(P).
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/glv.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/digits.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/ones.hpp"
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

// The points a term's index names (digits.hpp, Term): part p's points[i],
// or with kEndoBit set the endomorphism's image phi(points[i]) (GLV), looked
// up without a branch.
template <class Cfg>
struct PointSource {
  const ec::Affine<Cfg>* base[2 * kMaxParts];  // [endo * kMaxParts + part]
  const ec::Affine<Cfg>& operator[](uint32_t index) const { return base[index >> kPartShift][index & kPointMask]; }
};

// Runs one tile with engine E: feeds every non-zero digit of window j of
// `terms` into E's buckets, then reduces them.
template <class Cfg, class E, size_t N>
ec::Xyzz<Cfg> run_tile(const PointSource<Cfg>& points, std::span<const TermT<N>> terms, unsigned j, unsigned c,
                       unsigned bits, MsmStats* stats) {
  E engine;
  engine.reset(window_buckets(j, c, bits), stats);
  for (const TermT<N>& t : terms) {
    const int32_t d = booth_digit(t.k, j, c);
    if (d == 0) continue;  // probability ~2^-c for uniform scalars
    engine.add(uint32_t(std::abs(d) - 1), points[t.index], (d < 0) != (t.neg != 0));
  }
  return engine.reduce();
}

// Phase 1 for one chunk [begin, end) of a part's scalars: folded general
// terms go to out (N = 4), or, with GLV, their two halves (N = 2, the k1
// half naming phi(P), written to endo[i]); the points of +-1 scalars go to
// *ones (msm/ones.hpp). With part.scale set, a scalar is classified before
// the product and the general ones multiplied by *scale here; the +-1
// points then stand for +-scale (the caller multiplies their sum). `tag`
// is the part's index bits. Returns the terms written.
template <class Cfg, class Fr, size_t N, class In>
size_t prepare_chunk(const MsmPart<Cfg, In>& part, uint32_t tag, size_t begin, size_t end, TermT<N>* out,
                     ec::Affine<Cfg>* endo, OnesSum<Cfg>* ones, MsmStats& st) {
  TermT<N>* const first = out;
  const auto& points = part.points;
  for (size_t i = begin; i < end; ++i) {
    ff::Limbs<4> k = canonical_limbs(part.scalars[i]);
    uint32_t neg = 0;
    ScalarClass cls = fold_scalar<typename Fr::Params>(k, &neg);
    if constexpr (std::is_same_v<In, Fr>) {
      if (part.scale != nullptr && cls == ScalarClass::kGeneral) {
        k = canonical_limbs(*part.scale * part.scalars[i]);
        neg = 0;
        // Whatever the product is, it stays a term: the +-1 sum is the
        // one multiplied by the scale (a zero product has no digits).
        (void)fold_scalar<typename Fr::Params>(k, &neg);
      }
    }
    if (cls == ScalarClass::kZero || points[i].is_identity()) {
      ++st.skipped;
    } else if (cls == ScalarClass::kOne) {
      ones->add(points[i], neg != 0);
      ++st.ones;
    } else if constexpr (N == 4) {
      *out++ = TermT<4>{k, tag | uint32_t(i), neg};
    } else {
      ec::GlvHalf h0, h1;
      ec::glv_split(k, ec::Glv<Cfg>::kBasis, &h0, &h1);
      if (!ff::limbs_is_zero(h0.k)) *out++ = TermT<2>{h0.k, tag | uint32_t(i), neg ^ uint32_t(h0.neg)};
      if (!ff::limbs_is_zero(h1.k)) {
        endo[i] = ec::Glv<Cfg>::apply(points[i]);
        *out++ = TermT<2>{h1.k, tag | uint32_t(i) | kEndoBit, neg ^ uint32_t(h1.neg)};
      }
    }
  }
  return size_t(out - first);
}

// sum over the parts of sum_i k_i * P_i. Fr: the scalar field (its r folds
// the scalars); In: Fr (Montgomery) or canonical limbs. N: limbs per term,
// 4, or 2 for GLV halves (ec/glv.hpp).
template <class Cfg, class In, class Fr, size_t N>
ec::Jacobian<Cfg> pippenger_terms(std::span<const MsmPart<Cfg, In>> parts, const MsmOptions& options) {
  using X = ec::Xyzz<Cfg>;
  using A = ec::Affine<Cfg>;
  PP_ASSERT(parts.size() <= kMaxParts, "msm: more than 4 parts");
  size_t n = 0;
  for (const auto& p : parts) {
    PP_ASSERT(p.points.size() == p.scalars.size(), "msm: points and scalars differ in length");
    PP_ASSERT(p.points.size() <= kPointMask, "msm: more than 2^29 points in one part");
    n += p.points.size();
  }
  constexpr unsigned kPerScalar = N == 4 ? 1 : 2;
  constexpr unsigned kBits = N == 4 ? kFoldedBits : ec::kGlvBits;
  const unsigned threads = worker_count();
  MsmStats total_stats{};

  // ---- 1. prepare: ~4 chunks per thread, cut inside each part; each chunk
  // compacts its terms to the front of its own range (kPerScalar per scalar
  // at its scalars' offset), then the ranges are closed up serially (a
  // memmove of <= 48 bytes per scalar, ~1% of even one window's work). With
  // GLV each chunk also writes phi(P) for the points whose k1 half is
  // non-zero (~20 ns per G1 point, ~40 ns per G2 point).
  struct Chunk {
    uint32_t part;
    size_t begin, end, offset;  // [begin, end) of the part; offset: of begin over all parts
  };
  const size_t step = std::max<size_t>(1, (n + 4 * threads - 1) / (4 * threads));
  std::vector<Chunk> chunks;
  PointSource<Cfg> source{};
  std::unique_ptr<A[]> endo;
  if constexpr (N == 2) endo = std::make_unique_for_overwrite<A[]>(n);
  for (size_t p = 0, offset = 0; p < parts.size(); offset += parts[p].points.size(), ++p) {
    for (size_t b = 0; b < parts[p].points.size(); b += step)
      chunks.push_back({uint32_t(p), b, std::min(parts[p].points.size(), b + step), offset + b});
    source.base[p] = parts[p].points.data();
    source.base[kMaxParts + p] = endo ? endo.get() + offset : parts[p].points.data();
  }
  std::vector<TermT<N>> terms(kPerScalar * n);
  std::vector<size_t> kept(chunks.size());
  std::vector<X> ones(chunks.size(), X::identity());
  std::vector<MsmStats> chunk_stats(chunks.size());
  parallel_for(chunks.size(), [&](size_t ch) {
    const Chunk& c = chunks[ch];
    A* const part_endo = endo ? endo.get() + (c.offset - c.begin) : nullptr;
    OnesSum<Cfg> one_points(&chunk_stats[ch]);
    kept[ch] = prepare_chunk<Cfg, Fr, N>(parts[c.part], c.part << kPartShift, c.begin, c.end,
                                         terms.data() + kPerScalar * c.offset, part_endo, &one_points, chunk_stats[ch]);
    ones[ch] = one_points.take();
  });
  size_t m = 0;
  for (size_t ch = 0; ch < chunks.size(); ++ch) {
    const size_t from = kPerScalar * chunks[ch].offset;
    if (m != from && kept[ch] != 0) std::memmove(&terms[m], &terms[from], kept[ch] * sizeof(TermT<N>));
    m += kept[ch];
    add_stats(total_stats, chunk_stats[ch]);
  }
  terms.resize(m);

  // ---- 2. tiles (msm/tiles.hpp), then 3. combine.
  X acc = X::identity();
  constexpr Group kGroup = Cfg::kG2 ? Group::kG2 : Group::kG1;
  const MsmPlan pl = plan(m, threads, options, kGroup, kBits);
  const std::vector<TileSpec> tiles = m == 0 ? std::vector<TileSpec>() : make_tiles(pl, m);
  if (!tiles.empty()) {
    const unsigned c = pl.window_bits, w = pl.windows;
    std::vector<X> tile_sum(tiles.size());
    std::vector<MsmStats> tile_stats(tiles.size());
    parallel_for(tiles.size(), [&](size_t t) {
      const TileSpec& ts = tiles[t];
      std::span<const TermT<N>> range(terms.data() + ts.lo, ts.hi - ts.lo);
      // The plan picks the engine; a tile too small for full batches (the
      // narrow top window, tail pieces of a small MSM) falls back to XYZZ.
      const bool affine = pl.accumulation == Accumulation::kBatchAffine &&
                          (options.accumulation == Accumulation::kBatchAffine ||
                           batch_affine_pays(window_buckets(ts.window, c, kBits), range.size(), inversion_cost<Cfg>()));
      tile_sum[t] = affine ? run_tile<Cfg, AffineBuckets<Cfg>>(source, range, ts.window, c, kBits, &tile_stats[t])
                           : run_tile<Cfg, XyzzBuckets<Cfg>>(source, range, ts.window, c, kBits, &tile_stats[t]);
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
  // The +-1 sums: per part, a scaled part's times its scale (Jacobian::mul,
  // once per scaled part: ~0.1 ms).
  std::vector<X> part_ones(parts.size(), X::identity());
  for (size_t ch = 0; ch < chunks.size(); ++ch) part_ones[chunks[ch].part] += ones[ch];
  total_stats.full_adds += chunks.size();
  ec::Jacobian<Cfg> scaled = ec::Jacobian<Cfg>::identity();
  for (size_t p = 0; p < parts.size(); ++p) {
    if constexpr (std::is_same_v<In, Fr>) {
      if (parts[p].scale != nullptr) {
        scaled = scaled + part_ones[p].to_jacobian().mul(parts[p].scale->to_canonical());
        continue;
      }
    }
    acc += part_ones[p];
  }
  total_stats.full_adds += parts.size();

  if (options.stats != nullptr) {
    total_stats.window_bits = pl.window_bits;
    total_stats.windows = pl.windows;
    total_stats.scalar_bits = kBits;
    total_stats.terms = m;
    total_stats.point_splits = pl.point_splits;
    total_stats.tiles = unsigned(tiles.size());
    total_stats.accumulation = pl.accumulation;
    *options.stats = total_stats;
  }
  return acc.to_jacobian() + scaled;
}

// The entry point: GLV halves where the group has an endomorphism and the
// caller did not turn it off, whole folded scalars otherwise.
template <class Cfg, class In, class Fr>
ec::Jacobian<Cfg> pippenger_sum(std::span<const MsmPart<Cfg, In>> parts, const MsmOptions& options) {
  if constexpr (ec::HasGlv<Cfg>) {
    if (options.glv) return pippenger_terms<Cfg, In, Fr, 2>(parts, options);
  }
  return pippenger_terms<Cfg, In, Fr, 4>(parts, options);
}

template <class Cfg, class In, class Fr>
ec::Jacobian<Cfg> pippenger(std::span<const ec::Affine<Cfg>> points, std::span<const In> scalars,
                            const MsmOptions& options) {
  const MsmPart<Cfg, In> one{points, scalars};
  return pippenger_sum<Cfg, In, Fr>(std::span<const MsmPart<Cfg, In>>(&one, 1), options);
}

}  // namespace proofpipe::msm::detail
