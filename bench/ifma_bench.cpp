// Eight-lane AVX-512 IFMA field (ff/ifma/field8.hpp) against the scalar
// ff::Field product (the mulx/adcx/adox kernels of detail/mont_x86.hpp) on one
// core, all four fields, side by side in one run; plus the IFMA instruction
// floor in instructions per core cycle. Per-element figures: items are field
// elements, so items_per_second compares directly between the two paths.
// On a CPU without IFMA the vector cases report an error and do not run.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ff/ifma/field8.hpp"

#if defined(PP_IFMA_COMPILED)
namespace {

namespace ff = proofpipe::ff;
namespace ifma = proofpipe::ff::ifma;
namespace bls = proofpipe::bls12_381;
namespace bn = proofpipe::bn254;

bool skip_without_ifma(benchmark::State& state) {
  if (ifma::simd_path() == ifma::SimdPath::kIfma) return false;
  state.SkipWithError("IFMA path not available (CPU, OS or PROOFPIPE_SIMD=off)");
  return true;
}

// Scalar baseline: 8 independent chains a = a * m, as field_bench's fq_mul.
template <class P>
void BM_ScalarMul(benchmark::State& state) {
  using F = ff::Field<P>;
  std::mt19937_64 rng(1);
  F acc[8];
  for (auto& a : acc) a = F::random(rng);
  const F m = F::random(rng);
  for (auto _ : state) {
    for (auto& a : acc) a = a * m;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 8);
}

// kChains independent Field8 chains (8 * kChains elements in flight), 16
// rounds per call so the loads and stores of the Packs amortise. The chain
// count hardly matters on Zen 5 (one IFMA per cycle, and a product's own
// L + 1 accumulators already hide the latency): BN254 Fq 256 / 263 / 259 M/s
// with 2 / 4 / 6 chains, BLS12-381 Fq 105 / 106 / 103 M/s with 1 / 2 / 3.
// Four for L = 5 and two for L = 8 (its 9 accumulators + 16 operands).
template <class P, int kChains, bool kSqr>
PP_IFMA_TARGET void ifma_rounds(ifma::Pack<P>* acc, const ifma::Pack<P>& m) {
  using V = ifma::Field8<P>;
  V a[kChains];
  for (int c = 0; c < kChains; ++c) a[c] = V::load(acc[c]);
  const V mm = V::load(m);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < kChains; ++c) a[c] = kSqr ? a[c].sqr() : a[c] * mm;
  for (int c = 0; c < kChains; ++c) a[c].store(acc[c]);
}

template <class P, int kChains, bool kSqr = false>
void BM_IfmaMul(benchmark::State& state) {
  using F = ff::Field<P>;
  if (skip_without_ifma(state)) return;
  std::mt19937_64 rng(1);
  ifma::Pack<P> acc[kChains], m;
  F tmp[8];
  for (auto& a : acc) {
    for (auto& t : tmp) t = F::random(rng);
    ifma::pack_from_fields(a, tmp);
  }
  for (auto& t : tmp) t = F::random(rng);
  ifma::pack_from_fields(m, tmp);
  for (auto _ : state) {
    ifma_rounds<P, kChains, kSqr>(acc, m);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations() * 16 * 8 * kChains);
}

// Conversion from ff::Field to Field8 and back (two radix-2^52 products and
// the transposes): the entry and exit toll of a batch on the vector path.
template <class P>
PP_IFMA_TARGET void ifma_round_trip(ff::Field<P>* x, size_t n) {
  for (size_t i = 0; i + 8 <= n; i += 8) ifma::Field8<P>::from_fields(x + i).to_fields(x + i);
}
template <class P>
void BM_IfmaConvert(benchmark::State& state) {
  using F = ff::Field<P>;
  if (skip_without_ifma(state)) return;
  std::mt19937_64 rng(2);
  std::vector<F> x(256);
  for (auto& v : x) v = F::random(rng);
  for (auto _ : state) {
    ifma_round_trip<P>(x.data(), x.size());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(x.size()));
}

