// Per-thread bodies of the CUDA MSM (cuda/src/msm.cuh), written once for the
// device and for the host emulation in tests/cuda_host: no CUDA headers here.
//
// Shape (Pippenger, signed digits, sort by bucket, XYZZ buckets):
//   classify    one thread per term: zero (scalar 0 or identity point), +1,
//               -1 or other (scalar canonical, folded)
//   split       indices of the others and of the +-1s, in order (CUB select);
//               zero terms drop out here
//   digits      one thread per other scalar: folded to k <= (r-1)/2, Booth
//               digit per window -> (key = bucket id, value = index|sign);
//               one pair per +-1 scalar, in window 0's bucket 1
//   sort        by key (CUB radix sort on the device)
//   runs        run-length encode the keys: one run per non-empty bucket
//   accumulate  every run cut into tasks of <= L entries, one thread each;
//               runs with several tasks are summed again (same split) until
//               each bucket has one sum, so a bucket holding every point
//               (all scalars 1) costs log_L(n) short levels, not one thread
//               walking n points
//   reduce      sum_b b * B_b per window in segments of S buckets, then a
//               tree over the segments; Horner over the windows on the host
// Why the split: witnesses are mostly bits and flags (supraseal and cuzk cut
// PoRep's 0/1 scalars off into a batch add, anchors.md §1.3, where the tail
// MSM is 83 ms against 650 ms of batch add). Without it every scalar costs
// W pairs in the sort (15 at 2^24), whatever its value; with it a zero
// term costs none and a +-1 one.
// Templated on the curve configuration (ec::G1Cfg / ec::G2Cfg).
#pragma once

#include <cstddef>
#include <cstdint>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/hd.hpp"
#include "proofpipe/msm/digits.hpp"

