// MSM internals, part 2: the bucket sets of one Pippenger tile (one window,
// one point range). Two interchangeable engines with add(bucket, point, neg)
// and reduce() -> sum_b (b+1) * bucket[b]:
//  - XyzzBuckets: one XYZZ mixed add (8M + 2S) per point; simple, used for
//    small n where batches cannot fill.
//  - AffineBuckets: affine buckets updated in batches that share one field
//    inversion (Montgomery 1987): 5M + 1S per add plus inversion/batch;
//    reduced by the batch-affine tree of msm/reduce.hpp. Where the CPU has
//    AVX-512 IFMA (ff/ifma/dispatch.hpp), a batch's products run on eight
//    lanes (ff/ifma/batch_affine.hpp; Fq lanes for G1, Fq2 lanes for G2);
//    same results bit for bit.
// Not thread-safe: each tile task creates and owns its engine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/ff/ifma/batch_affine.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ff/ifma/radix52.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/reduce.hpp"

namespace proofpipe::msm::detail {

// One field inversion in multiplications of the same field, measured by
// bench/field_bench in one run (safegcd, ff/detail/inverse.hpp): Fq 1.78 us
// over 25 ns per Fq mul, ~70; Fq2 (one Fq inversion plus ~4 Fq muls) 1.9 us
// over 94 ns per Fq2 mul, ~20. Fermat was ~650 and ~220.
inline constexpr double kInversionFq = 70, kInversionFq2 = 20;
template <class Cfg>
constexpr double inversion_cost() {
  return Cfg::kG2 ? kInversionFq2 : kInversionFq;
}

// Batch capacity for a window of `buckets` buckets. The cap is the smallest
// power of two that keeps the inversion's share at or below 0.15 M per add:
// 512 for G1 (70 M), 256 for G2 (20 M); the slots of a batch are then
// 147 KB for either group and stay in L2. At 2^16, caps of 256 to 1024 gave
// the same MSM time within the noise (±3%) once the inversion was cheap.
// A batch may hold each bucket once; the chance that a new digit hits a
// bucket already queued grows to size/buckets as the batch fills, so a
// quarter of the bucket count keeps conflicts (deferred to the next batch)
// near 12% of the entries.
inline size_t batch_capacity(size_t buckets, double inversion) {
  size_t max = 16;
  while (double(max) * 0.15 < inversion) max *= 2;
  const size_t cap = buckets / 4;
  return cap < 16 ? 16 : cap > max ? max : cap;
}

// Whether batch-affine accumulation beats XYZZ for a tile: a batch add is
// 6.5 M against 10 M for a madd, so the inversion's share per add must stay
// below 3.5 M: batches of >= 21 (G1) or >= 6 (G2) entries. Small tiles
// and the narrow top window (digits.hpp: window_buckets) use XYZZ.
inline bool batch_affine_pays(size_t buckets, size_t points, double inversion) {
  const size_t fill = std::min(batch_capacity(buckets, inversion), points);
  return fill > 0 && inversion / double(fill) < 3.5;
}

template <class Cfg>
class XyzzBuckets {
 public:
  using A = ec::Affine<Cfg>;
  using X = ec::Xyzz<Cfg>;

  void reset(size_t buckets, MsmStats* stats) {
    bucket_.assign(buckets, X::identity());
    stats_ = stats;
  }
  void add(uint32_t b, const A& p, bool neg) {
    bucket_[b] = neg ? bucket_[b].sub_affine(p) : bucket_[b].add_affine(p);
    ++stats_->madds;
  }
  // Running sums from the top: running = sum_{b' >= b} bucket, total += running
  // adds bucket b exactly b+1 times. Two full adds per bucket.
  X reduce() {
    X running = X::identity(), total = X::identity();
    for (size_t b = bucket_.size(); b-- > 0;) {
      running += bucket_[b];
      total += running;
    }
    stats_->full_adds += 2 * bucket_.size();
    return total;
  }

 private:
  std::vector<X> bucket_;
  MsmStats* stats_ = nullptr;
};

template <class Cfg>
class AffineBuckets {
 public:
  using F = typename Cfg::Field;
  using A = ec::Affine<Cfg>;
  using X = ec::Xyzz<Cfg>;
  // Batches of either group may run on the eight-lane IFMA kernel.
  static constexpr bool kIfmaApplies = ff::ifma::kIfmaCompiled;

