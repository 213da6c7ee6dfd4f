// The G1 and G2 MSMs with the eight-lane IFMA bucket additions
// (msm/buckets.hpp, ff/ifma/batch_affine.hpp; Fq lanes for G1, Fq2 lanes for
// G2) against the scalar path in the same process (ScopedSimdPath):
// identical results for BN254 and BLS12-381, with skewed scalars and
// repeated, negated and identity points that drive the tangent and
// cancelling cases, a bucket engine fed few buckets and few points, and the
// reduction tree's pair additions.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/msm/buckets.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/reduce.hpp"
#include "support/msm_inputs.hpp"
#include "support/require_ifma.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace ifma = ff::ifma;

// BN254 points of either group without n scalar multiplications (as
// msm_test_points for BLS12-381).
template <class Cfg, class Rng>
std::vector<ec::Affine<Cfg>> bn_points(size_t n, Rng& rng) {
  std::vector<ec::Jacobian<Cfg>> jac(n);
  const auto g = ec::Jacobian<Cfg>::from_affine(bn254::generator<Cfg>());
  for (size_t i = 0; i < n; ++i)
    jac[i] = i < 8 ? g.mul(bn254::Fr::random(rng).to_canonical()) : jac[i - 1] + jac[i - 2];
  std::vector<ec::Affine<Cfg>> out(n);
  ec::batch_to_affine<Cfg>(jac, out);
  return out;
}

template <class Cfg, class Scalar>
auto msm_on_path(ifma::SimdPath path, std::span<const ec::Affine<Cfg>> p, std::span<const Scalar> s) {
  ifma::ScopedSimdPath guard(path);
  msm::MsmOptions opt;
  opt.accumulation = msm::Accumulation::kBatchAffine;
  if constexpr (Cfg::kG2)
    return msm::msm_g2(p, s, opt);
  else
    return msm::msm_g1(p, s, opt);
}

TEST(IfmaMsm, Bn254G1SameWithAndWithoutIfma) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  for (size_t n : {size_t(50), size_t(3000), size_t(1) << 14}) {
    auto pts = bn_points<bn254::G1Cfg>(n, rng);
    for (size_t i = 0; i < n; ++i) {  // identities, repeats and negations
      const unsigned k = unsigned(rng() % 16);
      if (k == 0) pts[i] = bn254::G1Affine::identity();
      if (k == 1 && i > 0) pts[i] = pts[i - 1];
      if (k == 2 && i > 0) pts[i] = -pts[i - 1];
    }
    std::vector<bn254::Fr> sc(n);
    const bn254::Fr dup = bn254::Fr::random(rng);
    for (auto& s : sc) s = rng() % 4 == 0 ? dup : rng() % 8 == 0 ? bn254::Fr::zero() : bn254::Fr::random(rng);
    const auto off = msm_on_path<bn254::G1Cfg, bn254::Fr>(ifma::SimdPath::kScalar, pts, sc);
    const auto on = msm_on_path<bn254::G1Cfg, bn254::Fr>(ifma::SimdPath::kIfma, pts, sc);
    EXPECT_EQ(on, off) << "n=" << n;
    // And against a plain double-and-add sum for the small case.
    if (n == 50) {
      bn254::G1 want = bn254::G1::identity();
      for (size_t i = 0; i < n; ++i) want += bn254::G1::from_affine(pts[i]).mul(sc[i].to_canonical());
      EXPECT_EQ(on, want);
    }
  }
}

TEST(IfmaMsm, Bls12381G1SameWithAndWithoutIfma) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  for (size_t n : {size_t(3000), size_t(1) << 14}) {
    auto pts = msm_test_points<bls12_381::G1Cfg>(n, rng);
    spoil_points<bls12_381::G1Cfg>(pts, rng);
    const auto sc = skewed_scalars(n, rng);
    const auto off = msm_on_path<bls12_381::G1Cfg, bls12_381::Fr>(ifma::SimdPath::kScalar, pts, sc);
    const auto on = msm_on_path<bls12_381::G1Cfg, bls12_381::Fr>(ifma::SimdPath::kIfma, pts, sc);
    EXPECT_EQ(on, off) << "n=" << n;
  }
}

// Few buckets and few distinct points: most batch entries meet a bucket that
// holds the same point (tangent), its negation (the bucket empties) or a
// bucket queued already (deferral). The two engines must agree.
template <class Cfg>
void bucket_engine_agrees(const std::vector<ec::Affine<Cfg>>& base, std::mt19937_64& rng) {
  std::vector<uint32_t> bucket(20000);
  std::vector<const ec::Affine<Cfg>*> point(bucket.size());
  std::vector<bool> neg(bucket.size());
  for (size_t i = 0; i < bucket.size(); ++i) {
    bucket[i] = uint32_t(rng() % 64);
    point[i] = &base[rng() % base.size()];
    neg[i] = rng() % 2;
  }
  auto run = [&](ifma::SimdPath path) {
    ifma::ScopedSimdPath guard(path);
    msm::MsmStats stats;
    msm::detail::AffineBuckets<Cfg> eng;
    eng.reset(64, &stats);
    for (size_t i = 0; i < bucket.size(); ++i) eng.add(bucket[i], *point[i], neg[i]);
    return eng.reduce().to_jacobian();
  };
  EXPECT_EQ(run(ifma::SimdPath::kIfma), run(ifma::SimdPath::kScalar));
}

