// The lazy-reduction Fq2 product (ff/detail/mont_x86_wide.hpp, the host's
// Fq2::operator*) bit for bit against the Karatsuba over Fq products
// (mul_karatsuba, the device path) and against GMP: pairs of edge elements
// (limbs at p-1, all-ones, single bits, 0, 1), random pairs, aliasing; for
// BLS12-381's 6-limb and BN254's 4-limb Fq2.
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

// c0 = a0 b0 - a1 b1, c1 = a0 b1 + a1 b0 (u^2 = -1), by GMP.
template <class Fq2>
void expect_gmp_product(const Fq2& a, const Fq2& b) {
  using Fq = typename Fq2::Fq;
  const mpz_class p = modulus_of<Fq>();
  const mpz_class a0 = value_of(a.c0), a1 = value_of(a.c1), b0 = value_of(b.c0), b1 = value_of(b.c1);
  mpz_class c0 = (a0 * b0 - a1 * b1) % p;
  if (c0 < 0) c0 += p;
  const mpz_class c1 = (a0 * b1 + a1 * b0) % p;
  const Fq2 r = a * b;
  ASSERT_EQ(value_of(r.c0), c0) << "a=(" << a0 << ", " << a1 << ") b=(" << b0 << ", " << b1 << ")";
  ASSERT_EQ(value_of(r.c1), c1) << "a=(" << a0 << ", " << a1 << ") b=(" << b0 << ", " << b1 << ")";
}

// Fq2 elements from edge Fq elements: each edge paired with itself, with
// p-1 (the largest limbs), with 0, and with another edge.
template <class Fq2>
std::vector<Fq2> edge_fq2() {
  using Fq = typename Fq2::Fq;
  const std::vector<Fq> e = raw_edge_elements<Fq>();
  const Fq top = -Fq::from_mont(ff::Limbs<Fq::N>{1});  // raw limbs p - 1
  std::vector<Fq2> v;
  for (size_t i = 0; i < e.size(); ++i) {
    v.push_back({e[i], e[i]});
    v.push_back({e[i], top});
    v.push_back({top, e[i]});
    v.push_back({e[i], Fq::zero()});
    v.push_back({Fq::zero(), e[i]});
    v.push_back({e[i], e[(i * 7 + 3) % e.size()]});
  }
  return v;
}

template <class Fq2>
class Fq2MulTest : public ::testing::Test {};
using Fq2Types = ::testing::Types<bls12_381::Fq2, bn254::Fq2>;
TYPED_TEST_SUITE(Fq2MulTest, Fq2Types);

TYPED_TEST(Fq2MulTest, EdgePairsMatchKaratsuba) {
  using Fq2 = TypeParam;
  const std::vector<Fq2> v = edge_fq2<Fq2>();
  for (const Fq2& a : v) {
    for (const Fq2& b : v) ASSERT_EQ(a * b, a.mul_karatsuba(b));
  }
}

TYPED_TEST(Fq2MulTest, EdgeAndRandomPairsMatchGmp) {
  using Fq2 = TypeParam;
  PP_SEEDED_RNG(rng);
  const std::vector<Fq2> v = edge_fq2<Fq2>();
  for (size_t i = 0; i < v.size(); i += 3) {
    for (size_t j = 0; j < v.size(); j += 5) expect_gmp_product(v[i], v[j]);
  }
  for (int i = 0; i < 3000; ++i) expect_gmp_product(Fq2::random(rng), Fq2::random(rng));
}

TYPED_TEST(Fq2MulTest, RandomPairsAndChainsMatchKaratsuba) {
  using Fq2 = TypeParam;
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 100000; ++i) {
    const Fq2 a = Fq2::random(rng), b = Fq2::random(rng);
    ASSERT_EQ(a * b, a.mul_karatsuba(b));
  }
  // Results fed back in place (x aliases an operand), as in exponentiation.
  Fq2 x = Fq2::random(rng), y = Fq2::random(rng), xr = x, yr = y;
  for (int i = 0; i < 5000; ++i) {
    x *= y;
    xr = xr.mul_karatsuba(yr);
    y = y * y;
    yr = yr.mul_karatsuba(yr);
    ASSERT_EQ(x, xr) << "step " << i;
    ASSERT_EQ(y, yr) << "step " << i;
  }
}

// Constant evaluation takes the Karatsuba path and agrees with the run time.
TYPED_TEST(Fq2MulTest, ConstantEvaluationMatchesRuntime) {
  using Fq2 = TypeParam;
  using Fq = typename Fq2::Fq;
  static constexpr Fq2 kA{Fq::from_u64(0x1234567890abcdefULL), -Fq::from_u64(5)};
  static constexpr Fq2 kB{-Fq::from_u64(77), Fq::from_u64(0xfedcba9876543210ULL)};
  static constexpr Fq2 kProd = kA * kB;
  const Fq2 a = kA, b = kB;
  EXPECT_EQ(a * b, kProd);
}

}  // namespace
}  // namespace proofpipe::test