// Batched inversion of 1024 elements: the scalar Montgomery trick (3 products
// per element + one safegcd inversion) against ifma::batch_inverse.
template <class P>
void BM_ScalarBatchInverse(benchmark::State& state) {
  using F = ff::Field<P>;
  std::mt19937_64 rng(3);
  std::vector<F> x(1024), pre(1024);
  for (auto& v : x) v = F::random(rng);
  for (auto _ : state) {
    F acc = F::one();
    for (size_t i = 0; i < x.size(); ++i) {
      pre[i] = acc;
      acc = acc * x[i];
    }
    F inv = acc.inverse();
    for (size_t i = x.size(); i-- > 0;) {
      const F t = inv * pre[i];
      inv = inv * x[i];
      x[i] = t;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(x.size()));
}
template <class P>
void BM_IfmaBatchInverse(benchmark::State& state) {
  using F = ff::Field<P>;
  if (skip_without_ifma(state)) return;
  std::mt19937_64 rng(3);
  std::vector<ifma::Pack<P>> x(128), pre(128);
  F tmp[8];
  for (auto& pk : x) {
    for (auto& t : tmp) t = F::random(rng);
    ifma::pack_from_fields(pk, tmp);
  }
  for (auto _ : state) {
    ifma::batch_inverse(x.data(), x.size(), pre.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(8 * x.size()));
}

// The floor: 16 independent vpmadd52luq chains, 64 instructions per round.
// items = IFMA instructions; divided by core_adds_per_ns below it gives IFMA
// instructions per core cycle whatever the boost clock.
PP_IFMA_TARGET void ifma_floor(uint64_t (*buf)[8], int rounds) {
  __m512i t[16];
  for (int i = 0; i < 16; ++i) t[i] = _mm512_load_si512(buf[i]);
  const __m512i a = _mm512_load_si512(buf[16]), b = _mm512_load_si512(buf[17]);
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 16; ++i) t[i] = _mm512_madd52lo_epu64(t[i], a, b);
  for (int i = 0; i < 16; ++i) _mm512_store_si512(buf[i], t[i]);
}
void BM_IfmaFloor(benchmark::State& state) {
  if (skip_without_ifma(state)) return;
  alignas(64) uint64_t buf[18][8];  // 16 accumulators and the two operands
  std::mt19937_64 rng(4);
  for (auto& v : buf)
    for (auto& w : v) w = rng() & ifma::kMask52;
  for (auto _ : state) {
    ifma_floor(buf, 64);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 64 * 4 * 16);
}
// One dependent chain of 1-cycle integer adds: items per second = core clock.
void BM_CoreClock(benchmark::State& state) {
  uint64_t x = 1;
  const uint64_t y = 3;
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i)
      __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t" : "+r"(x) : "r"(y));
  }
  benchmark::DoNotOptimize(x);
  state.SetItemsProcessed(state.iterations() * 256);
}

BENCHMARK(BM_CoreClock)->Name("core_clock_adds");
BENCHMARK(BM_IfmaFloor)->Name("ifma_floor_vpmadd52");

BENCHMARK(BM_ScalarMul<bls::FqParams>)->Name("bls_fq_mul_scalar");
BENCHMARK(BM_IfmaMul<bls::FqParams, 2>)->Name("bls_fq_mul_ifma8");
BENCHMARK(BM_ScalarMul<bls::FrParams>)->Name("bls_fr_mul_scalar");
BENCHMARK(BM_IfmaMul<bls::FrParams, 4>)->Name("bls_fr_mul_ifma8");
BENCHMARK(BM_ScalarMul<bn::FqParams>)->Name("bn_fq_mul_scalar");
BENCHMARK(BM_IfmaMul<bn::FqParams, 4>)->Name("bn_fq_mul_ifma8");
BENCHMARK(BM_ScalarMul<bn::FrParams>)->Name("bn_fr_mul_scalar");
BENCHMARK(BM_IfmaMul<bn::FrParams, 4>)->Name("bn_fr_mul_ifma8");
BENCHMARK(BM_IfmaMul<bls::FqParams, 2, true>)->Name("bls_fq_sqr_ifma8");
BENCHMARK(BM_IfmaMul<bn::FqParams, 4, true>)->Name("bn_fq_sqr_ifma8");

BENCHMARK(BM_IfmaConvert<bls::FqParams>)->Name("bls_fq_convert_roundtrip_ifma8");
BENCHMARK(BM_IfmaConvert<bn::FqParams>)->Name("bn_fq_convert_roundtrip_ifma8");

BENCHMARK(BM_ScalarBatchInverse<bls::FqParams>)->Name("bls_fq_batch_inverse_scalar");
BENCHMARK(BM_IfmaBatchInverse<bls::FqParams>)->Name("bls_fq_batch_inverse_ifma8");
BENCHMARK(BM_ScalarBatchInverse<bn::FqParams>)->Name("bn_fq_batch_inverse_scalar");
BENCHMARK(BM_IfmaBatchInverse<bn::FqParams>)->Name("bn_fq_batch_inverse_ifma8");

}  // namespace
#endif  // PP_IFMA_COMPILED

BENCHMARK_MAIN();