  // One engine per tile; storage is allocated here without initialisation
  // (the flags say what is live), so a tile pays only for the pages it
  // touches: 2^(c-1) * 96 bytes of G1 buckets = 1.5 MB at c = 15.
  void reset(size_t buckets, MsmStats* stats) {
    cap_ = batch_capacity(buckets, inversion_cost<Cfg>());
    defer_cap_ = cap_ / 4;
    flags_.assign(buckets, 0);
    bucket_ = std::make_unique_for_overwrite<A[]>(buckets);
    batch_.reserve(cap_);
    deferred_.reserve(defer_cap_);
    redo_.reserve(defer_cap_);
    stats_ = stats;
    if constexpr (kIfmaApplies) {
      ifma_ = ff::ifma::simd_path() == ff::ifma::SimdPath::kIfma;
      // 6 Packs per 8 entries (the kernel's lanes: prefix, den, num, s, x1,
      // y1), two addresses and two flags per entry: G1 at cap 512, BN254
      // 120 + 10 KB, BLS12-381 192 + 10 KB; G2 at cap 256 (Pack2 = 2 Packs)
      // the same; all of it stays in L2 with the buckets' lines.
      if (ifma_) {
        const size_t groups = (cap_ + 7) / 8;
        packs_ = std::make_unique_for_overwrite<Packs[]>(6 * groups);
        dst_ = std::make_unique_for_overwrite<F*[]>(cap_);
        src_ = std::make_unique_for_overwrite<const F*[]>(cap_);
        neg_ = std::make_unique_for_overwrite<uint8_t[]>(cap_);
        cancelled_ = std::make_unique_for_overwrite<uint8_t[]>(cap_);
        return;
      }
    }
    slot_ = std::make_unique_for_overwrite<Slot[]>(cap_);
  }

  // bucket[b] += (neg ? -p : p). p must not be the identity and must stay
  // alive until reduce() (the batch keeps a pointer).
  void add(uint32_t b, const A& p, bool neg) {
    const uint8_t f = flags_[b];
    if (!(f & kFull)) {  // empty bucket: a copy, no arithmetic
      bucket_[b] = neg ? A{p.x, -p.y} : p;
      flags_[b] = f | kFull;
      return;
    }
    if (f & kInBatch) {  // a batch may touch a bucket once: defer, or fall back
      if (deferred_.size() < defer_cap_) {
        deferred_.push_back({b, neg, &p});
      } else {
        add_overflow(b, p, neg);
      }
      return;
    }
    flags_[b] = f | kInBatch;
    // Fetch the bucket now, a whole batch before flush() reads it: with only
    // the 8-entry look-ahead in flush(), perf at 2^18 (c = 15) showed ~19% of
    // flush time stalled on this load; with this prefetch, ~5%.
    prefetch(&bucket_[b]);
    batch_.push_back({b, neg, &p});
    if (batch_.size() == cap_) flush();
  }

  // sum_b (b+1) * bucket_b. Large windows use the batch-affine tree of
  // msm/reduce.hpp (~13 M per bucket), small ones the running sum, where
  // buckets being affine makes the running-sum step a madd (10 M): 24 M.
  // Invalidates the buckets; call once, after the last add().
  X reduce() {
    while (!batch_.empty() || !deferred_.empty()) flush();
    const size_t nb = flags_.size();
    size_t live = 0;
    bool overflow = false;
    for (const uint8_t f : flags_) {
      live += f & kFull;
      overflow |= (f & kOverflow) != 0;
    }
    const double share = double(live) / double(nb);
    if (tree_reduce_cost(double(nb), share, inversion_cost<Cfg>()) < running_reduce_cost(double(nb), share)) {
      for (size_t b = 0; b < nb; ++b) {
        if (!(flags_[b] & kFull)) bucket_[b] = A::identity();
      }
      if (overflow) merge_overflow();
      auto copy = std::make_unique_for_overwrite<A[]>(nb);
      return tree_reduce<Cfg>(bucket_.get(), copy.get(), nb, stats_);
    }
    X running = X::identity(), total = X::identity();
    for (size_t b = nb; b-- > 0;) {
      const uint8_t f = flags_[b];
      if (f & kFull) {
        running += bucket_[b];
        ++stats_->madds;
      }
      if (f & kOverflow) {
        running += overflow_[b];
        ++stats_->full_adds;
      }
      total += running;
    }
    stats_->full_adds += nb;
    return total;
  }

