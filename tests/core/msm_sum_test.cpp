// msm_g1_sum (msm/msm.hpp): one MSM over up to 4 parts against the sum of
// each part's own MSM and, for small parts, the naive double-and-add sum; on
// both curves (BN254 with and without GLV), with empty parts, identity
// points and edge scalars (0, +-1, (r-1)/2), and a size where the combined
// MSM takes a wider window than its parts would; a part with a scale; and
// the tree that sums the +-1 scalars' points.
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/curves.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/msm/msm.hpp"
#include "support/field_edges.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

template <class C>
class MsmSumTest : public ::testing::Test {};
using Curves = ::testing::Types<curves::Bls12_381, curves::Bn254>;
TYPED_TEST_SUITE(MsmSumTest, Curves);

template <class C, class Rng>
std::vector<typename C::G1Affine> points(size_t n, Rng& rng) {
  using J = typename C::G1;
  std::vector<J> jac(n);
  const typename C::G1Affine g = C::g1_generator();
  J p = J::from_affine(g).mul(C::Fr::random(rng).to_canonical());
  for (auto& j : jac) j = p = p.add_affine(g);
  std::vector<typename C::G1Affine> out(n);
  ec::batch_to_affine<typename C::G1Cfg>(jac, out);
  for (size_t i = 0; i < n; i += 17) out[i] = C::G1Affine::identity();
  return out;
}

template <class C, class Rng>
std::vector<typename C::Fr> scalars(size_t n, Rng& rng) {
  using Fr = typename C::Fr;
  std::vector<Fr> out(n);
  for (auto& s : out) {
    const unsigned pick = unsigned(rng() % 8);
    s = pick < 4 ? msm_edge_scalar<Fr>(pick) : Fr::random(rng);
  }
  return out;
}

TYPED_TEST(MsmSumTest, SumOfPartsIsOneMsm) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  using J = typename C::G1;
  using Part = msm::MsmPart<typename C::G1Cfg, Fr>;
  PP_SEEDED_RNG(rng);
  for (const std::vector<size_t>& sizes : std::vector<std::vector<size_t>>{
           {}, {0}, {5}, {0, 7, 0}, {1, 2, 3, 4}, {40, 0, 33}, {3000, 5000}, {20000, 1, 9000, 700}}) {
    std::vector<std::vector<typename C::G1Affine>> p;
    std::vector<std::vector<Fr>> k;
    std::vector<Part> parts;
    for (size_t n : sizes) {
      p.push_back(points<C>(n, rng));
      k.push_back(scalars<C>(n, rng));
    }
    J want = J::identity(), naive = J::identity();
    for (size_t i = 0; i < sizes.size(); ++i) {
      parts.push_back({p[i], k[i]});
      want += msm::msm_g1(std::span<const typename C::G1Affine>(p[i]), std::span<const Fr>(k[i]));
      if (sizes[i] <= 64) {
        for (size_t j = 0; j < sizes[i]; ++j) naive += J::from_affine(p[i][j]).mul(k[i][j].to_canonical());
      }
    }
    bool small = true;
    for (size_t n : sizes) small = small && n <= 64;
    if (small) {
      EXPECT_EQ(want, naive);
    }
    for (bool glv : {true, false}) {
      msm::MsmOptions o;
      o.glv = glv;
      EXPECT_EQ(msm::msm_g1_sum(std::span<const Part>(parts), o), want) << "parts=" << sizes.size() << " glv=" << glv;
    }
  }
}

