// Fq and Fr of BLS12-381 and BN254 against GMP big integers: random inputs and edge values
// (0, 1, 2, p-1, p-2, values near 2^k), for every operation of the field type.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fr;

template <class F>
class FieldTest : public ::testing::Test {};
using FieldTypes = ::testing::Types<Fq, Fr, bn254::Fq, bn254::Fr>;
TYPED_TEST_SUITE(FieldTest, FieldTypes);

// Edge values as GMP integers: 0, 1, 2, p-1, p-2, (p-1)/2, 2^k and 2^k-1 for k < bits.
template <class F>
std::vector<mpz_class> edge_values() {
  mpz_class p = modulus_of<F>();
  std::vector<mpz_class> v = {0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2};
  for (unsigned k = 1; k < F::C::kBits; k += 7) {
    mpz_class t = mpz_class(1) << k;
    v.push_back(t % p);
    v.push_back((t - 1) % p);
    v.push_back((t + 1) % p);
  }
  return v;
}

template <class F, class Rng>
std::vector<mpz_class> test_values(Rng& rng, int random_count) {
  auto v = edge_values<F>();
  for (int i = 0; i < random_count; ++i) v.push_back(value_of(F::random(rng)));
  return v;
}

TYPED_TEST(FieldTest, MontgomeryRoundTrip) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  for (const mpz_class& a : test_values<F>(rng, 200)) {
    F f = field_of<F>(a);
    EXPECT_EQ(value_of(f), a);
    // The Montgomery image is a * 2^(64N) mod p.
    mpz_class mont = (a << (64 * F::N)) % modulus_of<F>();
    EXPECT_EQ(to_mpz<F::N>(f.mont()), mont);
  }
}

TYPED_TEST(FieldTest, AddSubNegMulAgainstGmp) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<F>();
  auto vals = test_values<F>(rng, 60);
  for (const mpz_class& a : vals) {
    for (const mpz_class& b : vals) {
      F fa = field_of<F>(a), fb = field_of<F>(b);
      mpz_class sum = (a + b) % p;
      mpz_class diff = ((a - b) % p + p) % p;
      mpz_class prod = (a * b) % p;
      ASSERT_EQ(value_of(fa + fb), sum) << "a=" << a << " b=" << b;
      ASSERT_EQ(value_of(fa - fb), diff) << "a=" << a << " b=" << b;
      ASSERT_EQ(value_of(fa * fb), prod) << "a=" << a << " b=" << b;
    }
    F fa = field_of<F>(a);
    ASSERT_EQ(value_of(-fa), (p - a) % p);
    ASSERT_EQ(value_of(fa.sqr()), (a * a) % p);
    ASSERT_EQ(value_of(fa.dbl()), (2 * a) % p);
  }
}

TYPED_TEST(FieldTest, InverseAndPow) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<F>();
  for (const mpz_class& a : test_values<F>(rng, 100)) {
    F fa = field_of<F>(a);
    if (a == 0) {
      EXPECT_TRUE(fa.inverse().is_zero());
      continue;
    }
    mpz_class inv;
    mpz_invert(inv.get_mpz_t(), a.get_mpz_t(), p.get_mpz_t());
    ASSERT_EQ(value_of(fa.inverse()), inv) << "a=" << a;
    ASSERT_TRUE((fa * fa.inverse()).is_one());
    uint64_t e = rng();
    mpz_class expect;
    mpz_class ez;
    mpz_import(ez.get_mpz_t(), 1, -1, 8, 0, 0, &e);
    mpz_powm(expect.get_mpz_t(), a.get_mpz_t(), ez.get_mpz_t(), p.get_mpz_t());
    ASSERT_EQ(value_of(fa.pow_u64(e)), expect);
  }
}

TYPED_TEST(FieldTest, BytesRoundTripAndRejectNonCanonical) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  for (const mpz_class& a : test_values<F>(rng, 50)) {
    F fa = field_of<F>(a);
    uint8_t buf[F::kBytes];
    fa.to_bytes(buf);
    F back;
    ASSERT_TRUE(F::from_bytes(buf, &back));
    EXPECT_EQ(back, fa);
    mpz_class from_bytes;
    mpz_import(from_bytes.get_mpz_t(), F::kBytes, -1, 1, 0, 0, buf);
    EXPECT_EQ(from_bytes, a);
  }
  // p itself and p+1 are not canonical encodings.
  for (int delta = 0; delta < 2; ++delta) {
    auto l = F::C::kP;
    l[0] += static_cast<uint64_t>(delta);
    uint8_t buf[F::kBytes];
    std::memcpy(buf, l.data(), F::kBytes);
    F out;
    EXPECT_FALSE(F::from_bytes(buf, &out));
  }
}

TYPED_TEST(FieldTest, RingAxioms) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 500; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    ASSERT_EQ((a + b) * c, a * c + b * c);
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ(a + F::zero(), a);
    ASSERT_EQ(a * F::one(), a);
    ASSERT_TRUE((a - a).is_zero());
    ASSERT_TRUE((a + (-a)).is_zero());
  }
}

