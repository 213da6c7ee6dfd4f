// Field multiplication, squaring, addition and inversion throughput for Fq and
// Fr (one core). The MSM and NTT floors in docs/performance.md are computed
// from these figures.
#include <benchmark/benchmark.h>

#include <random>

#include "proofpipe/ec/bls12_381.hpp"

namespace {

using proofpipe::bls12_381::Fq;
using proofpipe::bls12_381::Fq2;
using proofpipe::bls12_381::Fr;

// A dependent chain of 8 independent accumulators: measures throughput with
// enough instruction-level parallelism to be comparable to MSM inner loops.
// kMul picks the product: operator* (x86-64 kernels on this host, the lazy
// Fq2 product), or the portable C++ / Karatsuba it replaced, as the baseline
// in the same run.
template <class F, F (F::*kMul)(const F&) const = &F::operator*> void BM_Mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  F m = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = (a.*kMul)(m);
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_Mul<Fq>)->Name("fq_mul");
BENCHMARK(BM_Mul<Fr>)->Name("fr_mul");
BENCHMARK(BM_Mul<Fq2>)->Name("fq2_mul");
BENCHMARK(BM_Mul<Fq, &Fq::mul_portable>)->Name("fq_mul_portable");
BENCHMARK(BM_Mul<Fr, &Fr::mul_portable>)->Name("fr_mul_portable");
BENCHMARK(BM_Mul<Fq2, &Fq2::mul_karatsuba>)->Name("fq2_mul_karatsuba");

// One dependent chain, x = x * m: the latency of one multiplication (what
// exponentiation, inversion and square roots see).
template <class F, F (F::*kMul)(const F&) const = &F::operator*> void BM_MulLatency(benchmark::State& state) {
  std::mt19937_64 rng(5);
  F x = F::random(rng);
  F m = F::random(rng);
  for (auto _ : state) {
    for (int i = 0; i < 8; ++i) x = (x.*kMul)(m);
  }
  benchmark::DoNotOptimize(x);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_MulLatency<Fq>)->Name("fq_mul_latency");
BENCHMARK(BM_MulLatency<Fr>)->Name("fr_mul_latency");
BENCHMARK(BM_MulLatency<Fq2>)->Name("fq2_mul_latency");
BENCHMARK(BM_MulLatency<Fq2, &Fq2::mul_karatsuba>)->Name("fq2_mul_karatsuba_latency");

template <class F>
void BM_SqrLatency(benchmark::State& state) {
  std::mt19937_64 rng(6);
  F x = F::random(rng);
  for (auto _ : state) {
    for (int i = 0; i < 8; ++i) x = x.sqr();
  }
  benchmark::DoNotOptimize(x);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_SqrLatency<Fq>)->Name("fq_sqr_latency");
BENCHMARK(BM_SqrLatency<Fr>)->Name("fr_sqr_latency");

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
void BM_Sub(benchmark::State& state) {
  std::mt19937_64 rng(7);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  F m = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = a - m;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_Sub<Fq>)->Name("fq_sub");
BENCHMARK(BM_Sub<Fr>)->Name("fr_sub");

// inverse() (host safegcd) against inverse_fermat() (x^(p-2), the path
// inverse() took on the host before and still takes in device code), in the
// same run: the ratio is the figure, the machine is noisy.
template <class F, bool kFermat>
void BM_Inverse(benchmark::State& state) {
  std::mt19937_64 rng(4);
  F a = F::random(rng);
  for (auto _ : state) {
    if constexpr (kFermat) {
      a = a.inverse_fermat() + F::one();
    } else {
      a = a.inverse() + F::one();
    }
  }
  benchmark::DoNotOptimize(a);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Inverse<Fq, false>)->Name("fq_inverse");
BENCHMARK(BM_Inverse<Fr, false>)->Name("fr_inverse");
BENCHMARK(BM_Inverse<Fq2, false>)->Name("fq2_inverse");
BENCHMARK(BM_Inverse<Fq, true>)->Name("fq_inverse_fermat");
BENCHMARK(BM_Inverse<Fr, true>)->Name("fr_inverse_fermat");

}  // namespace

BENCHMARK_MAIN();