// A part with a scale is the MSM of the products: scale * k_i for k_i that
// are 0, +-1 (their points summed apart, then multiplied by the scale),
// +-1/scale (the product is +-1 but must not join that sum), edges and
// random values; beside an unscaled part, with GLV on and off, and a zero
// scale.
TYPED_TEST(MsmSumTest, ScaledPartIsTheMsmOfTheProducts) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  using J = typename C::G1;
  using Part = msm::MsmPart<typename C::G1Cfg, Fr>;
  PP_SEEDED_RNG(rng);
  for (size_t n : {1u, 9u, 300u, 5000u}) {
    const auto p = points<C>(n, rng), q = points<C>(n / 2 + 1, rng);
    const auto kq = scalars<C>(q.size(), rng);
    for (const Fr& scale : {Fr::random(rng), Fr::zero(), -Fr::one()}) {
      std::vector<Fr> k(n), product(n);
      const Fr inv = scale.is_zero() ? Fr::one() : scale.inverse();
      for (size_t i = 0; i < n; ++i) {
        const unsigned pick = unsigned(rng() % 10);
        k[i] = pick < 5 ? msm_edge_scalar<Fr>(pick) : pick == 5 ? inv : pick == 6 ? -inv : Fr::random(rng);
        product[i] = scale * k[i];
      }
      const Part scaled[2] = {{p, k, &scale}, {q, kq}};
      const Part plain[2] = {{p, product}, {q, kq}};
      const J want = msm::msm_g1_sum(std::span<const Part>(plain));
      if (n <= 9) {
        J naive = J::identity();
        for (size_t i = 0; i < n; ++i) naive += J::from_affine(p[i]).mul(product[i].to_canonical());
        for (size_t i = 0; i < q.size(); ++i) naive += J::from_affine(q[i]).mul(kq[i].to_canonical());
        EXPECT_EQ(want, naive) << "n=" << n;
      }
      for (bool glv : {true, false}) {
        msm::MsmOptions o;
        o.glv = glv;
        EXPECT_EQ(msm::msm_g1_sum(std::span<const Part>(scaled), o), want)
            << "n=" << n << " glv=" << glv << " zero scale=" << scale.is_zero();
      }
    }
  }
}

// The +-1 scalars' points are summed by a tree of batch-affine adds
// (msm/ones.hpp): many of them (past its 1024-point buffer), drawn from a
// few points so that equal points (a tangent) and opposite ones (P - P)
// meet inside the tree, in G1 and G2, against the sum by Jacobian adds.
TYPED_TEST(MsmSumTest, ManyPlusMinusOneScalarsWithEqualAndOppositePoints) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  PP_SEEDED_RNG(rng);
  const auto g1_pool = points<C>(5, rng);  // includes the identity (index 0)
  std::vector<typename C::G2Affine> g2_pool = {C::g2_generator(), C::G2Affine::identity()};
  g2_pool.push_back(C::G2::from_affine(C::g2_generator()).dbl().to_affine());
  for (size_t n : {3u, 63u, 64u, 1500u, 4100u}) {
    std::vector<typename C::G1Affine> p1(n);
    std::vector<typename C::G2Affine> p2(n);
    std::vector<Fr> k(n);
    typename C::G1 want1 = C::G1::identity();
    typename C::G2 want2 = C::G2::identity();
    for (size_t i = 0; i < n; ++i) {
      p1[i] = g1_pool[rng() % g1_pool.size()];
      p2[i] = g2_pool[rng() % g2_pool.size()];
      const bool neg = rng() % 2 != 0;
      k[i] = neg ? -Fr::one() : Fr::one();
      const auto j1 = C::G1::from_affine(p1[i]);
      const auto j2 = C::G2::from_affine(p2[i]);
      want1 += neg ? -j1 : j1;
      want2 += neg ? -j2 : j2;
    }
    msm::MsmStats st;
    msm::MsmOptions o;
    o.stats = &st;
    EXPECT_EQ(msm::msm_g1(std::span<const typename C::G1Affine>(p1), std::span<const Fr>(k), o), want1) << "n=" << n;
    EXPECT_EQ(st.terms, 0u);
    EXPECT_EQ(msm::msm_g2(std::span<const typename C::G2Affine>(p2), std::span<const Fr>(k), o), want2) << "n=" << n;
  }
}

}  // namespace
}  // namespace proofpipe::test