 private:
  enum : uint8_t { kFull = 1, kInBatch = 2, kOverflow = 4 };
  static constexpr uint32_t kCancel = 2;  // Entry::neg value: P + (-P), set by flush()
  struct Entry {
    uint32_t bucket;
    uint32_t neg;  // 0 or 1: add -P; kCancel inside flush()
    const A* point;
  };
  // What the scalar backward pass of flush() needs of one entry: 288 bytes
  // (G1 BLS12-381; G2 twice that).
  struct Slot {
    F den, num, s, ax, ay, prefix;  // s = x1 + x2, so x3 = lambda^2 - s
  };
  static_assert(sizeof(A) == 2 * sizeof(F), "the IFMA kernel reads a point as (x, y), two consecutive F");
  using Packs = typename ff::ifma::LanePack<F>::type;  // Pack (G1) or Pack2 (G2)

  // Conflicts beyond the deferral cap (skewed scalars: many equal digits)
  // go to a per-bucket XYZZ sum, so the worst case is the XYZZ engine's cost
  // rather than one inversion per add.
  void add_overflow(uint32_t b, const A& p, bool neg) {
    const A q = neg ? A{p.x, -p.y} : p;
    if (!overflow_) overflow_ = std::make_unique_for_overwrite<X[]>(flags_.size());  // rare: skewed digits
    if (flags_[b] & kOverflow) {
      overflow_[b] += q;
      ++stats_->madds;
    } else {
      overflow_[b] = X::from_affine(q);
      flags_[b] |= kOverflow;
    }
  }

  void flush();
  void flush_ifma(size_t m);
  void after_flush();

  // Folds the XYZZ overflow sums into the affine buckets (empty ones already
  // hold the identity): one shared inversion converts them to affine
  // (x = X/ZZ, y = Y/ZZZ from 1/(ZZ*ZZZ)), then one batch of pair adds.
  void merge_overflow() {
    std::vector<uint32_t> idx;
    for (size_t b = 0; b < flags_.size(); ++b) {
      if ((flags_[b] & kOverflow) && !overflow_[b].is_identity()) idx.push_back(uint32_t(b));
    }
    std::vector<F> prefix(idx.size());
    F acc = F::one();
    for (size_t k = 0; k < idx.size(); ++k) {
      prefix[k] = acc;
      acc = acc * (overflow_[idx[k]].zz * overflow_[idx[k]].zzz);
    }
    F inv = acc.inverse();
    std::vector<A> affine(idx.size());
    for (size_t k = idx.size(); k-- > 0;) {
      const X& o = overflow_[idx[k]];
      const F inv_k = inv * prefix[k];
      inv = inv * (o.zz * o.zzz);
      affine[k] = {o.x * o.zzz * inv_k, o.y * o.zz * inv_k};
    }
    std::vector<std::pair<A*, const A*>> pairs;
    for (size_t k = 0; k < idx.size(); ++k) pairs.push_back({&bucket_[idx[k]], &affine[k]});
    add_pairs<Cfg>(pairs, stats_);
  }

  // A G1 bucket is 96 bytes at a 96-byte stride, so it spans two cache lines
  // half of the time (G2: 192 bytes, 3-4 lines): fetch every line.
  static void prefetch(const A* a) {
    const char* p = reinterpret_cast<const char*>(a);
    for (size_t off = 0; off < sizeof(A); off += 64) __builtin_prefetch(p + off);
    __builtin_prefetch(p + sizeof(A) - 1);
  }

