// Raw Montgomery-form edge elements of a prime field, shared by the tests of
// the x86-64 kernels (field_test), the host inversion (inverse_test) and the
// lazy Fq2 product (fq2_mul_test); and the MSM's edge scalars (msm_test,
// bn254_test, glv_test, msm_sum_test).
#pragma once

#include <cstdint>
#include <vector>

#include "proofpipe/ff/field.hpp"

namespace proofpipe::test {

// Raw Montgomery-form edge values for the x86-64 kernels: 0, 1, 2, p-1, p-2,
// R mod p, R^2 mod p, p - R, values with all-ones limbs (any subset of the
// lower limbs all ones, top limb just below p's, 0 or p's own), single-bit
// limbs, and values just below p. All are < p, so all are valid elements.
template <class F>
std::vector<F> raw_edge_elements() {
  using Repr = typename F::Repr;
  constexpr size_t N = F::N;
  const Repr p = F::C::kP;
  std::vector<Repr> v;
  auto small = [](uint64_t x) {
    Repr r{};
    r[0] = x;
    return r;
  };
  v.push_back(small(0));
  v.push_back(small(1));
  v.push_back(small(2));
  v.push_back(ff::limbs_sub_u64(p, 1));
  v.push_back(ff::limbs_sub_u64(p, 2));
  v.push_back(F::C::kR);
  v.push_back(F::C::kR2);
  {
    Repr t = p;
    ff::limbs_sub(t, F::C::kR);
    v.push_back(t);
  }
  const uint64_t ones = ~uint64_t(0);
  for (uint32_t mask = 0; mask < (1u << (N - 1)); ++mask) {
    for (uint64_t top : {p[N - 1] - 1, uint64_t(0), p[N - 1], p[N - 1] >> 1}) {
      Repr r{};
      for (size_t i = 0; i + 1 < N; ++i) r[i] = ((mask >> i) & 1) ? ones : 0;
      r[N - 1] = top;
      v.push_back(r);
      // The same with the zero limbs at p's limb minus one.
      for (size_t i = 0; i + 1 < N; ++i) {
        if (!((mask >> i) & 1)) r[i] = p[i] - 1;
      }
      v.push_back(r);
    }
  }
  for (size_t i = 0; i < N; ++i) {
    for (uint64_t bit : {uint64_t(1), uint64_t(1) << 63}) {
      Repr r{};
      r[i] = bit;
      v.push_back(r);
    }
    // p minus one unit in limb i (borrow chains through the lower limbs).
    Repr one_at{};
    one_at[i] = 1;
    Repr t = p;
    if (ff::limbs_sub(t, one_at) == 0) v.push_back(t);
  }
  std::vector<F> out;
  for (const Repr& r : v) {
    if (!ff::limbs_geq(r, p)) out.push_back(F::from_mont(r));
  }
  return out;
}

// The MSM's edge scalars by number: 0, 1, -1 (skipped or added directly),
// then (r-1)/2 and (r+1)/2 (either side of the fold k -> r - k); pick < 5.
template <class Fr>
Fr msm_edge_scalar(unsigned pick) {
  const Fr half = Fr::from_canonical(ff::limbs_shr(ff::limbs_sub_u64(Fr::C::kP, 1), 1));
  switch (pick) {
    case 0: return Fr::zero();
    case 1: return Fr::one();
    case 2: return -Fr::one();
    case 3: return half;
    default: return half + Fr::one();
  }
}

}  // namespace proofpipe::test
