// The CUDA MSM's plan (host side of cuda/src/msm.cuh): window size c, sort
// groups, task length L and reduction segment S for a given split of the
// terms, and the device scratch a plan needs (plan_sizes) or any MSM of up
// to n terms needs (reserve_sizes, the backend's set-up). No CUDA headers:
// the host emulation and the plan tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "proofpipe/hd.hpp"

namespace proofpipe::cuda::msm_detail {

// Pairs (n x windows) sorted at once: 2^27 pairs of 8 bytes, double-buffered,
// is 2 GiB; 2^24 points then sort in two groups of 8 and 7 windows.
inline constexpr size_t kMaxGroupPairs = size_t(1) << 27;
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

// Device bytes reserve_msm (msm.cuh) allocates for MSMs of up to n1 terms
// with xyzz1-byte buckets (G1) and n2 terms with xyzz2-byte ones (G2) in
// one scratch (MsmScratch), each buffer the larger of the two sizes; CUB's
// temp storage is not counted (its size is CUB's to say). The backend's
// set-up checks the device's room with it, and a gpu test checks it
// against what the scratch holds. For 2^24 terms in both groups: 5.42 GiB.
inline size_t reserve_bytes(size_t n1, size_t xyzz1, size_t n2, size_t xyzz2) {
  // One entry a buffer of MsmScratch (keys and vals count as one: 4 of them,
  // all z.pairs long), in bytes.
  size_t buf[8] = {};
  for (const auto& [n, x] : {std::pair{n1, xyzz1}, std::pair{n2, xyzz2}}) {
    if (n == 0) continue;  // reserve_msm reserves nothing for an empty group
    const PlanSizes z = reserve_sizes(n);
    const size_t need[8] = {z.pairs * 4 * sizeof(uint32_t),           // keys[2], vals[2]
                            (z.runs + 1) * 5 * sizeof(uint32_t) + 4,  // the five run arrays, num_runs
                            n * (1 + 2 * sizeof(uint32_t)) + 2 * 4,   // classes, others, ones, split_counts
                            z.bucket_slots * x,
                            z.partial[0] * x,
                            z.partial[1] * x,
                            z.segment_sums * x,
                            z.tree_sums * x};
    for (int k = 0; k < 8; ++k) buf[k] = buf[k] > need[k] ? buf[k] : need[k];
  }
  size_t total = 0;
  for (size_t b : buf) total += b;
  return total;
}

}  // namespace proofpipe::cuda::msm_detail
