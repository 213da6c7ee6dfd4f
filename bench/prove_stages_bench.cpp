// Where one proof's time goes: `pp_prove_stages_bench <circuit.zkey>
// <witness.wtns> [runs]` times each stage of `proofpipe prove` on the CPU
// backend, for the key's curve (BLS12-381 or BN254): synthesis (a, b, c from
// the coefficients), the H step (six NTTs), and each of the five MSMs,
// median of `runs` (default 3). Not a Google Benchmark: one table on stdout,
// for docs/performance.md. Not run by ctest.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/msm/msm.hpp"

namespace {

using namespace proofpipe;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class C>
int stages(const char* zkey_path, const char* wtns_path, int runs) {
  using Fr = typename C::Fr;
  auto zkey = formats::load_zkey<C>(zkey_path);
  auto w = formats::load_wtns<C>(wtns_path);
  if (!zkey || !w) {
    std::fprintf(stderr, "%s\n", (!zkey ? zkey.status() : w.status()).message().c_str());
    return 2;
  }
  const groth16::ProvingKeyT<C> pk = groth16::proving_key_of(*zkey);
  auto backend = groth16::make_cpu_backend<C>();
  if (!backend->prepare(pk)) return 2;
  const size_t n = pk.domain_size;
  std::vector<Fr> a(n), b(n), c(n);
  const std::span<const Fr> wit = w->values;
  // The MSMs as the CPU backend runs them (groth16/src/backend_cpu.cpp):
  // A, B2, and C, H and B1 (scalars r w, r as the part's scale) as one msm_g1_sum.
  const char* names[] = {"synthesize", "H step (6 NTTs)", "MSM A (G1)", "MSM B2 (G2)", "MSM C + H + r B1 (G1, one)"};
  constexpr int kStages = 5;
  std::vector<std::vector<double>> t(kStages);
  std::mt19937_64 rng(1);
  const Fr r_blind = Fr::random(rng);
  using Part = msm::MsmPart<typename C::G1Cfg, Fr>;
  for (int r = 0; r < runs; ++r) {
    t[0].push_back(
        seconds([&] { (void)groth16::synthesize(pk, wit, std::span<Fr>(a), std::span<Fr>(b), std::span<Fr>(c)); }));
    t[1].push_back(seconds([&] { (void)backend->compute_h(a, b, c); }));
    t[2].push_back(seconds([&] { (void)msm::msm_g1(pk.a, wit); }));
    t[3].push_back(seconds([&] { (void)msm::msm_g2(pk.b2, wit); }));
    const Part parts[3] = {{pk.c, wit.subspan(pk.n_public + 1)}, {pk.h, a}, {pk.b1, wit, &r_blind}};
    t[4].push_back(seconds([&] { (void)msm::msm_g1_sum(parts); }));
  }
  double total = 0;
  for (auto& v : t) total += median(v);
  std::printf("curve %s, domain 2^%u, %u wires, median of %d runs\n", std::string(C::kName).c_str(),
              unsigned(__builtin_ctzll(n)), pk.n_vars, runs);
  std::printf("| stage | seconds | share |\n|---|---|---|\n");
  for (int i = 0; i < kStages; ++i) {
    std::printf("| %s | %.3f | %.0f%% |\n", names[i], median(t[i]), 100 * median(t[i]) / total);
  }
  std::printf("| total | %.3f | |\n", total);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <circuit.zkey> <witness.wtns> [runs]\n", argv[0]);
    return 2;
  }
  const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  auto curve = formats::zkey_curve(argv[1]);
  if (!curve) {
    std::fprintf(stderr, "%s\n", curve.status().message().c_str());
    return 2;
  }
  return curves::with_curve(*curve, [&](auto c) { return stages<decltype(c)>(argv[1], argv[2], runs); });
}
