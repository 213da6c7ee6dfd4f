// Generators on the curve and in the subgroup; basic group laws (the curve
// suite proper lives in curve_test.cpp).
#include <gtest/gtest.h>

#include "proofpipe/ec/bls12_381.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(CurveSmoke, GeneratorsOnCurveAndInSubgroup) {
  EXPECT_TRUE(ec::g1_generator().on_curve());
  EXPECT_TRUE(ec::g2_generator().on_curve());
  EXPECT_TRUE(ec::in_subgroup(ec::g1_generator()));
  EXPECT_TRUE(ec::in_subgroup(ec::g2_generator()));
}

TEST(CurveSmoke, DoubleEqualsAddAndMixedAdd) {
  PP_SEEDED_RNG(rng);
  auto g = ec::G1::from_affine(ec::g1_generator());
  auto p = ec::scalar_mul(g, ff::Fr::random(rng));
  auto q = ec::scalar_mul(g, ff::Fr::random(rng));
  EXPECT_EQ(p.dbl(), p + p);
  EXPECT_EQ(p + q, p.add_affine(q.to_affine()));
  EXPECT_TRUE((p - p).is_identity());
  ff::Fr a = ff::Fr::random(rng), b = ff::Fr::random(rng);
  EXPECT_EQ(ec::scalar_mul(g, a) + ec::scalar_mul(g, b), ec::scalar_mul(g, a + b));
  auto h = ec::G2::from_affine(ec::g2_generator());
  EXPECT_EQ(ec::scalar_mul(h, a) + ec::scalar_mul(h, b), ec::scalar_mul(h, a + b));
}

}  // namespace
}  // namespace proofpipe::test