// The x86-64 kernels (mont_x86.hpp) against the portable C++ they replace,
// bit for bit on raw Montgomery values: products, squares, sums, differences,
// negation, and in-place/aliased use.
TYPED_TEST(FieldTest, HostKernelsMatchPortable) {
  using F = TypeParam;
  if (!F::host_asm())
    GTEST_SKIP() << "the x86-64 BMI2/ADX kernels are not built in or this CPU lacks BMI2/ADX: nothing to compare";
  PP_SEEDED_RNG(rng);
  std::vector<F> vals = raw_edge_elements<F>();
  const size_t n_edges = vals.size();
  for (int i = 0; i < 150; ++i) vals.push_back(F::random(rng));
  auto show = [](const F& x) {
    std::string s;
    for (size_t i = F::N; i-- > 0;) {
      char buf[20];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x.l[i]));
      s += buf;
    }
    return s;
  };
  for (const F& a : vals) {
    ASSERT_EQ(a.sqr(), a.mul_portable(a)) << "sqr a=" << show(a);
    ASSERT_EQ(-a, F::zero().sub_portable(a)) << "neg a=" << show(a);
    ASSERT_EQ(a.dbl(), a.add_portable(a)) << "dbl a=" << show(a);
    for (const F& b : vals) {
      ASSERT_EQ(a * b, a.mul_portable(b)) << "mul a=" << show(a) << " b=" << show(b);
      ASSERT_EQ(a + b, a.add_portable(b)) << "add a=" << show(a) << " b=" << show(b);
      ASSERT_EQ(a - b, a.sub_portable(b)) << "sub a=" << show(a) << " b=" << show(b);
    }
  }
  // Many more random products (both final-subtraction outcomes are common),
  // and chains that feed each result back in place (r aliasing a and b).
  for (int i = 0; i < 20000; ++i) {
    F a = F::random(rng), b = F::random(rng);
    ASSERT_EQ(a * b, a.mul_portable(b)) << "mul a=" << show(a) << " b=" << show(b);
    ASSERT_EQ(a.sqr(), a.mul_portable(a)) << "sqr a=" << show(a);
  }
  F x = vals[n_edges], y = vals[n_edges + 1];
  F xp = x, yp = y;
  for (int i = 0; i < 5000; ++i) {
    x *= y;
    xp = xp.mul_portable(yp);
    y = y.sqr();
    yp = yp.mul_portable(yp);
    x += y;
    xp = xp.add_portable(yp);
    y -= x;
    yp = yp.sub_portable(xp);
    ASSERT_EQ(x, xp) << "step " << i;
    ASSERT_EQ(y, yp) << "step " << i;
  }
}

// Constant evaluation takes the portable path and agrees with the run-time one.
TYPED_TEST(FieldTest, ConstantEvaluationMatchesRuntime) {
  using F = TypeParam;
  static constexpr F kA = F::from_u64(0x1234567890abcdefULL);
  static constexpr F kB = -F::from_u64(77);
  static constexpr F kProd = kA * kB, kSq = kA.sqr(), kSum = kA + kB, kDiff = kA - kB;
  F a = kA, b = kB;  // run-time copies
  EXPECT_EQ(a * b, kProd);
  EXPECT_EQ(a.sqr(), kSq);
  EXPECT_EQ(a + b, kSum);
  EXPECT_EQ(a - b, kDiff);
}

TEST(FqTest, SqrtOfSquaresAndNonSquares) {
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<Fq>();
  int non_squares = 0;
  for (int i = 0; i < 100; ++i) {
    Fq a = Fq::random(rng);
    Fq s;
    ASSERT_TRUE(a.sqr().sqrt(&s));
    ASSERT_TRUE(s == a || s == -a);
    bool is_sq = a.sqrt(&s);
    int jac = mpz_jacobi(value_of(a).get_mpz_t(), p.get_mpz_t());
    ASSERT_EQ(is_sq, jac == 1);
    ASSERT_EQ(a.legendre(), jac);
    if (!is_sq) ++non_squares;
  }
  EXPECT_GT(non_squares, 0);  // about half of random elements are non-squares
}

TEST(FrTest, TwoAdicityOfTheSnarkjsGenerator) {
  // 5 generates the multiplicative group's 2-Sylow part with order exactly 2^32:
  // w = 5^((r-1)/2^32) has w^(2^31) = -1.
  const mpz_class r = modulus_of<Fr>();
  mpz_class e = (r - 1) >> 32;
  EXPECT_EQ(mpz_class((r - 1) % (mpz_class(1) << 32)), 0);
  EXPECT_NE(mpz_class(e % 2), 0);
  Fr w = Fr::from_u64(5).pow(from_mpz<4>(e));
  Fr t = w;
  for (int i = 0; i < 31; ++i) t = t.sqr();
  EXPECT_EQ(t, -Fr::one());
  EXPECT_TRUE(t.sqr().is_one());
}

}  // namespace
}  // namespace proofpipe::test
