// Key sections stored without their identity points (the CUDA backend's
// device copy, proofpipe/cuda/key_compaction.hpp): the points counted and
// their positions found on the worker pool, the
// rule that decides, the chunked gather, and the device MSM's bodies (host
// emulation) reading the witness through the index against the CPU MSM over
// the whole section, for G1 and G2, at an offset into the witness as the C
// MSM reads it.
#include <gtest/gtest.h>

#include <vector>

#include "msm_emulation.hpp"
#include "proofpipe/cuda/key_compaction.hpp"
#include "support/msm_inputs.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using cuda::gather_points;
using cuda::present_points;
using cuda::worth_compacting;

// A section of n points of which about `identity_pct` % are the identity.
template <class Cfg, class Rng>
std::vector<ec::Affine<Cfg>> section(size_t n, unsigned identity_pct, Rng& rng) {
  auto pts = msm_test_points<Cfg>(n, rng);
  for (auto& p : pts)
    if (rng() % 100 < identity_pct) p = ec::Affine<Cfg>::identity();
  return pts;
}

template <class Cfg>
std::vector<uint32_t> brute_force_positions(const std::vector<ec::Affine<Cfg>>& pts) {
  std::vector<uint32_t> want;
  for (size_t i = 0; i < pts.size(); ++i)
    if (!(pts[i].x.is_zero() && pts[i].y.is_zero())) want.push_back(uint32_t(i));
  return want;
}

TEST(KeyCompaction, PresentPointsInOrder) {
  PP_SEEDED_RNG(rng);
  // 10007 points: more than the pool's parts, not a multiple of them.
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(255), size_t(10007)}) {
    for (unsigned pct : {0u, 62u, 100u}) {
      auto pts = section<bls12_381::G1Cfg>(n, pct, rng);
      const auto want = brute_force_positions(pts);
      EXPECT_EQ(present_points<bls12_381::G1Cfg>(pts), want) << "n=" << n << " pct=" << pct;
      EXPECT_EQ(cuda::count_present<bls12_381::G1Cfg>(pts), want.size()) << "n=" << n << " pct=" << pct;
    }
  }
  // The ends: identity first and last, then present first and last.
  auto pts = section<bls12_381::G2Cfg>(1000, 50, rng);
  pts.front() = pts.back() = bls12_381::G2Affine::identity();
  EXPECT_EQ(present_points<bls12_381::G2Cfg>(pts), brute_force_positions(pts));
  pts.front() = pts[1] = pts.back() = msm_test_points<bls12_381::G2Cfg>(1, rng)[0];
  const auto got = present_points<bls12_381::G2Cfg>(pts);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.front(), 0u);
  EXPECT_EQ(got.back(), 999u);
  EXPECT_EQ(got, brute_force_positions(pts));
}

TEST(KeyCompaction, WorthItWhenTheLeftOutPointsPayTwiceTheIndex) {
  // G1, 96-byte points: 1 identity point a 12 present is the edge (96 >= 8 * 12).
  EXPECT_TRUE(worth_compacting(13, 12, 96));
  EXPECT_FALSE(worth_compacting(14, 13, 96));
  // G2, 192 bytes: 1 in 24 present.
  EXPECT_TRUE(worth_compacting(25, 24, 192));
  EXPECT_FALSE(worth_compacting(26, 25, 192));
  // Nothing left out, or nothing present.
  EXPECT_FALSE(worth_compacting(100, 100, 96));
  EXPECT_TRUE(worth_compacting(100, 0, 96));
  EXPECT_FALSE(worth_compacting(0, 0, 96));
  // The `gen` key's B sections at 2^20 (62 % identity) and a PoRep B1
  // (33.1 M of 130.2 M present) compact; a PoRep A (99.7 % present) does not.
  EXPECT_TRUE(worth_compacting(891'368, 338'720, 96));
  EXPECT_TRUE(worth_compacting(130'169'893, 33'112'282, 96));
  EXPECT_FALSE(worth_compacting(130'169'893, 129'753'620, 96));
}

TEST(KeyCompaction, ChunksGatherTheSectionInOrder) {
  PP_SEEDED_RNG(rng);
  const auto pts = section<bls12_381::G1Cfg>(5000, 70, rng);
  const auto index = present_points<bls12_381::G1Cfg>(pts);
  for (size_t chunk : {size_t(1), size_t(7), size_t(1000), index.size()}) {
    std::vector<bls12_381::G1Affine> got, part(chunk);
    for (size_t first = 0; first < index.size(); first += chunk) {
      const auto out = std::span<bls12_381::G1Affine>(part).first(std::min(chunk, index.size() - first));
      gather_points<bls12_381::G1Cfg>(pts, index, first, out);
      got.insert(got.end(), out.begin(), out.end());
    }
    ASSERT_EQ(got.size(), index.size());
    for (size_t j = 0; j < got.size(); ++j) ASSERT_TRUE(got[j] == pts[index[j]]) << "chunk " << chunk << " j " << j;
  }
}

// The device MSM over the compacted section and the whole witness (through
// the index) gives the CPU MSM over the whole section.
template <class Cfg>
void expect_compacted_msm_matches(size_t n, unsigned identity_pct, bool skewed, size_t offset) {
  PP_SEEDED_RNG(rng);
  const auto pts = section<Cfg>(n, identity_pct, rng);
  const auto witness = skewed ? skewed_scalars(offset + n, rng) : random_scalars(offset + n, rng);
  const std::span<const bls12_381::Fr> s = std::span<const bls12_381::Fr>(witness).subspan(offset);  // as C reads w
  const auto index = present_points<Cfg>(pts);
  std::vector<ec::Affine<Cfg>> dense(index.size());
  gather_points<Cfg>(pts, index, 0, dense);
  MsmEmuStats st;
  const auto got = emulate_msm<Cfg>(dense, s, {}, &st, index);
  EXPECT_TRUE(got == cpu_msm<Cfg>(pts, s)) << "n=" << n << " identity " << identity_pct << "% skewed " << skewed;
  EXPECT_LE(st.others + st.ones, index.size());
}

TEST(KeyCompaction, G1MsmThroughTheIndex) {
  expect_compacted_msm_matches<bls12_381::G1Cfg>(3000, 62, false, 0);
  expect_compacted_msm_matches<bls12_381::G1Cfg>(3000, 62, true, 0);
  expect_compacted_msm_matches<bls12_381::G1Cfg>(2049, 90, false, 5);  // C's offset: n_public + 1
  expect_compacted_msm_matches<bls12_381::G1Cfg>(300, 100, false, 0);  // every point the identity
}

TEST(KeyCompaction, G2MsmThroughTheIndex) {
  expect_compacted_msm_matches<bls12_381::G2Cfg>(1500, 75, false, 0);
  expect_compacted_msm_matches<bls12_381::G2Cfg>(1500, 75, true, 3);
}

}  // namespace
}  // namespace proofpipe::test
