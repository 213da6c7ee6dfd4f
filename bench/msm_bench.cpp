// MSM benchmarks: G1 point-add primitives (the bucket inner loop), G1 MSM at
// 2^12..2^20 and G2 MSM at 2^12..2^18, all threads of the pool, wall time;
// G1 and G2 MSMs at 2^16 on the scalar and the IFMA path side by side.
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
#include <span>
#include <type_traits>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/msm.hpp"

namespace {

using namespace proofpipe;  // NOLINT: benchmark file
using bench::make_points;
using bench::make_scalars;

// Four independent accumulators, as Pippenger's bucket adds are independent.
template <class Acc>
void BM_MixedAdd(benchmark::State& state) {
  auto pts = make_points<bls12_381::G1Cfg>(256, bls12_381::g1_generator(), 1);
  Acc acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = Acc::from_affine(pts[200 + i]);
  size_t k = 0;
  for (auto _ : state) {
    for (auto& a : acc) a = a.add_affine(pts[k++ & 127]);
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 4);
}
BENCHMARK(BM_MixedAdd<ec::Xyzz<bls12_381::G1Cfg>>)->Name("g1_madd_xyzz");
BENCHMARK(BM_MixedAdd<bls12_381::G1>)->Name("g1_madd_jacobian");

// Batch-affine bucket adds: 2^18 adds into 2^12 buckets (one tile's engine,
// its tree reduction included: ~4% of the total here).
void BM_BatchAffineAdd(benchmark::State& state) {
  constexpr size_t kAdds = size_t(1) << 18, kBuckets = size_t(1) << 12;
  auto pts = make_points<bls12_381::G1Cfg>(4096, bls12_381::g1_generator(), 2);
  std::mt19937_64 rng(3);
  std::vector<uint32_t> bucket(kAdds);
  for (auto& b : bucket) b = uint32_t(rng() % kBuckets);
  msm::MsmStats stats;
  for (auto _ : state) {
    msm::detail::AffineBuckets<bls12_381::G1Cfg> eng;
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
    if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>) {
      pts = make_points<Cfg>(n, bls12_381::g1_generator(), 4);
    } else {
      pts = make_points<Cfg>(n, bls12_381::g2_generator(), 4);
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
    if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>) {
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
BENCHMARK(BM_Msm<bls12_381::G1Cfg>)
    ->Name("g1_msm")
    ->DenseRange(12, 20, 2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<bls12_381::G2Cfg>)
    ->Name("g2_msm")
    ->DenseRange(12, 18, 2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// G1 and G2 MSMs with the bucket additions on the scalar path and on the
// eight-lane IFMA path (ff/ifma/batch_affine.hpp: Fq lanes for G1, Fq2 lanes
// for G2), BN254 and BLS12-381, alternating in one run: the before/after of
// the IFMA kernel. us_pt_cpu is the figure to compare on a shared machine;
// run with PROOFPIPE_THREADS=1 for one core.
template <class Cfg, bool kIfma>
void BM_MsmSimd(benchmark::State& state) {
  namespace ifma = ff::ifma;
  if (kIfma && !ifma::cpu_has_ifma()) {
    state.SkipWithError("no AVX-512 IFMA on this CPU");
    return;
  }
  const size_t n = size_t(1) << state.range(0);
  constexpr bool kBn = std::is_same_v<Cfg, bn254::G1Cfg> || std::is_same_v<Cfg, bn254::G2Cfg>;
  static std::vector<ec::Affine<Cfg>> pts;  // grown once, shared by both paths
  if (pts.size() < n) {
    if constexpr (kBn) {  // P_i = P_{i-1} + G from a random start, one normalisation
      using J = ec::Jacobian<Cfg>;
      std::vector<J> jac(n);
      auto p = J::from_affine(bn254::generator<Cfg>()).mul(bn254::Fr::from_u64(0x9e3779b97f4a7c15).to_canonical());
      for (auto& j : jac) j = p = p.add_affine(bn254::generator<Cfg>());
      pts.resize(n);
      ec::batch_to_affine<Cfg>(jac, pts);
    } else {
      pts = make_points<Cfg>(n, bls12_381::generator<Cfg>(), 4);
    }
  }
  using Scalar = std::conditional_t<kBn, bn254::Fr, bls12_381::Fr>;
  std::vector<Scalar> sc(n);
  std::mt19937_64 rng(5);
  for (auto& x : sc) x = Scalar::random(rng);
  std::span<const ec::Affine<Cfg>> p(pts.data(), n);
  std::span<const Scalar> s(sc);
  ifma::ScopedSimdPath path(kIfma ? ifma::SimdPath::kIfma : ifma::SimdPath::kScalar);
  double cpu = 0;
  for (auto _ : state) {
    const double c0 = process_cpu_seconds();
    if constexpr (Cfg::kG2) {
      benchmark::DoNotOptimize(msm::msm_g2(p, s));
    } else {
      benchmark::DoNotOptimize(msm::msm_g1(p, s));
    }
    cpu += process_cpu_seconds() - c0;
  }
  state.counters["us_pt_cpu"] = cpu / double(state.iterations()) / double(n) * 1e6;
}
#define PP_MSM_SIMD_PAIR(Cfg, name)                                                                               \
  BENCHMARK(BM_MsmSimd<Cfg, false>)->Name(name "_scalar")->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond); \
  BENCHMARK(BM_MsmSimd<Cfg, true>)->Name(name "_ifma")->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond)
PP_MSM_SIMD_PAIR(bn254::G1Cfg, "bn_g1_msm");
PP_MSM_SIMD_PAIR(bls12_381::G1Cfg, "bls_g1_msm");
PP_MSM_SIMD_PAIR(bn254::G2Cfg, "bn_g2_msm");
PP_MSM_SIMD_PAIR(bls12_381::G2Cfg, "bls_g2_msm");

}  // namespace

BENCHMARK_MAIN();
