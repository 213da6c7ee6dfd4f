// Per-thread bodies of the CUDA MSM (cuda/src/msm.cuh), written once for the
// device and for the host emulation in tests/cuda: no CUDA headers here.
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
// PoRep's 0/1 scalars off into a batch add, docs/design/numbers.md §2, where the tail
// MSM is 83 ms against 650 ms of batch add). Without it every scalar costs
// W pairs in the sort (15 at 2^24), whatever its value; with it a zero
// term costs none and a +-1 one.
// Templated on the curve configuration (bls12_381::G1Cfg / bls12_381::G2Cfg).
#pragma once

#include <cstddef>
#include <cstdint>

#include "proofpipe/cuda/msm_plan.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/hd.hpp"
#include "proofpipe/msm/digits.hpp"

namespace proofpipe::cuda::msm_detail {

// ----- digits -------------------------------------------------------------

// A pair's value is the point index with this bit set when the point is
// subtracted (index < 2^31).
inline constexpr uint32_t kSignBit = 0x80000000u;

// Classes of the split's terms (one byte per term on the device).
enum TermClass : uint8_t { kZeroTerm = 0, kPlusOne = 1, kMinusOne = 2, kOtherScalar = 3 };

// The scalar of term i: scalars[i], or scalars[index[i]] for a key section
// stored without its identity points (the backend's compaction keeps the
// rest in order and the wire of each, so the witness is read in place).
PP_HD inline const bls12_381::Fr& term_scalar(const bls12_381::Fr* scalars, const uint32_t* index, size_t i) {
  return scalars[index == nullptr ? i : index[i]];
}

// Thread i of the classify kernel: the class of the term term_scalar(i) *
// points[i]. A zero scalar or an identity point makes the term zero: snarkjs
// keys hold the identity for every wire absent from a query, 62% of the B
// points of a `proofpipe gen` key at 2^20 and about 75% for PoRep (b density
// 25.4%, docs/design/numbers.md §1). After the fold, +-1 is k = 1 with the fold's sign.
template <class Cfg>
PP_HD void classify_body(size_t i, const bls12_381::Fr* scalars, const uint32_t* index, const ec::Affine<Cfg>* points,
                         uint8_t* classes) {
  ff::Limbs<4> k = term_scalar(scalars, index, i).to_canonical();
  const uint32_t neg = msm::detail::fold_canonical<bls12_381::FrParams>(k);
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
PP_HD inline void digits_body(size_t t, const bls12_381::Fr* scalars, const uint32_t* index, const uint32_t* others,
                              size_t count, unsigned c, unsigned j0, unsigned jn, uint32_t* keys, uint32_t* vals) {
  const uint32_t i = others[t];
  ff::Limbs<4> k = term_scalar(scalars, index, i).to_canonical();
  const uint32_t neg = msm::detail::fold_canonical<bls12_381::FrParams>(k);
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
PP_HD void accumulate_points_body(uint32_t t, const Runs& runs, const ec::Affine<Cfg>* points, const uint32_t* vals,
                                  unsigned task_len, unsigned c, unsigned j0, size_t m, ec::Xyzz<Cfg>* partial_out,
                                  ec::Xyzz<Cfg>* buckets) {
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
                                unsigned c, unsigned j0, size_t m, ec::Xyzz<Cfg>* partial_out, ec::Xyzz<Cfg>* buckets) {
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
PP_HD void reduce_segment_body(uint32_t s, const ec::Xyzz<Cfg>* buckets, size_t m, unsigned seg, ec::Xyzz<Cfg>* out) {
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
