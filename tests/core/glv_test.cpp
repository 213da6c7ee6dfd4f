// GLV (ec/glv.hpp) for BN254's G1 and G2 against independent references:
// every basis constant against GMP (lattice membership, determinant r, the
// rounding constants), lambda against the curve (phi(P) = [lambda]P by
// double-and-add; lambda and beta non-trivial cube roots of 1), the split against GMP on edge and
// random scalars (k0 + k1 lambda = k mod r, |k_i| < 2^127), and the MSM with
// GLV against the MSM without it and the naive sum, over both engines and
// forced window widths. Seeds are logged (PP_SEEDED_RNG).
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/msm/msm.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bn254::Fq;
using bn254::Fr;

// Two's complement 256-bit limbs -> signed GMP integer.
mpz_class signed_of(const ff::Limbs<4>& l) {
  mpz_class z = to_mpz<4>(l);
  if ((l[3] >> 63) != 0) z -= mpz_class(1) << 256;
  return z;
}

mpz_class half_value(const ec::GlvHalf& h) { return h.neg ? mpz_class(-to_mpz<2>(h.k)) : to_mpz<2>(h.k); }

template <class Cfg>
class GlvTest : public ::testing::Test {};
using Groups = ::testing::Types<bn254::G1Cfg, bn254::G2Cfg>;
TYPED_TEST_SUITE(GlvTest, Groups);

TYPED_TEST(GlvTest, BasisIsAReducedBasisOfTheLambdaLattice) {
  using G = ec::Glv<TypeParam>;
  const mpz_class r = modulus_of<Fr>(), lambda = to_mpz<4>(G::kLambda);
  const ec::GlvBasis& b = G::kBasis;
  const mpz_class a1 = signed_of(b.a1), b1 = signed_of(b.b1), a2 = signed_of(b.a2), b2 = signed_of(b.b2);
  EXPECT_EQ(mpz_class((a1 + b1 * lambda) % r), 0);
  EXPECT_EQ(mpz_class((a2 + b2 * lambda) % r), 0);
  EXPECT_EQ(a1 * b2 - a2 * b1, r);  // a basis of the whole lattice, oriented
  EXPECT_LE(b1, 0);
  EXPECT_GE(b2, 0);
  EXPECT_EQ(to_mpz<3>(b.g1), mpz_class((b2 << 256) / r));
  EXPECT_EQ(to_mpz<3>(b.g2), mpz_class((mpz_class(-b1) << 256) / r));
  // The bound kGlvBits rests on (glv.hpp): 3/4 (|a1| + |a2|) < 2^127, same for b.
  const mpz_class limit = mpz_class(1) << ec::kGlvBits;
  EXPECT_LT(mpz_class(3 * (abs(a1) + abs(a2)) / 4), limit);
  EXPECT_LT(mpz_class(3 * (abs(b1) + abs(b2)) / 4), limit);
}

// lambda is a primitive cube root of 1 mod r and beta one mod p, for both
// groups (the endomorphism's order is 3).
TYPED_TEST(GlvTest, LambdaAndBetaAreCubeRootsOfUnity) {
  using G = ec::Glv<TypeParam>;
  const mpz_class r = modulus_of<Fr>(), p = modulus_of<Fq>();
  const mpz_class l = to_mpz<4>(G::kLambda);
  EXPECT_EQ(mpz_class((l * l + l + 1) % r), 0);
  const mpz_class beta = value_of(G::kBeta);
  EXPECT_EQ(mpz_class((beta * beta + beta + 1) % p), 0);
}

TYPED_TEST(GlvTest, EndomorphismIsMultiplicationByLambda) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  using A = ec::Affine<Cfg>;
  PP_SEEDED_RNG(rng);
  EXPECT_TRUE(ec::Glv<Cfg>::apply(A::identity()).is_identity());
  for (int i = 0; i < 8; ++i) {
    const A p = J::from_affine(bn254::generator<Cfg>()).mul(Fr::random(rng).to_canonical()).to_affine();
    const A q = ec::Glv<Cfg>::apply(p);
    EXPECT_TRUE(q.on_curve());
    EXPECT_EQ(J::from_affine(q), J::from_affine(p).mul(ec::Glv<Cfg>::kLambda));
  }
}

