// MSM benchmarks: G1 point-add primitives (the bucket inner loop), G1 MSM at
// 2^12..2^20 and G2 MSM at 2^12..2^18, all threads of the pool, wall time.
// Counters (plain numbers, per MSM call):
//   us_pt_core = wall time * threads / n (docs/design/numbers.md §4 quotes blst's
//                single-thread ns/point on this basis);
//   us_pt_cpu  = process CPU time (all threads) / n: the same figure when the
//                machine is quiet, and the fairer one when it is shared;
//   M_pt       = field-mul equivalents per point from the MSM's own operation
//                counts, to judge the algorithm apart from the field speed;
//   ns_M       = CPU time / total M: the effective cost of one M.
#include <benchmark/benchmark.h>

#include "bench_data.hpp"

#include <sys/resource.h>

#include <chrono>
#include <random>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/msm.hpp"

namespace {

using namespace proofpipe;  // NOLINT: benchmark file
using bench::make_points;
using bench::make_scalars;

// Four independent accumulators, as Pippenger's bucket adds are independent.
template <class Acc>
void BM_MixedAdd(benchmark::State& state) {
  auto pts = make_points<ec::G1Cfg>(256, ec::g1_generator(), 1);
  Acc acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = Acc::from_affine(pts[200 + i]);
  size_t k = 0;
  for (auto _ : state) {
    for (auto& a : acc) a = a.add_affine(pts[k++ & 127]);
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 4);
}
BENCHMARK(BM_MixedAdd<ec::Xyzz<ec::G1Cfg>>)->Name("g1_madd_xyzz");
BENCHMARK(BM_MixedAdd<ec::G1>)->Name("g1_madd_jacobian");

// Batch-affine bucket adds: 2^18 adds into 2^12 buckets (one tile's engine,
// its tree reduction included: ~4% of the total here).
void BM_BatchAffineAdd(benchmark::State& state) {
  constexpr size_t kAdds = size_t(1) << 18, kBuckets = size_t(1) << 12;
  auto pts = make_points<ec::G1Cfg>(4096, ec::g1_generator(), 2);
  std::mt19937_64 rng(3);
  std::vector<uint32_t> bucket(kAdds);
  for (auto& b : bucket) b = uint32_t(rng() % kBuckets);
  msm::MsmStats stats;
  for (auto _ : state) {
    msm::detail::AffineBuckets<ec::G1Cfg> eng;
    eng.reset(kBuckets, &stats);
    for (size_t i = 0; i < kAdds; ++i) eng.add(bucket[i], pts[i & 4095], (i & 1) != 0);
    benchmark::DoNotOptimize(eng.reduce());
  }
  state.SetItemsProcessed(state.iterations() * kAdds);
}
BENCHMARK(BM_BatchAffineAdd)->Name("g1_batch_affine_add")->Unit(benchmark::kMillisecond);

// User + system CPU time of the whole process (every pool thread).
double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Field-mul equivalents of the counted operations (costs as in msm.hpp), in
// multiplications of the group's field (Fq for G1, Fq2 for G2).
template <class Cfg>
double mul_equivalents(const msm::MsmStats& s) {
  return 6.0 * double(s.batch_adds) + msm::detail::inversion_cost<Cfg>() * double(s.batch_inversions) +
         10.0 * double(s.madds) + 14.0 * double(s.full_adds) + 9.0 * double(s.doublings);
}

template <class Cfg>
void BM_Msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  static std::vector<ec::Affine<Cfg>> pts;  // grown once, shared by all sizes
  if (pts.size() < n) {
    if constexpr (std::is_same_v<Cfg, ec::G1Cfg>) {
      pts = make_points<Cfg>(n, ec::g1_generator(), 4);
    } else {
      pts = make_points<Cfg>(n, ec::g2_generator(), 4);
    }
  }
  const auto sc = make_scalars(n, 5);
  std::span<const ec::Affine<Cfg>> p(pts.data(), n);
  msm::MsmStats stats;
  msm::MsmOptions opt;
  opt.stats = &stats;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const double c0 = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (std::is_same_v<Cfg, ec::G1Cfg>) {
      benchmark::DoNotOptimize(msm::msm_g1(p, sc, opt));
    } else {
      benchmark::DoNotOptimize(msm::msm_g2(p, sc, opt));
    }
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += process_cpu_seconds() - c0;
  }
  const double iters = double(state.iterations());
  const double m = mul_equivalents<Cfg>(stats);
  state.counters["us_pt_core"] = wall / iters * worker_count() / double(n) * 1e6;
  state.counters["us_pt_cpu"] = cpu / iters / double(n) * 1e6;
  state.counters["ns_M"] = cpu / iters / m * 1e9;
  state.counters["M_pt"] = m / double(n);
  state.counters["c"] = stats.window_bits;
  state.counters["splits"] = stats.point_splits;
  state.counters["tiles"] = stats.tiles;
  state.counters["batch_affine"] = stats.accumulation == msm::Accumulation::kBatchAffine ? 1 : 0;
}
BENCHMARK(BM_Msm<ec::G1Cfg>)->Name("g1_msm")->DenseRange(12, 20, 2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<ec::G2Cfg>)->Name("g2_msm")->DenseRange(12, 18, 2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