  std::unique_ptr<A[]> bucket_;
  std::unique_ptr<X[]> overflow_;
  std::vector<uint8_t> flags_;
  std::vector<Entry> batch_, deferred_, redo_;
  std::unique_ptr<Slot[]> slot_;  // scalar path only
  // IFMA path only: the kernel's lanes, and per entry the bucket's and the
  // point's addresses, the sign and whether it cancelled.
  std::unique_ptr<Packs[]> packs_;
  std::unique_ptr<F*[]> dst_;
  std::unique_ptr<const F*[]> src_;
  std::unique_ptr<uint8_t[]> neg_, cancelled_;
  bool ifma_ = false;
  size_t cap_ = 0, defer_cap_ = 0;
  MsmStats* stats_ = nullptr;
};

// One batch: every entry adds a point to a distinct, non-empty affine bucket.
// Forward pass: denominators and prefix products (1M each); one inversion;
// backward pass peels 1/den_k off the running inverse (2M), then
// lambda (1M), lambda^2 (1S), y3 (1M). Chord: den = x2 - x1, num = y2 - y1;
// tangent (same point): den = 2y, num = 3x^2; opposite points: the bucket
// empties and den = 1 keeps the product invertible.
// The forward pass copies what the backward pass needs into slot_[k]: the
// buckets are random accesses into up to 1.5 MB (c = 15), and re-reading
// them in the backward pass missed cache (~15% of flush time in perf at
// 2^18); the slots are read back sequentially.
template <class Cfg>
void AffineBuckets<Cfg>::flush() {
  const size_t m = batch_.size();
  if (m == 0) {  // only deferred entries left (reduce()): requeue them
    redo_.swap(deferred_);
    for (const Entry& e : redo_) add(e.bucket, *e.point, e.neg != 0);
    redo_.clear();
    return;
  }
  if (ifma_) return flush_ifma(m);
  constexpr size_t kAhead = 8;  // second chance for lines evicted since add()
  F acc = F::one();
  for (size_t k = 0; k < m; ++k) {
    if (k + kAhead < m) prefetch(&bucket_[batch_[k + kAhead].bucket]);
    Entry& e = batch_[k];
    Slot& sl = slot_[k];
    const A& a = bucket_[e.bucket];
    const A& p = *e.point;
    const F py = e.neg ? -p.y : p.y;
    sl.ax = a.x;
    sl.ay = a.y;
    sl.s = a.x + p.x;
    F d = p.x - a.x;
    if (!d.is_zero()) {
      sl.num = py - a.y;
    } else if (py == a.y && !a.y.is_zero()) {  // tangent
      const F x2 = a.x.sqr();
      sl.num = x2.dbl() + x2;
      d = a.y.dbl();
    } else {  // P + (-P)
      d = F::one();
      sl.num = F::zero();  // unused
      e.neg = kCancel;
    }
    sl.den = d;
    sl.prefix = acc;
    acc = acc * d;
  }
  F inv = acc.inverse();
  ++stats_->batch_inversions;
  for (size_t k = m; k-- > 0;) {
    const Entry& e = batch_[k];
    const Slot& sl = slot_[k];
    const F inv_k = inv * sl.prefix;
    inv = inv * sl.den;
    if (e.neg == kCancel) {
      flags_[e.bucket] &= uint8_t(~(kInBatch | kFull));
      continue;
    }
    flags_[e.bucket] &= uint8_t(~kInBatch);
    const F lambda = sl.num * inv_k;
    const F x3 = lambda.sqr() - sl.s;
    bucket_[e.bucket] = A{x3, lambda * (sl.ax - x3) - sl.ay};
  }
  after_flush();
}

// Both paths' end of a batch: deferred entries go first into the next
// batch; the batch is empty and defer_cap_ < cap_, so this cannot recurse
// into flush().
template <class Cfg>
void AffineBuckets<Cfg>::after_flush() {
  stats_->batch_adds += batch_.size();
  batch_.clear();
  redo_.swap(deferred_);
  for (const Entry& e : redo_) add(e.bucket, *e.point, e.neg != 0);
  redo_.clear();
}

// flush() on eight IFMA lanes (ff/ifma/batch_affine.hpp): the kernel reads
// each bucket and point where they are, does the whole addition including
// the special cases, and writes the buckets back; what stays here is the
// flags. It replaced, on this path, the scalar forward pass (copies into
// slots, differences, special cases: 19% of a BN254 G1 MSM's CPU in perf)
// and the copy of the results.
template <class Cfg>
void AffineBuckets<Cfg>::flush_ifma(size_t m) {
#if defined(PP_IFMA_COMPILED)
  if constexpr (kIfmaApplies) {
    for (size_t k = 0; k < m; ++k) {
      const Entry& e = batch_[k];
      dst_[k] = &bucket_[e.bucket].x;
      src_[k] = &e.point->x;
      neg_[k] = uint8_t(e.neg);
    }
    ff::ifma::batch_affine_add(dst_.get(), src_.get(), neg_.get(), m, packs_.get(), cancelled_.get());
    ++stats_->batch_inversions;
    for (size_t k = 0; k < m; ++k) {
      const uint8_t clear = cancelled_[k] ? uint8_t(kInBatch | kFull) : uint8_t(kInBatch);
      flags_[batch_[k].bucket] &= uint8_t(~clear);
    }
    after_flush();
  }
#else
  (void)m;
#endif
}

}  // namespace proofpipe::msm::detail
