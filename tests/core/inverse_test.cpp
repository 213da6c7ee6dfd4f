// The host inversion (safegcd, ff/detail/inverse.hpp) against GMP's
// mpz_invert and against Fermat (inverse_fermat), bit for bit on Montgomery
// limbs, for Fq and Fr: edge values (0, 1, 2, p-1, small values, values near
// 2^k, raw Montgomery limbs at the extremes), random values, and x * x^-1 = 1.
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fr;

template <class F>
class InverseTest : public ::testing::Test {};
using InverseTypes = ::testing::Types<Fq, Fr, bn254::Fq, bn254::Fr>;
TYPED_TEST_SUITE(InverseTest, InverseTypes);

// Canonical edge values: 0..40, p-1..p-40, (p+-1)/2, 2^k and 2^k +- 1 for
// every k below the bit length, and p - 2^k.
template <class F>
std::vector<mpz_class> canonical_edges() {
  const mpz_class p = modulus_of<F>();
  std::vector<mpz_class> v = {(p - 1) / 2, (p + 1) / 2};
  for (int i = 0; i <= 40; ++i) {
    v.push_back(i);
    if (i > 0) v.push_back(p - i);
  }
  for (unsigned k = 1; k < F::C::kBits; ++k) {
    const mpz_class t = mpz_class(1) << k;
    for (const mpz_class& x : {mpz_class(t - 1), t, mpz_class(t + 1), mpz_class(p - t)}) {
      if (x > 0 && x < p) v.push_back(x);
    }
  }
  return v;
}

template <class F>
void expect_inverse(const F& a, const mpz_class& p) {
  const F inv = a.inverse();
  ASSERT_EQ(inv, a.inverse_fermat()) << "a=" << value_of(a);
  if (a.is_zero()) {
    ASSERT_TRUE(inv.is_zero());
    return;
  }
  mpz_class want;
  const mpz_class av = value_of(a);
  ASSERT_NE(mpz_invert(want.get_mpz_t(), av.get_mpz_t(), p.get_mpz_t()), 0);
  ASSERT_EQ(value_of(inv), want) << "a=" << av;
  ASSERT_TRUE((a * inv).is_one()) << "a=" << av;
}

TYPED_TEST(InverseTest, EdgeValuesMatchGmpAndFermat) {
  using F = TypeParam;
  const mpz_class p = modulus_of<F>();
  for (const mpz_class& x : canonical_edges<F>()) expect_inverse(field_of<F>(x), p);
  for (const F& a : raw_edge_elements<F>()) expect_inverse(a, p);
  // inverse(0) = 0: the convention batch inversion and Fq2::inverse rely on.
  EXPECT_TRUE(F::zero().inverse().is_zero());
  EXPECT_EQ(F::one().inverse(), F::one());
  EXPECT_EQ((-F::one()).inverse(), -F::one());
}

TYPED_TEST(InverseTest, RandomValuesMatchGmpAndFermat) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<F>();
  for (int i = 0; i < 2000; ++i) expect_inverse(F::random(rng), p);
  // Values with few bits set, and random values shifted down: short inputs
  // finish in fewer batches and shrink the limb count early.
  for (int i = 0; i < 500; ++i) {
    mpz_class x = value_of(F::random(rng)) >> (rng() % F::C::kBits);
    expect_inverse(field_of<F>(x), p);
    mpz_class sparse = 0;
    for (int b = 0; b < 3; ++b) sparse |= mpz_class(1) << (rng() % (F::C::kBits - 1));
    expect_inverse(field_of<F>(sparse), p);
  }
}

TYPED_TEST(InverseTest, InverseIsAnInvolution) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 500; ++i) {
    const F a = F::random(rng);
    ASSERT_EQ(a.inverse().inverse(), a);
  }
}

// Constant evaluation keeps Fermat and agrees with the run-time path.
TYPED_TEST(InverseTest, ConstantEvaluationMatchesRuntime) {
  using F = TypeParam;
  static constexpr F kA = F::from_u64(0xfedcba9876543210ULL);
  static constexpr F kInv = kA.inverse();
  const F a = kA;
  EXPECT_EQ(a.inverse(), kInv);
  EXPECT_TRUE((a * kInv).is_one());
}

TEST(Fq2InverseTest, MatchesFermatThroughTheNorm) {
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 300; ++i) {
    const bls12_381::Fq2 a = bls12_381::Fq2::random(rng);
    const bls12_381::Fq2 inv = a.inverse();
    ASSERT_TRUE((a * inv).is_one());
    const Fq t = a.norm().inverse_fermat();
    ASSERT_EQ(inv, (bls12_381::Fq2{a.c0 * t, -(a.c1 * t)}));
  }
  EXPECT_TRUE(bls12_381::Fq2::zero().inverse().is_zero());
}

}  // namespace
}  // namespace proofpipe::test
