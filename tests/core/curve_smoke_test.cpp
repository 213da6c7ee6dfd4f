// Generators on the curve and in the subgroup; basic group laws (the curve
// suite proper lives in curve_test.cpp).
#include <gtest/gtest.h>

#include "proofpipe/ec/bls12_381.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(CurveSmoke, GeneratorsOnCurveAndInSubgroup) {
  EXPECT_TRUE(bls12_381::g1_generator().on_curve());
  EXPECT_TRUE(bls12_381::g2_generator().on_curve());
  EXPECT_TRUE(bls12_381::in_subgroup(bls12_381::g1_generator()));
  EXPECT_TRUE(bls12_381::in_subgroup(bls12_381::g2_generator()));
}

TEST(CurveSmoke, DoubleEqualsAddAndMixedAdd) {
  PP_SEEDED_RNG(rng);
  auto g = bls12_381::G1::from_affine(bls12_381::g1_generator());
  auto p = bls12_381::scalar_mul(g, bls12_381::Fr::random(rng));
  auto q = bls12_381::scalar_mul(g, bls12_381::Fr::random(rng));
  EXPECT_EQ(p.dbl(), p + p);
  EXPECT_EQ(p + q, p.add_affine(q.to_affine()));
  EXPECT_TRUE((p - p).is_identity());
  bls12_381::Fr a = bls12_381::Fr::random(rng), b = bls12_381::Fr::random(rng);
  EXPECT_EQ(bls12_381::scalar_mul(g, a) + bls12_381::scalar_mul(g, b), bls12_381::scalar_mul(g, a + b));
  auto h = bls12_381::G2::from_affine(bls12_381::g2_generator());
  EXPECT_EQ(bls12_381::scalar_mul(h, a) + bls12_381::scalar_mul(h, b), bls12_381::scalar_mul(h, a + b));
}

}  // namespace
}  // namespace proofpipe::test
