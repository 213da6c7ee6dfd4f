// BLS12-381 pairing cost on one core: a full pairing, its two halves (Miller
// loop, final exponentiation), the 4-pair product a Groth16 verification
// needs, and the Fq12 primitives they are built from.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "proofpipe/pairing/bls12_381.hpp"

namespace {

using proofpipe::bls12_381::Fq12;
using proofpipe::bls12_381::Fr;
using proofpipe::bls12_381::G1;
using proofpipe::bls12_381::G1G2Pair;
using proofpipe::bls12_381::G2;

std::vector<G1G2Pair> random_pairs(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<G1G2Pair> pairs;
  for (size_t i = 0; i < n; ++i) {
    auto p = proofpipe::bls12_381::scalar_mul(G1::from_affine(proofpipe::bls12_381::g1_generator()), Fr::random(rng));
    auto q = proofpipe::bls12_381::scalar_mul(G2::from_affine(proofpipe::bls12_381::g2_generator()), Fr::random(rng));
    pairs.push_back({p.to_affine(), q.to_affine()});
  }
  return pairs;
}

void BM_Pairing(benchmark::State& state) {
  auto pq = random_pairs(1, 1)[0];
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::bls12_381::pairing(pq.first, pq.second));
}
BENCHMARK(BM_Pairing)->Name("pairing")->Unit(benchmark::kMicrosecond);

void BM_MillerLoop(benchmark::State& state) {
  auto pq = random_pairs(1, 2)[0];
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::bls12_381::miller_loop(pq.first, pq.second));
}
BENCHMARK(BM_MillerLoop)->Name("miller_loop")->Unit(benchmark::kMicrosecond);

void BM_FinalExp(benchmark::State& state) {
  auto pq = random_pairs(1, 3)[0];
  Fq12 f = proofpipe::bls12_381::miller_loop(pq.first, pq.second);
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::bls12_381::final_exponentiation(f));
}
BENCHMARK(BM_FinalExp)->Name("final_exponentiation")->Unit(benchmark::kMicrosecond);

// n pairs sharing one Miller loop and one final exponentiation; n = 4 is a
// Groth16 verification.
void BM_MultiPairing(benchmark::State& state) {
  auto pairs = random_pairs(size_t(state.range(0)), 4);
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::bls12_381::multi_pairing(pairs));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MultiPairing)->Name("multi_pairing")->Arg(4)->Arg(16)->Unit(benchmark::kMicrosecond);

void BM_Fq12(benchmark::State& state) {
  std::mt19937_64 rng(5);
  Fq12 a = Fq12::random(rng), b = Fq12::random(rng);
  Fq12 c = a.conj() * a.inverse();
  c = c.frobenius(2) * c;  // the easy part: now in the cyclotomic subgroup
  switch (state.range(0)) {
    case 0:
      for (auto _ : state) benchmark::DoNotOptimize(a = a * b);
      break;
    case 1:
      for (auto _ : state) benchmark::DoNotOptimize(a = a.sqr());
      break;
    case 2:
      for (auto _ : state) benchmark::DoNotOptimize(c = c.cyclotomic_sqr());
      break;
    default:
      for (auto _ : state) benchmark::DoNotOptimize(a = a.inverse());
  }
}
BENCHMARK(BM_Fq12)->Name("fq12_mul")->Arg(0);
BENCHMARK(BM_Fq12)->Name("fq12_sqr")->Arg(1);
BENCHMARK(BM_Fq12)->Name("fq12_cyclotomic_sqr")->Arg(2);
BENCHMARK(BM_Fq12)->Name("fq12_inverse")->Arg(3);

}  // namespace

BENCHMARK_MAIN();
