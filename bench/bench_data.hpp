// Benchmark inputs shared by the CPU and device benchmarks: random-looking
// distinct points made cheaply, and uniform scalars, from a fixed seed.
#pragma once

#include <algorithm>
#include <random>
#include <span>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bls12_381.hpp"

namespace proofpipe::bench {

// n points P_i = s_c * G + i * G per chunk c of 4096 (one random s_c per
// chunk): distinct, cheap (one mixed add and ~7M of normalisation each).
template <class Cfg>
std::vector<ec::Affine<Cfg>> make_points(size_t n, const ec::Affine<Cfg>& g, uint64_t seed) {
  std::vector<ec::Affine<Cfg>> out(n);
  constexpr size_t kChunk = 4096;
  parallel_for((n + kChunk - 1) / kChunk, [&](size_t c) {
    std::mt19937_64 rng(seed + c);
    const size_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
    std::vector<ec::Jacobian<Cfg>> jac(hi - lo);
    auto p = bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(g), bls12_381::Fr::random(rng));
    for (auto& j : jac) j = p = p.add_affine(g);
    ec::batch_to_affine<Cfg>(jac, std::span(out).subspan(lo, hi - lo));
  });
  return out;
}

inline std::vector<bls12_381::Fr> make_scalars(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<bls12_381::Fr> s(n);
  for (auto& x : s) x = bls12_381::Fr::random(rng);
  return s;
}

}  // namespace proofpipe::bench
