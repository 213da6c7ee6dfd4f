// Host emulation of the CUDA MSM driver (cuda/src/msm.cuh): the same PP_HD
// bodies (proofpipe/cuda/msm_kernels.hpp) in the same order, with loops for
// launches and std::stable_sort / plain loops standing in for CUB's select,
// radix sort, run-length encoding and exclusive scans. Keep it step for step in
// line with msm_device() in msm.cuh.
#pragma once

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "proofpipe/cuda/msm_kernels.hpp"
#include "proofpipe/ec/batch_normalize.hpp"

namespace proofpipe::test {

// What the emulation went through, for tests that must reach a path.
struct MsmEmuStats {
  size_t others = 0;        // the split: windowed scalars,
  size_t ones = 0;          // +-1 scalars
  size_t pairs = 0;         // pairs sorted, all groups
  unsigned c = 0;           // the plan's window bits
  unsigned groups = 0;      // window groups sorted separately
  unsigned max_levels = 0;  // accumulation levels of the deepest group
  size_t max_tasks = 0;     // most tasks of one level
};

inline void exclusive_scan_u32(const uint32_t* in, uint32_t* out, size_t n) {
  uint32_t acc = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = in[i];
    out[i] = acc;
    acc += v;
  }
}

// Term i is scalars[index[i]] * points[i] when `index` is given (a
// compacted key section, key_compaction.hpp), else scalars[i] * points[i].
template <class Cfg>
ec::Jacobian<Cfg> emulate_msm(std::span<const ec::Affine<Cfg>> points, std::span<const bls12_381::Fr> scalars,
                              const cuda::msm_detail::PlanRequest& req = {}, MsmEmuStats* stats = nullptr,
                              std::span<const uint32_t> index = {}) {
  namespace md = cuda::msm_detail;
  using X = ec::Xyzz<Cfg>;
  const size_t n = points.size();
  MsmEmuStats st;
  if (stats != nullptr) *stats = st;
  if (n == 0) return ec::Jacobian<Cfg>::identity();
  const uint32_t* ix = index.empty() ? nullptr : index.data();
  EXPECT_TRUE(ix != nullptr ? index.size() == n : scalars.size() == n);
  for (uint32_t w : index) EXPECT_LT(w, scalars.size());

  // classify_kernel, then the two cub::DeviceSelect::If (stable).
  std::vector<uint8_t> classes(n);
  for (size_t i = 0; i < n; ++i) md::classify_body<Cfg>(i, scalars.data(), ix, points.data(), classes.data());
  std::vector<uint32_t> others, ones;
  for (uint32_t i = 0; i < n; ++i) {
    if (classes[i] == md::kOtherScalar) others.push_back(i);
    if (classes[i] == md::kPlusOne || classes[i] == md::kMinusOne) ones.push_back(i);
  }
  st.others = others.size();
  st.ones = ones.size();
  if (others.empty() && ones.empty()) {
    if (stats != nullptr) *stats = st;
    return ec::Jacobian<Cfg>::identity();
  }
  const md::Plan p = md::make_plan(others.size(), ones.size(), req);
  st.c = p.c;
  // The driver sizes its buffers from these (and reserve_msm from their
  // maximum over splits): every group must fit them.
  const md::PlanSizes z = md::plan_sizes(p);

  const size_t m = p.buckets;
  std::vector<X> buckets(z.bucket_slots);  // value-initialised: zero bytes = identity
  EXPECT_EQ(z.bucket_slots, size_t(p.windows) * m);
  for (unsigned j0 = 0; j0 < p.windows; j0 += p.group_windows) {
    const unsigned jn = std::min(p.group_windows, p.windows - j0);
    const size_t items = p.group_pairs(j0, jn);
    if (items == 0) continue;
    ++st.groups;
    st.pairs += items;
    EXPECT_TRUE(jn == p.group_windows || j0 + jn == p.windows);
    EXPECT_LE(items, std::max(req.max_group_pairs, p.others + p.ones));
    EXPECT_LE(items, z.pairs);
    std::vector<uint32_t> keys(items), vals(items);
    for (size_t t = 0; t < p.others; ++t)
      md::digits_body(t, scalars.data(), ix, others.data(), p.others, p.c, j0, jn, keys.data(), vals.data());
    if (j0 == 0) {
      const size_t at = p.others * jn;
      for (size_t t = 0; t < p.ones; ++t)
        md::ones_pairs_body(t, ones.data(), classes.data(), keys.data() + at, vals.data() + at);
    }

    // cub::DeviceRadixSort::SortPairs on bits [0, key_bits): stable.
    const unsigned key_bits = p.c + md::bit_length(jn - 1);
    for (uint32_t k : keys) EXPECT_LT(uint64_t(k), uint64_t(1) << key_bits);
    std::vector<uint32_t> order(items);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> sk(items), sv(items);
    for (size_t e = 0; e < items; ++e) {
      sk[e] = keys[order[e]];
      sv[e] = vals[order[e]];
    }

    // cub::DeviceRunLengthEncode::Encode, then the exclusive scan of counts.
    std::vector<uint32_t> run_key, run_cnt;
    for (size_t e = 0; e < items; ++e) {
      if (e == 0 || sk[e] != sk[e - 1]) {
        run_key.push_back(sk[e]);
        run_cnt.push_back(0);
      }
      ++run_cnt.back();
    }
    const uint32_t num = uint32_t(run_key.size());
    EXPECT_LE(num, z.runs);
    run_key.push_back(0);
    run_cnt.push_back(0);
    std::vector<uint32_t> run_off(num + 1), ntasks(num + 1), toff(num + 1);
    exclusive_scan_u32(run_cnt.data(), run_off.data(), num);
    const md::Runs runs{run_key.data(), run_off.data(), run_cnt.data(), ntasks.data(), toff.data(), num};
    for (uint32_t r = 0; r < num; ++r) md::runs_init_body(r, runs, p.c);

    std::vector<X> partial[2];
    for (unsigned level = 0;; ++level) {
      for (uint32_t r = 0; r <= num; ++r) md::runs_plan_body(r, runs, p.task_len);
      exclusive_scan_u32(ntasks.data(), toff.data(), num + 1);
      const uint32_t tasks = toff[num];
      if (tasks == 0) break;
      st.max_levels = std::max(st.max_levels, level + 1);
      st.max_tasks = std::max(st.max_tasks, size_t(tasks));
      EXPECT_LE(tasks, z.partial[level & 1]) << "level " << level;
      std::vector<X>& out = partial[level & 1];
      out.assign(tasks, X{});
      for (uint32_t t = 0; t < tasks; ++t) {
        if (level == 0)
          md::accumulate_points_body<Cfg>(t, runs, points.data(), sv.data(), p.task_len, p.c, j0, m, out.data(),
                                          buckets.data());
        else
          md::accumulate_sums_body<Cfg>(t, runs, partial[(level - 1) & 1].data(), p.task_len, p.c, j0, m, out.data(),
                                        buckets.data());
      }
      for (uint32_t r = 0; r < num; ++r) md::runs_advance_body(r, runs);
    }
  }

  const size_t per_window = m / p.segment;
  const size_t segments = size_t(p.windows) * per_window;
  std::vector<X> cur(segments);
  for (uint32_t s = 0; s < segments; ++s) md::reduce_segment_body<Cfg>(s, buckets.data(), m, p.segment, cur.data());
  constexpr unsigned kFan = md::kReduceFan;
  EXPECT_EQ(segments, z.segment_sums);
  size_t cols = per_window;
  while (cols > 1) {
    const size_t cols_out = (cols + kFan - 1) / kFan;
    std::vector<X> next(size_t(p.windows) * cols_out);
    if (cols == per_window) {
      EXPECT_LE(next.size(), z.tree_sums);
    }
    for (uint32_t t = 0; t < next.size(); ++t)
      md::reduce_rows_body<Cfg>(t, cur.data(), cols, kFan, cols_out, next.data());
    cur = std::move(next);
    cols = cols_out;
  }
  if (stats != nullptr) *stats = st;
  return md::combine_windows<Cfg>(cur.data(), p.windows, p.c);
}

}  // namespace proofpipe::test