namespace proofpipe::cuda::msm_detail {

// ----- plan ---------------------------------------------------------------

// Pairs (n x windows) sorted at once: 2^27 pairs of 8 bytes, double-buffered,
// is 2 GiB; 2^24 points then sort in two groups of 8 and 7 windows.
inline constexpr size_t kMaxGroupPairs = size_t(1) << 27;
inline constexpr uint32_t kSignBit = 0x80000000u;
// Where the default task length L steps up from 8 to 16 to 64 (make_plan).
inline constexpr size_t kPairsForL16 = size_t(1) << 19;
inline constexpr size_t kPairsForL64 = size_t(1) << 22;

// The plan's inputs a caller may override (0 = the default; MsmTuning in
// proofpipe/cuda/msm.hpp), and the tests' cap on a sort group.
struct PlanRequest {
  unsigned window_bits = 0;  // c in [2, 20] (key bits <= 27)
  unsigned task_len = 0;     // L >= 2
  unsigned segment = 0;      // S, a power of two (clamped to m)
  size_t max_group_pairs = kMaxGroupPairs;
};

struct Plan {
  size_t others = 0;           // terms with a digit in every window
  size_t ones = 0;             // +-1 terms: one pair each, in group 0
  unsigned c = 0;              // window bits
  unsigned windows = 0;        // W = ceil(255 / c)
  unsigned group_windows = 0;  // windows sorted together
  unsigned key_bits = 0;       // end_bit of the sort: c + bits(group_windows - 1)
  unsigned task_len = 0;       // L: entries one accumulation thread sums
  unsigned segment = 0;        // S: buckets one reduction thread walks
  size_t buckets = 0;          // m = 2^(c-1) dense slots per window (|d| = 1..m)
  // Pairs of the group starting at window j0 with jn windows.
  size_t group_pairs(unsigned j0, unsigned jn) const { return others * jn + (j0 == 0 ? ones : 0); }
};

PP_HD inline unsigned bit_length(uint64_t v) {
  unsigned b = 0;
  while (v != 0) {
    ++b;
    v >>= 1;
  }
  return b;
}

// Window bits for n points: c = clamp(floor(log2 n) - 6, 8, 18). Why: the
// accumulation costs n * ceil(255/c) mixed adds and the reduction about
// 2 * W * 2^(c-1) full adds; at 2^24, c = 18 (W = 15) does 6% fewer adds
// than c = 16 (W = 16) while its reduction is still ~1.5% of the adds
// (15 * 2^17 * 2 against 15 * 2^24), and the dense bucket array stays small
// (377 MB for G1, 755 MB for G2). The sort key is c + 4 bits either way
// (three 8-bit radix passes). Below 2^14 points c = 8 (the floor keeps W <= 32).
inline unsigned choose_window_bits(size_t n) {
  const unsigned lg = n <= 1 ? 0 : bit_length(n) - 1;
  const int c = int(lg) - 6;
  return unsigned(c < 8 ? 8 : c > 18 ? 18 : c);
}

// A plan for `others` windowed scalars and `ones` +-1 scalars. The window
// follows the others (the ones add one pair each, whatever c is); group 0
// also holds the ones' pairs, so a group's pairs stay within
// max_group_pairs unless one window of others plus the ones exceed it.
inline Plan make_plan(size_t others, size_t ones, const PlanRequest& req = {}) {
  Plan p;
  p.others = others;
  p.ones = ones;
  p.c = req.window_bits != 0 ? req.window_bits : choose_window_bits(others);
  p.windows = (255 + p.c - 1) / p.c;
  const size_t room = req.max_group_pairs > ones ? req.max_group_pairs - ones : 0;
  const size_t per_group = others == 0 ? p.windows : room / others;
  p.group_windows = unsigned(per_group < 1 ? 1 : per_group > p.windows ? p.windows : per_group);
  p.key_bits = p.c + bit_length(p.group_windows - 1);
  p.buckets = size_t(1) << (p.c - 1);
  unsigned task_len = req.task_len;
  if (task_len == 0) {
    // L: enough threads at small sizes (8 entries each below 2^19 pairs),
    // few partial sums at large ones (64: one extra full add per 64 madds).
    const size_t pairs = p.group_pairs(0, p.group_windows);
    task_len = pairs >= kPairsForL64 ? 64 : pairs >= kPairsForL16 ? 16 : 8;
  }
  p.task_len = task_len;
  // 128 full adds + a <= 17-bit double-and-add per thread.
  const unsigned segment = req.segment != 0 ? req.segment : 64;
  p.segment = unsigned(segment > p.buckets ? p.buckets : segment);
  return p;
}

// Fan-in of the tree over a window's segments: 2048 segments (c = 18,
// S = 64) take three launches (2048 -> 128 -> 8 -> 1).
inline constexpr unsigned kReduceFan = 16;

// Device scratch of one plan, in elements (the driver's reserves and the
// pre-sizing of reserve_msm in msm.cuh):
//   pairs    the largest group's sort pairs: group 0 (the most windows, and
//            the ones)
//   runs     at most one per pair and one per (window, key) of the group,
//            |d| = 0 included (m + 1 keys a window)
//   partial  tasks of a level, by parity. Level 0 has sum ceil(cnt/L) <=
//            ceil(pairs/L) + runs. A run goes on only after t >= 2 tasks,
//            with ceil(t/L) <= (t + 1)/2 of them, so level 1 has at most
//            (level 0 + runs)/2; and ceil(t/L) < t, so each level has fewer
//            than the one before and level k + 2 fits where level k did.
//   segment_sums, tree_sums  the reduction's two buffers
struct PlanSizes {
  size_t pairs = 0;
  size_t runs = 0;
  size_t partial[2] = {0, 0};
  size_t bucket_slots = 0;  // windows * m
  size_t segment_sums = 0;  // windows * m / S
  size_t tree_sums = 0;     // windows * ceil(m / S / kReduceFan)
};

inline PlanSizes plan_sizes(const Plan& p, size_t max_pairs = ~size_t(0)) {
  PlanSizes z;
  const size_t pairs = p.group_pairs(0, p.group_windows);
  z.pairs = pairs < max_pairs ? pairs : max_pairs;
  const size_t keys = size_t(p.group_windows) * (p.buckets + 1);
  z.runs = z.pairs < keys ? z.pairs : keys;
  z.partial[0] = (z.pairs + p.task_len - 1) / p.task_len + z.runs;
  z.partial[1] = (z.partial[0] + z.runs + 1) / 2;
  z.bucket_slots = size_t(p.windows) * p.buckets;
  const size_t segs_per_window = p.buckets / p.segment;
  z.segment_sums = size_t(p.windows) * segs_per_window;
  z.tree_sums = size_t(p.windows) * ((segs_per_window + kReduceFan - 1) / kReduceFan);
  return z;
}

// What reserve_msm (msm.cuh) sizes the scratch for, so that an MSM of up to
// n terms, whatever its split into windowed terms and +-1s, grows none of
// its buffers: the largest of each size over these splits, per bracket of
// c (windowed terms o in [2^k, 2^(k+1)), so c and W fixed):
//  - the bracket's top (o = n, or o = 2^(k+1) - 1 with the other n - o as
//    +-1s): the pairs (W - 1) * o + n grow with o, and with them the runs
//    and the buckets;
//  - the most pairs just below each step of the default L (2^19 and 2^22
//    pairs): a smaller L gives more tasks, so ceil(pairs / L) peaks there
//    too, not only at the top.
// Where the top's plan is capped (fewer windows a group than W), a split
// with fewer others gets more windows a group: that bracket is sized for all
// W windows in one group, its pairs at most the cap (or one window of
// others plus the ones, when that alone is over it).
// CudaMsmPlan.ReservedSizesCoverEverySplit checks the claim.
inline PlanSizes reserve_sizes(size_t n, const PlanRequest& req = {}) {
  PlanSizes z;
  const auto grow = [](size_t& a, size_t b) { a = a > b ? a : b; };
  const auto cover = [&](size_t o, size_t ones) {
    Plan p = make_plan(o, ones, req);
    const bool capped = p.group_windows < p.windows;
    p.group_windows = p.windows;
    const PlanSizes q = plan_sizes(p, capped ? (req.max_group_pairs > n ? req.max_group_pairs : n) : ~size_t(0));
    grow(z.pairs, q.pairs);
    grow(z.runs, q.runs);
    grow(z.partial[0], q.partial[0]);
    grow(z.partial[1], q.partial[1]);
    grow(z.bucket_slots, q.bucket_slots);
    grow(z.segment_sums, q.segment_sums);
    grow(z.tree_sums, q.tree_sums);
  };
  for (size_t top = n;; top = (size_t(1) << (bit_length(top) - 1)) - 1) {
    cover(top, n - top);
    const size_t bottom = top <= 1 ? top : size_t(1) << (bit_length(top) - 1);
    const unsigned w = make_plan(top, 0, req).windows;
    for (size_t step : {kPairsForL16, kPairsForL64}) {
      // o windowed terms and the ones filling up to step - 1 pairs.
      size_t o = (step - 1) / w;
      o = o < bottom ? bottom : o > top ? top : o;
      if (o * w > step - 1) continue;  // the bracket is past this step
      const size_t want = step - 1 - o * w;
      cover(o, want < n - o ? want : n - o);
    }
    if (top <= 1) break;
  }
  return z;
}

// ----- digits -------------------------------------------------------------

// Classes of the split's terms (one byte per term on the device).
enum TermClass : uint8_t { kZeroTerm = 0, kPlusOne = 1, kMinusOne = 2, kOtherScalar = 3 };

// Thread i of the classify kernel: the class of the term scalars[i] *
// points[i]. A zero scalar or an identity point makes the term zero: snarkjs
// keys hold the identity for every wire absent from a query, 62% of the B
// points of a `proofpipe gen` key at 2^20 and about 75% for PoRep (b density
// 25.4%, anchors.md §1.5). After the fold, +-1 is k = 1 with the fold's sign.
template <class Cfg>
PP_HD void classify_body(size_t i, const ff::Fr* scalars, const ec::Affine<Cfg>* points, uint8_t* classes) {
  ff::Limbs<4> k = scalars[i].to_canonical();
  const uint32_t neg = msm::detail::fold_canonical(k);
  const msm::detail::ScalarClass folded = msm::detail::folded_class(k);
  uint8_t cls = folded == msm::detail::ScalarClass::kZero  ? kZeroTerm
                : folded == msm::detail::ScalarClass::kOne ? (neg != 0 ? kMinusOne : kPlusOne)
                                                           : kOtherScalar;
  if (points[i].is_identity()) cls = kZeroTerm;
  classes[i] = cls;
}

// Thread t of the digit kernel for windows [j0, j0 + jn) of the windowed
// scalars (`others[t]` is the index of the t-th of `count`): writes the pair
// of window j0 + w at w * count + t (window-major, so writes coalesce).
//   key   = (w << c) | |d|   (|d| = 0: no bucket, skipped by the runs)
//   value = i | sign << 31,  sign = folded XOR (d < 0)
// Identity points need no test here: adding (0,0) is a no-op in Xyzz.
PP_HD inline void digits_body(size_t t, const ff::Fr* scalars, const uint32_t* others, size_t count, unsigned c,
                              unsigned j0, unsigned jn, uint32_t* keys, uint32_t* vals) {
  const uint32_t i = others[t];
  ff::Limbs<4> k = scalars[i].to_canonical();
  const uint32_t neg = msm::detail::fold_canonical(k);
  for (unsigned w = 0; w < jn; ++w) {
    const int32_t d = msm::detail::booth_digit(k, j0 + w, c);
    const uint32_t mag = uint32_t(d < 0 ? -d : d);
    const uint32_t sign = neg ^ uint32_t(d < 0);
    keys[w * count + t] = (uint32_t(w) << c) | mag;
    vals[w * count + t] = i | (mag == 0 ? 0u : sign << 31);
  }
}

// Thread t of the +-1 pairs (group 0 only, after its windowed pairs):
// window 0, |d| = 1, so key 1; the sign is the class's.
PP_HD inline void ones_pairs_body(size_t t, const uint32_t* ones, const uint8_t* classes, uint32_t* keys,
                                  uint32_t* vals) {
  const uint32_t i = ones[t];
  keys[t] = 1;
  vals[t] = i | (classes[i] == kMinusOne ? kSignBit : 0u);
}

// ----- runs and the balanced accumulation ---------------------------------

// The runs of one group (one per distinct key after the sort) and, per
// level, their tasks. off/cnt index the level's input list (sorted values
// at level 0, the previous level's partial sums later); cnt = 0 marks a run
// that needs no more work (no bucket, or already written).
struct Runs {
  const uint32_t* key;
  uint32_t* off;
  uint32_t* cnt;
  uint32_t* ntasks;  // num + 1 entries (the last is 0, so its scan is the total)
  uint32_t* toff;    // exclusive scan of ntasks
  uint32_t num;
};

// After the RLE and the scan of its counts: runs of |d| = 0 do nothing.
PP_HD inline void runs_init_body(uint32_t r, const Runs& runs, unsigned c) {
  const uint32_t mask = (uint32_t(1) << c) - 1;
  if ((runs.key[r] & mask) == 0) runs.cnt[r] = 0;
}

// Tasks of run r at this level (r == num: the 0 that closes the scan).
PP_HD inline void runs_plan_body(uint32_t r, const Runs& runs, unsigned task_len) {
  const uint32_t cnt = r < runs.num ? runs.cnt[r] : 0;
  runs.ntasks[r] = (cnt + task_len - 1) / task_len;
}

// After the level's tasks: a run that had >= 2 tasks continues with its
// partial sums (at toff[r] in the level's output); one task wrote the bucket.
PP_HD inline void runs_advance_body(uint32_t r, const Runs& runs) {
  const uint32_t t = runs.ntasks[r];
  if (t >= 2) {
    runs.off[r] = runs.toff[r];
    runs.cnt[r] = t;
  } else {
    runs.cnt[r] = 0;
  }
}

// The run holding task t: the last r with toff[r] <= t (binary search; runs
// with no tasks have toff[r] == toff[r+1] and are never chosen).
PP_HD inline uint32_t find_run(const uint32_t* toff, uint32_t num, uint32_t t) {
  uint32_t lo = 0, hi = num;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (toff[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Dense slot of a key of window group j0: [window][|d| - 1], m slots a window.
PP_HD inline size_t bucket_slot(uint32_t key, unsigned c, unsigned j0, size_t m) {
  const uint32_t mask = (uint32_t(1) << c) - 1;
  return size_t(j0 + (key >> c)) * m + ((key & mask) - 1);
}

// Level-0 task t: sum of +-points[value & ~sign] over its <= L entries.
template <class Cfg>
PP_HD void accumulate_points_body(uint32_t t, const Runs& runs, const ec::Affine<Cfg>* points,
                                  const uint32_t* vals, unsigned task_len, unsigned c, unsigned j0, size_t m,
                                  ec::Xyzz<Cfg>* partial_out, ec::Xyzz<Cfg>* buckets) {
  const uint32_t r = find_run(runs.toff, runs.num, t);
  const uint32_t q = t - runs.toff[r];
  const uint32_t begin = runs.off[r] + q * task_len;
  const uint32_t stop = runs.off[r] + runs.cnt[r];
  const uint32_t end = stop - begin < task_len ? stop : begin + task_len;
  ec::Xyzz<Cfg> acc = ec::Xyzz<Cfg>::identity();
  for (uint32_t e = begin; e < end; ++e) {
    const uint32_t v = vals[e];
    const ec::Affine<Cfg> p = points[v & ~kSignBit];
    acc = (v & kSignBit) != 0 ? acc.sub_affine(p) : acc.add_affine(p);
  }
  if (runs.ntasks[r] == 1)
    buckets[bucket_slot(runs.key[r], c, j0, m)] = acc;
  else
    partial_out[t] = acc;
}

// Level >= 1 task t: sum of <= L partial sums of the previous level.
template <class Cfg>
PP_HD void accumulate_sums_body(uint32_t t, const Runs& runs, const ec::Xyzz<Cfg>* partial_in, unsigned task_len,
                                unsigned c, unsigned j0, size_t m, ec::Xyzz<Cfg>* partial_out,
                                ec::Xyzz<Cfg>* buckets) {
  const uint32_t r = find_run(runs.toff, runs.num, t);
  const uint32_t q = t - runs.toff[r];
  const uint32_t begin = runs.off[r] + q * task_len;
  const uint32_t stop = runs.off[r] + runs.cnt[r];
  const uint32_t end = stop - begin < task_len ? stop : begin + task_len;
  ec::Xyzz<Cfg> acc = partial_in[begin];
  for (uint32_t e = begin + 1; e < end; ++e) acc = acc + partial_in[e];
  if (runs.ntasks[r] == 1)
    buckets[bucket_slot(runs.key[r], c, j0, m)] = acc;
  else
    partial_out[t] = acc;
}

// ----- bucket reduction ---------------------------------------------------

// k * p for a small k (< 2^32), double-and-add from the top bit.
template <class Cfg>
PP_HD ec::Xyzz<Cfg> mul_small(const ec::Xyzz<Cfg>& p, uint32_t k) {
  ec::Xyzz<Cfg> acc = ec::Xyzz<Cfg>::identity();
  for (unsigned b = bit_length(k); b-- > 0;) {
    acc = acc.dbl();
    if ((k >> b) & 1u) acc = acc + p;
  }
  return acc;
}

// Thread s of W * (m / S): segment g = s % (m/S) of window w = s / (m/S),
// slots [g*S, g*S + S) = buckets b = g*S + 1 .. g*S + S. Running sums from
// the top give sum (b - g*S) B_b and sum B_b; their combination
// acc + (g*S) * running is the segment's share of sum_b b * B_b.
template <class Cfg>
PP_HD void reduce_segment_body(uint32_t s, const ec::Xyzz<Cfg>* buckets, size_t m, unsigned seg,
                               ec::Xyzz<Cfg>* out) {
  const size_t per_window = m / seg;
  const size_t w = s / per_window, g = s % per_window;
  const ec::Xyzz<Cfg>* b = buckets + w * m + g * seg;
  ec::Xyzz<Cfg> running = ec::Xyzz<Cfg>::identity(), acc = ec::Xyzz<Cfg>::identity();
  for (unsigned i = seg; i-- > 0;) {
    running = running + b[i];
    acc = acc + running;
  }
  out[s] = acc + mul_small(running, uint32_t(g * seg));
}

// One step of the tree over each row (window): row-major [rows][cols_in] ->
// [rows][cols_out], cols_out = ceil(cols_in / fan); thread tid sums up to
// `fan` neighbours. Repeat until one column is left.
template <class Cfg>
PP_HD void reduce_rows_body(uint32_t tid, const ec::Xyzz<Cfg>* in, size_t cols_in, unsigned fan, size_t cols_out,
                            ec::Xyzz<Cfg>* out) {
  const size_t row = tid / cols_out, k = tid % cols_out;
  const size_t begin = k * fan, end = begin + fan < cols_in ? begin + fan : cols_in;
  const ec::Xyzz<Cfg>* src = in + row * cols_in;
  ec::Xyzz<Cfg> acc = src[begin];
  for (size_t e = begin + 1; e < end; ++e) acc = acc + src[e];
  out[tid] = acc;
}

// Host: Horner over the W window sums, c doublings per window (W <= 128).
template <class Cfg>
ec::Jacobian<Cfg> combine_windows(const ec::Xyzz<Cfg>* window_sums, unsigned windows, unsigned c) {
  ec::Jacobian<Cfg> acc = ec::Jacobian<Cfg>::identity();
  for (unsigned j = windows; j-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    acc = acc + window_sums[j].to_jacobian();
  }
  return acc;
}

}  // namespace proofpipe::cuda::msm_detail