TYPED_TEST(GlvTest, SplitRecombinesToTheScalarWithHalvesBelow2To127) {
  using G = ec::Glv<TypeParam>;
  PP_SEEDED_RNG(rng);
  const mpz_class r = modulus_of<Fr>(), lambda = to_mpz<4>(G::kLambda);
  std::vector<mpz_class> ks = {0,
                               1,
                               2,
                               lambda,
                               lambda - 1,
                               lambda + 1,
                               (r - 1) / 2,
                               (r + 1) / 2,
                               r - 1,
                               mpz_class(1) << 253,
                               (mpz_class(1) << 254) - 1};
  // Near the rounding steps of c1 and c2: k = (j r + r/2) / b for small j.
  const mpz_class b2 = signed_of(G::kBasis.b2), b1 = -signed_of(G::kBasis.b1);
  for (int j = 0; j < 50; ++j) {
    for (const mpz_class& b : {b1, b2}) {
      const mpz_class k = (j * r + r / 2) / b;
      if (k < r) ks.insert(ks.end(), {k, k + 1});
    }
  }
  for (int i = 0; i < 20000; ++i) ks.push_back(to_mpz<4>(Fr::random(rng).to_canonical()));
  const mpz_class limit = mpz_class(1) << ec::kGlvBits;
  for (const mpz_class& k : ks) {
    ec::GlvHalf h0, h1;
    ec::glv_split(from_mpz<4>(k), G::kBasis, &h0, &h1);
    const mpz_class k0 = half_value(h0), k1 = half_value(h1);
    ASSERT_EQ(mpz_class((k0 + k1 * lambda - k) % r), 0) << "k=" << k.get_str(16);
    ASSERT_LT(abs(k0), limit) << "k=" << k.get_str(16);
    ASSERT_LT(abs(k1), limit) << "k=" << k.get_str(16);
  }
}

template <class Cfg>
ec::Jacobian<Cfg> run_msm(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s, const msm::MsmOptions& o) {
  if constexpr (Cfg::kG2) {
    return msm::msm_g2(p, s, o);
  } else {
    return msm::msm_g1(p, s, o);
  }
}

// The MSM with GLV against the naive sum and against itself without GLV:
// small n with edge scalars (0, +-1, (r+-1)/2, lambda, small) and identity
// points, every engine and a few forced widths; then one size where the
// automatic plan uses batch-affine buckets and split windows.
TYPED_TEST(GlvTest, MsmWithGlvMatchesNaiveAndWithout) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  using A = ec::Affine<Cfg>;
  PP_SEEDED_RNG(rng);
  const Fr lambda = Fr::from_canonical(ec::Glv<Cfg>::kLambda);
  auto scalar = [&] {
    const unsigned pick = unsigned(rng() % 10);
    if (pick < 5) return msm_edge_scalar<Fr>(pick);
    return pick == 5 ? lambda : pick == 6 ? Fr::from_u64(rng() % 1000 + 2) : Fr::random(rng);
  };
  const size_t big = Cfg::kG2 ? 2048 : 8192;
  std::vector<J> jac(big);
  J p = J::from_affine(bn254::generator<Cfg>()).mul(Fr::random(rng).to_canonical());
  for (auto& j : jac) j = p = p.add_affine(bn254::generator<Cfg>());
  std::vector<A> pts(big);
  ec::batch_to_affine<Cfg>(jac, pts);
  std::vector<Fr> sc(big);
  for (size_t i = 0; i < big; ++i) {
    sc[i] = scalar();
    if (i < 64 && rng() % 9 == 0) pts[i] = A::identity();
  }
  J want = J::identity();
  for (size_t n = 0; n <= 40; ++n) {
    if (n > 0) want += J::from_affine(pts[n - 1]).mul(sc[n - 1].to_canonical());
    std::span<const A> pn(pts.data(), n);
    std::span<const Fr> sn(sc.data(), n);
    msm::MsmStats st;
    msm::MsmOptions o;
    o.glv = true;
    o.stats = &st;
    ASSERT_EQ(run_msm<Cfg>(pn, sn, o), want) << "n=" << n;
    if (st.terms > 0) {
      EXPECT_EQ(st.scalar_bits, ec::kGlvBits);
    }
    for (msm::Accumulation a : {msm::Accumulation::kXyzz, msm::Accumulation::kBatchAffine}) {
      o.accumulation = a;
      o.window_bits = 1 + unsigned(rng() % 9);
      ASSERT_EQ(run_msm<Cfg>(pn, sn, o), want) << "n=" << n << " c=" << o.window_bits << " acc=" << int(a);
    }
  }
  msm::MsmStats with, without;
  msm::MsmOptions on, off;
  on.stats = &with;
  on.glv = true;
  off.stats = &without;
  const J a = run_msm<Cfg>(pts, sc, on), b = run_msm<Cfg>(pts, sc, off);
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.is_identity());
  EXPECT_EQ(with.scalar_bits, ec::kGlvBits);
  EXPECT_EQ(without.scalar_bits, 254u);
  EXPECT_GT(with.terms, without.terms);  // up to two halves per scalar
  EXPECT_LE(with.terms, 2 * without.terms);
}

}  // namespace
}  // namespace proofpipe::test
