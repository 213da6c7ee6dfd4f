// The NTT's passes on eight IFMA lanes (core/src/ntt_ifma.cpp) against the
// scalar ones in the same process (ScopedSimdPath): ntt, intt, coset_ntt,
// evals_to_odd_coset, compute_h_odd_coset and the bare passes bit-identical
// for both Fr fields, sizes 2^0..2^14 (2^13 and 2^14 with a column pass) and
// 2^16 (bottom pass + column pass), random plans of up to 2^13 with column
// passes of every width, with random values, 0, 1 and p-1 in every lane
// position, and constant vectors whose transforms are mostly 0 (the
// redundant form p must leave as 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ntt/kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/ntt_plans.hpp"
#include "support/require_ifma.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace ifma = ff::ifma;

constexpr unsigned kLogSizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16};

// The inputs of one size: random values with 0, 1 and p-1 dropped into every
// lane position (element 8g + e is lane e), the three edge values cycled so
// each meets each lane, and the constant p-1.
template <class Fr, class Rng>
std::vector<std::vector<Fr>> inputs(Rng& rng, size_t n) {
  const Fr edges[] = {Fr::zero(), Fr::one(), -Fr::one()};
  std::vector<Fr> mixed(n), cycled(n), constant(n, -Fr::one());
  for (size_t i = 0; i < n; ++i) {
    mixed[i] = Fr::random(rng);
    cycled[i] = edges[(i + i / 8) % 3];
  }
  for (size_t q = 0; q < 3; ++q)
    for (size_t e = 0; e < 8; ++e) {
      const size_t at = 8 * (3 * e + q) + e;
      if (at < n) mixed[at] = edges[q];
    }
  return {mixed, cycled, constant};
}

// fn applied to a copy of x with the bottom pass forced onto `path`.
template <class Fr>
std::vector<Fr> on_path(ifma::SimdPath path, std::vector<Fr> x, const std::function<void(std::vector<Fr>&)>& fn) {
  ifma::ScopedSimdPath guard(path);
  fn(x);
  return x;
}

template <class Fr>
void expect_same(const char* what, unsigned k, size_t input, const std::vector<Fr>& x,
                 const std::function<void(std::vector<Fr>&)>& fn) {
  const std::vector<Fr> off = on_path(ifma::SimdPath::kScalar, x, fn);
  const std::vector<Fr> on = on_path(ifma::SimdPath::kIfma, x, fn);
  const auto diff = std::mismatch(on.begin(), on.end(), off.begin());
  ASSERT_TRUE(diff.first == on.end()) << what << " k=" << k << " input " << input << ": first difference at element "
                                      << (diff.first - on.begin()) << " of " << on.size();
}
// Stops a sweep at its first mismatch instead of reporting every later one.
#define PP_SAME(...)                                \
  do {                                              \
    expect_same<Fr>(__VA_ARGS__);                   \
    if (::testing::Test::HasFatalFailure()) return; \
  } while (0)

template <class Fr>
void transforms_match() {
  PP_SEEDED_RNG(rng);
  for (unsigned k : kLogSizes) {
    const auto& d = ntt::DomainT<Fr>::get(k);
    const size_t n = d.size();
    const Fr g = Fr::random(rng);
    const auto xs = inputs<Fr>(rng, n);
    for (size_t i = 0; i < xs.size(); ++i) {
      PP_SAME("ntt", k, i, xs[i], [&](std::vector<Fr>& v) { d.ntt(v); });
      PP_SAME("intt", k, i, xs[i], [&](std::vector<Fr>& v) { d.intt(v); });
      PP_SAME("coset_ntt", k, i, xs[i], [&](std::vector<Fr>& v) { d.coset_ntt(v, g); });
      PP_SAME("evals_to_odd_coset", k, i, xs[i], [&](std::vector<Fr>& v) { d.evals_to_odd_coset(v); });
      // The H step with a, b, c drawn from different inputs (b and c too are
      // clobbered; their copies are per path).
      const std::vector<Fr> b = xs[(i + 1) % xs.size()], c = xs[(i + 2) % xs.size()];
      PP_SAME("compute_h_odd_coset", k, i, xs[i], [&](std::vector<Fr>& a) {
        std::vector<Fr> bb = b, cc = c;
        ntt::compute_h_odd_coset<Fr>(a, bb, cc);
      });
    }
  }
}