TEST(IfmaMsm, Bn254BucketEngineSpecialCases) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  bucket_engine_agrees<bn254::G1Cfg>(bn_points<bn254::G1Cfg>(6, rng), rng);
}

// The reduction tree's pair additions: identities on either side, equal
// points (tangent), opposite points (the destination empties) and generic
// pairs, over more than one 512-entry batch, both paths, both curves.
template <class Cfg>
void pair_adds_agree(const std::vector<ec::Affine<Cfg>>& base, std::mt19937_64& rng) {
  using A = ec::Affine<Cfg>;
  const size_t n = 1500;
  std::vector<A> dst0(n), src(n);
  for (size_t k = 0; k < n; ++k) {
    const A p = base[rng() % base.size()], q = base[rng() % base.size()];
    const unsigned kind = unsigned(rng() % 8);
    dst0[k] = kind == 0 ? A::identity() : p;
    src[k] = kind == 1 ? A::identity() : kind == 2 ? p : kind == 3 ? -p : q;
  }
  auto run = [&](ifma::SimdPath path) {
    ifma::ScopedSimdPath guard(path);
    std::vector<A> dst = dst0;
    std::vector<std::pair<A*, const A*>> pairs;
    for (size_t k = 0; k < n; ++k) pairs.push_back({&dst[k], &src[k]});
    msm::MsmStats stats;
    msm::detail::add_pairs<Cfg>(pairs, &stats);
    return dst;
  };
  const auto on = run(ifma::SimdPath::kIfma), off = run(ifma::SimdPath::kScalar);
  for (size_t k = 0; k < n; ++k) {
    ASSERT_EQ(on[k], off[k]) << "pair " << k;
    ASSERT_EQ(ec::Jacobian<Cfg>::from_affine(on[k]),
              ec::Jacobian<Cfg>::from_affine(dst0[k]) + ec::Jacobian<Cfg>::from_affine(src[k]))
        << "pair " << k;
  }
}

TEST(IfmaMsm, PairAdditionsOfTheReductionTreeAgree) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  pair_adds_agree<bn254::G1Cfg>(bn_points<bn254::G1Cfg>(40, rng), rng);
  pair_adds_agree<bls12_381::G1Cfg>(msm_test_points<bls12_381::G1Cfg>(40, rng), rng);
}

// ----- G2: the same checks on the Fq2 lanes -----

// Sizes from one point (the XYZZ engine) through odd batch fills to a few
// thousand; identities, repeats and opposite points; skewed scalars. The
// small sizes are checked against a plain sum of scalar multiplications too.
template <class Cfg, class Fr, class Rng>
void g2_msm_agrees(std::vector<ec::Affine<Cfg>> pts, std::vector<Fr> sc, Rng& rng) {
  using J = ec::Jacobian<Cfg>;
  const size_t n = pts.size();
  spoil_points<Cfg>(pts, rng);
  if (n > 3) pts[n - 1] = -pts[n - 2];  // P and -P with the same scalar
  if (n > 3) sc[n - 1] = sc[n - 2];
  const auto off = msm_on_path<Cfg, Fr>(ifma::SimdPath::kScalar, pts, sc);
  const auto on = msm_on_path<Cfg, Fr>(ifma::SimdPath::kIfma, pts, sc);
  EXPECT_EQ(on, off) << "n=" << n;
  if (n <= 64) {
    J want = J::identity();
    for (size_t i = 0; i < n; ++i) want += J::from_affine(pts[i]).mul(sc[i].to_canonical());
    EXPECT_EQ(on, want) << "n=" << n;
  }
}

TEST(IfmaMsm, Bn254G2SameWithAndWithoutIfma) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  for (size_t n : {size_t(1), size_t(7), size_t(61), size_t(999), size_t(5000)}) {
    std::vector<bn254::Fr> sc(n);
    const bn254::Fr dup = bn254::Fr::random(rng);
    for (auto& s : sc) s = rng() % 4 == 0 ? dup : rng() % 8 == 0 ? bn254::Fr::zero() : bn254::Fr::random(rng);
    g2_msm_agrees<bn254::G2Cfg>(bn_points<bn254::G2Cfg>(n, rng), sc, rng);
  }
}

TEST(IfmaMsm, Bls12381G2SameWithAndWithoutIfma) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  for (size_t n : {size_t(1), size_t(7), size_t(61), size_t(999), size_t(5000)})
    g2_msm_agrees<bls12_381::G2Cfg>(msm_test_points<bls12_381::G2Cfg>(n, rng), skewed_scalars(n, rng), rng);
}

TEST(IfmaMsm, G2BucketEngineSpecialCases) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  bucket_engine_agrees<bn254::G2Cfg>(bn_points<bn254::G2Cfg>(6, rng), rng);
  bucket_engine_agrees<bls12_381::G2Cfg>(msm_test_points<bls12_381::G2Cfg>(6, rng), rng);
}

TEST(IfmaMsm, G2PairAdditionsOfTheReductionTreeAgree) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  pair_adds_agree<bn254::G2Cfg>(bn_points<bn254::G2Cfg>(40, rng), rng);
  pair_adds_agree<bls12_381::G2Cfg>(msm_test_points<bls12_381::G2Cfg>(40, rng), rng);
}

}  // namespace
}  // namespace proofpipe::test
