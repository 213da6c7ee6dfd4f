// Field multiplication, squaring, addition and inversion throughput for Fq and
// Fr (one core). The MSM and NTT floors in docs/performance.md are computed
// from these figures.
#include <benchmark/benchmark.h>

#include <random>

#include "proofpipe/ff/fq2.hpp"

namespace {

using proofpipe::ff::Fq;
using proofpipe::ff::Fq2;
using proofpipe::ff::Fr;

// A dependent chain of 8 independent accumulators: measures throughput with
// enough instruction-level parallelism to be comparable to MSM inner loops.
template <class F>
void BM_Mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  F m = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = a * m;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_Mul<Fq>)->Name("fq_mul");
BENCHMARK(BM_Mul<Fr>)->Name("fr_mul");
BENCHMARK(BM_Mul<Fq2>)->Name("fq2_mul");

template <class F>
void BM_Sqr(benchmark::State& state) {
  std::mt19937_64 rng(2);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = a.sqr();
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_Sqr<Fq>)->Name("fq_sqr");
BENCHMARK(BM_Sqr<Fr>)->Name("fr_sqr");

template <class F>
void BM_Add(benchmark::State& state) {
  std::mt19937_64 rng(3);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  F m = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = a + m;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_Add<Fq>)->Name("fq_add");
BENCHMARK(BM_Add<Fr>)->Name("fr_add");

template <class F>
void BM_Inverse(benchmark::State& state) {
  std::mt19937_64 rng(4);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.inverse() + F::one();
  }
  benchmark::DoNotOptimize(a);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Inverse<Fq>)->Name("fq_inverse");
BENCHMARK(BM_Inverse<Fr>)->Name("fr_inverse");

}  // namespace

BENCHMARK_MAIN();
