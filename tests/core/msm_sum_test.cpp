// msm_g1_sum (msm/msm.hpp): one MSM over up to 4 parts against the sum of
// each part's own MSM and, for small parts, the naive double-and-add sum; on
// both curves (BN254 with and without GLV), with empty parts, identity
// points and edge scalars (0, +-1, (r-1)/2), and a size where the combined
// MSM takes a wider window than its parts would.
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

}  // namespace
}  // namespace proofpipe::test
