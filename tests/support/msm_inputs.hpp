// MSM test inputs shared by the host emulation and the device tests (both in
// tests/cuda): points without n scalar multiplications, uniform
// and skewed scalars, point sets with identities, repeats and negations, and
// the CPU MSM of core/ as the reference for either group.
#pragma once

#include <span>
#include <type_traits>
#include <vector>

#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/msm/msm.hpp"

namespace proofpipe::test {

template <class Cfg>
ec::Jacobian<Cfg> cpu_msm(std::span<const ec::Affine<Cfg>> p, std::span<const bls12_381::Fr> s) {
  if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>)
    return msm::msm_g1(p, s);
  else
    return msm::msm_g2(p, s);
}

// (r-1)/2: the largest scalar the MSM's fold leaves as it is.
inline ff::Limbs<4> half_r() { return ff::limbs_shr(ff::limbs_sub_u64(bls12_381::Fr::C::kP, 1), 1); }

// n points on the curve without n scalar multiplications: a few random
// multiples of the generator, then P_i = P_{i-1} + P_{i-2}, normalised with
// one inversion.
template <class Cfg, class Rng>
std::vector<ec::Affine<Cfg>> msm_test_points(size_t n, Rng& rng) {
  std::vector<ec::Jacobian<Cfg>> jac(n);
  const auto g = ec::Jacobian<Cfg>::from_affine(bls12_381::generator<Cfg>());
  for (size_t i = 0; i < n; ++i) {
    if (i < 8)
      jac[i] = bls12_381::scalar_mul(g, bls12_381::Fr::random(rng));
    else
      jac[i] = jac[i - 1] + jac[i - 2];
  }
  std::vector<ec::Affine<Cfg>> out(n);
  ec::batch_to_affine<Cfg>(jac, out);
  return out;
}

template <class Rng>
std::vector<bls12_381::Fr> random_scalars(size_t n, Rng& rng) {
  std::vector<bls12_381::Fr> s(n);
  for (auto& x : s) x = bls12_381::Fr::random(rng);
  return s;
}

// Mostly 0 and +-1, some (r-1)/2 and (r+1)/2 (the fold's edges), a few
// repeated values, the rest random.
template <class Rng>
std::vector<bls12_381::Fr> skewed_scalars(size_t n, Rng& rng) {
  using bls12_381::Fr;
  const Fr half = Fr::from_canonical(half_r());
  const Fr dup[3] = {Fr::random(rng), Fr::random(rng), Fr::from_u64(12345)};
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const unsigned k = unsigned(rng() % 20);
    x = k < 7     ? Fr::zero()
        : k < 13  ? Fr::one()
        : k == 13 ? -Fr::one()
        : k == 14 ? half
        : k == 15 ? half + Fr::one()
        : k < 18  ? dup[rng() % 3]
                  : Fr::random(rng);
  }
  return s;
}

// Identity points, repeats and negations sprinkled into a point set.
template <class Cfg, class Rng>
void spoil_points(std::vector<ec::Affine<Cfg>>& p, Rng& rng) {
  for (size_t i = 0; i < p.size(); ++i) {
    const unsigned k = unsigned(rng() % 16);
    if (k == 0) p[i] = ec::Affine<Cfg>::identity();
    if (k == 1 && i > 0) p[i] = p[i - 1];
    if (k == 2 && i > 0) p[i] = -p[i - 1];
  }
}

}  // namespace proofpipe::test