// dit has no public transform over it (ntt.cpp composes dif with the bit
// reversal); its bottom pass is compared directly, both directions.
template <class Fr>
void passes_match() {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= ntt::kMaxPassBits; ++k) {
    const ntt::Plan plan = ntt::make_plan(k);
    const auto xs = inputs<Fr>(rng, size_t(1) << k);
    for (size_t i = 0; i < xs.size(); ++i)
      for (bool inverse : {false, true}) {
        PP_SAME(inverse ? "dif inverse" : "dif", k, i, xs[i],
                [&](std::vector<Fr>& v) { ntt::dif(v.data(), plan, static_cast<const Fr*>(nullptr), inverse); });
        PP_SAME(inverse ? "dit inverse" : "dit", k, i, xs[i],
                [&](std::vector<Fr>& v) { ntt::dit(v.data(), plan, static_cast<const Fr*>(nullptr), inverse); });
      }
  }
}

// Random cuts of 2^k into passes, as NttKernels.AllPlanShapesAgree: column
// passes of every width and offset (tiles 2..256 columns wide, the ones under
// 8 columns staying scalar), bottom passes under 16 elements, and the fused
// odd-coset pipeline whose scaling depends on the bottom pass's width.
template <class Fr>
void plan_shapes_match() {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 1; k <= 13; ++k) {
    const std::vector<Fr> top = ntt::powers(ntt::root_of_unity<Fr>(k), (size_t(1) << k) / 2 + 1);
    const Fr shift = ntt::root_of_unity<Fr>(k + 1), inv_n = Fr::from_u64(uint64_t(1) << k).inverse();
    const auto xs = inputs<Fr>(rng, size_t(1) << k);
    for (int rep = 0; rep < 4; ++rep) {
      const ntt::Plan plan = random_plan(rng, k);
      SCOPED_TRACE(::testing::Message() << "passes=" << plan.passes.size() << " bottom=" << plan.passes[0].bits);
      const size_t i = size_t(rep) % xs.size();
      for (bool inverse : {false, true}) {
        PP_SAME("dif plan", k, i, xs[i], [&](std::vector<Fr>& v) { ntt::dif(v.data(), plan, top.data(), inverse); });
        PP_SAME("dit plan", k, i, xs[i], [&](std::vector<Fr>& v) { ntt::dit(v.data(), plan, top.data(), inverse); });
      }
      PP_SAME("odd coset plan", k, i, xs[i], [&](std::vector<Fr>& v) {
        ntt::dif_columns(v.data(), plan, top.data(), true);
        ntt::bottom_inverse_scale_forward(v.data(), plan, shift, inv_n);
        ntt::dit_columns(v.data(), plan, top.data(), false);
      });
    }
  }
}

// The comparisons above only mean something if the two paths differ.
TEST(NttIfma, PathSwitchReachesTheBlocks) {
  PP_REQUIRE_IFMA_CPU();
  {
    ifma::ScopedSimdPath guard(ifma::SimdPath::kIfma);
    EXPECT_TRUE(ntt::ifma_blocks(12));
    EXPECT_TRUE(ntt::ifma_blocks(4));
    EXPECT_FALSE(ntt::ifma_blocks(3));  // under 16 elements: scalar
    EXPECT_TRUE(ntt::ifma_lanes());
  }
  ifma::ScopedSimdPath guard(ifma::SimdPath::kScalar);
  EXPECT_FALSE(ntt::ifma_blocks(12));
  EXPECT_FALSE(ntt::ifma_lanes());
}

// Both Fr fields: BN254's and BLS12-381's (5 radix-2^52 limbs each).
template <class Fr>
class NttIfmaField : public ::testing::Test {};
using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(NttIfmaField, Fields);

TYPED_TEST(NttIfmaField, TransformsMatchScalar) {
  PP_REQUIRE_IFMA_CPU();
  transforms_match<TypeParam>();
}

TYPED_TEST(NttIfmaField, BottomPassesMatchScalar) {
  PP_REQUIRE_IFMA_CPU();
  passes_match<TypeParam>();
}

TYPED_TEST(NttIfmaField, PlanShapesMatchScalar) {
  PP_REQUIRE_IFMA_CPU();
  plan_shapes_match<TypeParam>();
}

}  // namespace
}  // namespace proofpipe::test
