// The CUDA MSM's per-thread bodies (proofpipe/cuda/msm_kernels.hpp) run on
// the host through the emulated driver (msm_emulation.hpp), against the CPU
// MSM of core/ (msm::msm_g1 / msm_g2): random and skewed scalars (0, 1,
// r-1, duplicates), identity and opposite points, window sizes from 2 to
// 16 bits, window groups, and tasks of L = 2 so a bucket of 1000 entries
// goes through 10 levels of split sums. The digits are the CPU MSM's
// (msm/digits.hpp, checked with GMP in tests/core/msm_test.cpp); here,
// how the kernels lay them out, and the split's classes (zero term, +1, -1,
// other) against the CPU MSM's fold_scalar.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "msm_emulation.hpp"
#include "proofpipe/msm/digits.hpp"
#include "proofpipe/msm/msm.hpp"
#include "support/msm_inputs.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace md = cuda::msm_detail;
using bls12_381::Fr;

template <class Cfg>
void expect_matches(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s, const md::PlanRequest& req = {},
                    MsmEmuStats* stats = nullptr) {
  const auto want = cpu_msm<Cfg>(p, s);
  const auto got = emulate_msm<Cfg>(p, s, req, stats);
  EXPECT_TRUE(got == want) << "n=" << p.size() << " c=" << req.window_bits << " L=" << req.task_len
                           << " S=" << req.segment << " group pairs " << req.max_group_pairs;
}

// ----- digits ---------------------------------------------------------------

TEST(CudaMsmDigits, PairsEncodeWindowBucketIndexAndSign) {
  PP_SEEDED_RNG(rng);
  const unsigned c = 5, j0 = 3, jn = 4;
  const size_t n = 64;
  std::vector<Fr> s = random_scalars(n, rng);
  s[0] = Fr::zero();
  s[1] = -Fr::one();
  // The windowed scalars are a subset, by index: here all but every third
  // after the first two (thread t reads scalar others[t]).
  std::vector<uint32_t> others;
  for (uint32_t i = 0; i < n; ++i)
    if (i < 2 || i % 3 != 0) others.push_back(i);
  const size_t count = others.size();
  std::vector<uint32_t> keys(count * jn), vals(count * jn);
  for (size_t t = 0; t < count; ++t)
    md::digits_body(t, s.data(), nullptr, others.data(), count, c, j0, jn, keys.data(), vals.data());
  for (size_t t = 0; t < count; ++t) {
    const uint32_t i = others[t];
    ff::Limbs<4> k = s[i].to_canonical();
    const uint32_t neg = msm::detail::fold_canonical<bls12_381::FrParams>(k);
    for (unsigned w = 0; w < jn; ++w) {
      const int32_t d = msm::detail::booth_digit(k, j0 + w, c);
      const uint32_t key = keys[w * count + t], val = vals[w * count + t];
      EXPECT_EQ(key >> c, w);
      EXPECT_EQ(int32_t(key & 31), std::abs(d));
      EXPECT_EQ(val & ~md::kSignBit, i);
      if (d != 0) {
        EXPECT_EQ((val >> 31) != 0, (neg != 0) != (d < 0));
      }
    }
  }
  for (unsigned w = 0; w < jn; ++w) EXPECT_EQ(keys[w * count + 0] & 31, 0u);  // scalar 0: no bucket
}

// ----- the split: zero terms, +-1 and the rest --------------------------------

// The device's classes against the CPU MSM's own fold (core/src/msm_plan.cpp,
// written separately): edge values and random ones; an identity point makes
// any term zero.
TEST(CudaMsmSplit, ClassesAgreeWithTheCpuFold) {
  PP_SEEDED_RNG(rng);
  const Fr half = Fr::from_canonical(half_r());
  std::vector<Fr> s = {Fr::zero(), Fr::one(),        -Fr::one(), Fr::from_u64(2),         -Fr::from_u64(2),
                       half,       half + Fr::one(), -half,      Fr::from_u64(1ull << 32)};
  for (int i = 0; i < 500; ++i) s.push_back(Fr::random(rng));
  const auto skw = skewed_scalars(500, rng);
  s.insert(s.end(), skw.begin(), skw.end());
  const auto pts = msm_test_points<bls12_381::G1Cfg>(s.size(), rng);  // none the identity
  std::vector<uint8_t> cls(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    md::classify_body<bls12_381::G1Cfg>(i, s.data(), nullptr, pts.data(), cls.data());
  EXPECT_EQ(cls[0], md::kZeroTerm);
  EXPECT_EQ(cls[1], md::kPlusOne);
  EXPECT_EQ(cls[2], md::kMinusOne);
  for (size_t i = 3; i < 9; ++i) EXPECT_EQ(cls[i], md::kOtherScalar) << "edge value " << i;
  size_t seen[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < s.size(); ++i) {
    ff::Limbs<4> k = s[i].to_canonical();
    uint32_t neg = 0;
    const auto want = msm::detail::fold_scalar<bls12_381::FrParams>(k, &neg);
    const uint8_t expect = want == msm::detail::ScalarClass::kZero  ? md::kZeroTerm
                           : want == msm::detail::ScalarClass::kOne ? (neg != 0 ? md::kMinusOne : md::kPlusOne)
                                                                    : md::kOtherScalar;
    ASSERT_EQ(cls[i], expect) << "scalar " << i;
    ++seen[cls[i]];
  }
  for (unsigned c = 0; c < 4; ++c) EXPECT_GT(seen[c], 0u) << "class " << c << " never drawn";
  // The same scalars on identity points: every term zero, in G1 and in G2.
  const std::vector<bls12_381::G1Affine> none1(s.size(), bls12_381::G1Affine::identity());
  const std::vector<bls12_381::G2Affine> none2(s.size(), bls12_381::G2Affine::identity());
  for (size_t i = 0; i < s.size(); ++i) {
    md::classify_body<bls12_381::G1Cfg>(i, s.data(), nullptr, none1.data(), cls.data());
    ASSERT_EQ(cls[i], md::kZeroTerm) << "G1, scalar " << i;
    md::classify_body<bls12_381::G2Cfg>(i, s.data(), nullptr, none2.data(), cls.data());
    ASSERT_EQ(cls[i], md::kZeroTerm) << "G2, scalar " << i;
  }
}

TEST(CudaMsmSplit, OnesBecomeOnePairInWindowZerosBucketOne) {
  PP_SEEDED_RNG(rng);
  const std::vector<Fr> s = {Fr::one(), Fr::zero(), -Fr::one(), Fr::from_u64(7), Fr::one()};
  const auto pts = msm_test_points<bls12_381::G1Cfg>(s.size(), rng);
  std::vector<uint8_t> cls(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    md::classify_body<bls12_381::G1Cfg>(i, s.data(), nullptr, pts.data(), cls.data());
  const std::vector<uint32_t> ones = {0, 2, 4};
  std::vector<uint32_t> keys(3), vals(3);
  for (size_t t = 0; t < ones.size(); ++t) md::ones_pairs_body(t, ones.data(), cls.data(), keys.data(), vals.data());
  for (size_t t = 0; t < ones.size(); ++t) {
    EXPECT_EQ(keys[t], 1u);  // window 0 << c | |d| = 1
    EXPECT_EQ(vals[t] & ~md::kSignBit, ones[t]);
  }
  EXPECT_EQ(vals[0] & md::kSignBit, 0u);
  EXPECT_EQ(vals[1] & md::kSignBit, md::kSignBit);  // -1
  EXPECT_EQ(vals[2] & md::kSignBit, 0u);
}

// A witness-like mix (mostly 0 and +-1) on a key with identity points sorts
// W pairs per other term and one per +-1, none per zero term (scalar 0 or
// identity point); the sum is still the CPU's.
TEST(CudaMsmSplit, ZerosAndOnesLeaveTheSortAndTheSumIsUnchanged) {
  PP_SEEDED_RNG(rng);
  const size_t n = 3000;
  auto pts = msm_test_points<bls12_381::G1Cfg>(n, rng);
  spoil_points(pts, rng);
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const unsigned k = unsigned(rng() % 10);
    x = k < 5 ? Fr::zero() : k < 8 ? Fr::one() : k == 8 ? -Fr::one() : Fr::random(rng);
  }
  MsmEmuStats st;
  expect_matches<bls12_381::G1Cfg>(pts, s, {}, &st);
  size_t zeros = 0, ones = 0, identities = 0;
  for (size_t i = 0; i < n; ++i) {
    identities += pts[i].is_identity();
    if (pts[i].is_identity() || s[i].is_zero())
      ++zeros;
    else
      ones += s[i] == Fr::one() || s[i] == -Fr::one();
  }
  EXPECT_GT(identities, 100u);  // spoil_points: about 1 in 16
  EXPECT_EQ(st.ones, ones);
  EXPECT_EQ(st.others, n - zeros - ones);
  const unsigned windows = (255 + st.c - 1) / st.c;
  EXPECT_EQ(st.pairs, st.others * windows + st.ones);  // n * windows before the split
  EXPECT_LT(st.pairs * 5, n * windows);
  // Small groups: the ones ride in group 0 only.
  expect_matches<bls12_381::G1Cfg>(pts, s, md::PlanRequest{8, 4, 0, 2 * (n - zeros)}, &st);
  EXPECT_GT(st.groups, 1u);
}

TEST(CudaMsmSplit, OnlyOnesOrOnlyZeros) {
  PP_SEEDED_RNG(rng);
  const size_t n = 777;
  const auto pts = msm_test_points<bls12_381::G2Cfg>(n, rng);
  std::vector<Fr> s(n);
  for (auto& x : s) x = rng() % 2 ? Fr::one() : -Fr::one();
  MsmEmuStats st;
  expect_matches<bls12_381::G2Cfg>(pts, s, {}, &st);
  EXPECT_EQ(st.others, 0u);
  EXPECT_EQ(st.ones, n);
  EXPECT_EQ(st.groups, 1u);
  EXPECT_EQ(st.pairs, n);
  expect_matches<bls12_381::G2Cfg>(pts, s, md::PlanRequest{3, 2, 2, 1}, &st);  // tiny groups asked: still one
  EXPECT_EQ(st.groups, 1u);
  std::fill(s.begin(), s.end(), Fr::zero());
  EXPECT_TRUE(emulate_msm<bls12_381::G2Cfg>(pts, s, {}, &st).is_identity());
  EXPECT_EQ(st.groups, 0u);
  EXPECT_EQ(st.pairs, 0u);
}

// A key's absent wires: random scalars on a G2 key whose every other point
// is the identity (as in a snarkjs B2 section) sort only the other half.
TEST(CudaMsmSplit, IdentityPointsLeaveTheSort) {
  PP_SEEDED_RNG(rng);
  const size_t n = 600;
  auto pts = msm_test_points<bls12_381::G2Cfg>(n, rng);
  for (size_t i = 0; i < n; i += 2) pts[i] = bls12_381::G2Affine::identity();
  const auto s = random_scalars(n, rng);
  MsmEmuStats st;
  expect_matches<bls12_381::G2Cfg>(pts, s, {}, &st);
  EXPECT_EQ(st.others, n / 2);
  EXPECT_EQ(st.ones, 0u);
}

// ----- helpers ------------------------------------------------------------------

TEST(CudaMsmPlan, FindRunSkipsRunsWithoutTasks) {
  // ntasks = {2, 0, 0, 3, 1, 0} -> toff = {0, 2, 2, 2, 5, 6}
  const uint32_t toff[] = {0, 2, 2, 2, 5, 6};
  const uint32_t want[] = {0, 0, 3, 3, 3, 4};
  for (uint32_t t = 0; t < 6; ++t) EXPECT_EQ(md::find_run(toff, 6, t), want[t]) << "t=" << t;
}

TEST(CudaMsmPlan, MulSmall) {
  PP_SEEDED_RNG(rng);
  const auto pts = msm_test_points<bls12_381::G1Cfg>(1, rng);
  const auto x = ec::Xyzz<bls12_381::G1Cfg>::from_affine(pts[0]);
  for (uint32_t k : {0u, 1u, 2u, 3u, 64u, 131008u, 0xffffffffu}) {
    const auto want = ec::Jacobian<bls12_381::G1Cfg>::from_affine(pts[0]).mul(ff::Limbs<1>{k});
    EXPECT_TRUE(md::mul_small(x, k).to_jacobian() == want) << "k=" << k;
  }
}

// ----- whole MSM, G1 ----------------------------------------------------------

TEST(CudaMsmEmulation, G1RandomScalarsAcrossSizes) {
  PP_SEEDED_RNG(rng);
  const auto all = msm_test_points<bls12_381::G1Cfg>(4096, rng);
  const auto scal = random_scalars(4096, rng);
  for (size_t n : {0, 1, 2, 3, 255, 256, 257, 1023, 1025, 4096}) {
    std::span<const bls12_381::G1Affine> p(all.data(), n);
    std::span<const Fr> s(scal.data(), n);
    expect_matches<bls12_381::G1Cfg>(p, s, md::PlanRequest{});
  }
}

TEST(CudaMsmEmulation, G1SkewedScalarsAndSpoiltPoints) {
  PP_SEEDED_RNG(rng);
  auto all = msm_test_points<bls12_381::G1Cfg>(4096, rng);
  spoil_points(all, rng);
  const auto scal = skewed_scalars(4096, rng);
  for (size_t n : {1, 2, 3, 255, 256, 257, 1023, 1025, 4096}) {
    std::span<const bls12_381::G1Affine> p(all.data(), n);
    std::span<const Fr> s(scal.data(), n);
    expect_matches<bls12_381::G1Cfg>(p, s, md::PlanRequest{});
    expect_matches<bls12_381::G1Cfg>(p, s, md::PlanRequest{0, 2});  // L = 2: deep split levels
  }
}

TEST(CudaMsmEmulation, G1WindowSizesFromTwoToSixteenBits) {
  PP_SEEDED_RNG(rng);
  auto pts = msm_test_points<bls12_381::G1Cfg>(257, rng);
  spoil_points(pts, rng);
  auto scal = random_scalars(257, rng);
  for (size_t i = 0; i < scal.size(); i += 5) scal[i] = skewed_scalars(1, rng)[0];
  for (unsigned c : {2u, 3u, 4u, 7u, 8u, 9u, 12u, 13u, 15u, 16u}) {
    expect_matches<bls12_381::G1Cfg>(pts, scal, md::PlanRequest{c});
    if (c <= 13) expect_matches<bls12_381::G1Cfg>(pts, scal, md::PlanRequest{c, 3, 2});  // S = 2: many segments
  }
}

TEST(CudaMsmEmulation, G1OneBucketOfAThousandEntriesSplitsInLevels) {
  PP_SEEDED_RNG(rng);
  const auto pts = msm_test_points<bls12_381::G1Cfg>(1000, rng);
  std::vector<Fr> ones(1000, Fr::one());
  MsmEmuStats st;
  expect_matches<bls12_381::G1Cfg>(pts, ones, md::PlanRequest{0, 2}, &st);
  EXPECT_EQ(st.max_levels, 10u);  // ceil(log2 1000)
  EXPECT_EQ(st.max_tasks, 500u);
  // Every term in one bucket with both signs and equal points: P + P and P - P.
  std::vector<bls12_381::G1Affine> same(1000, pts[0]);
  std::vector<Fr> signs(1000);
  for (size_t i = 0; i < signs.size(); ++i) signs[i] = i % 3 == 0 ? -Fr::one() : Fr::one();
  expect_matches<bls12_381::G1Cfg>(same, signs, md::PlanRequest{0, 2});
  expect_matches<bls12_381::G1Cfg>(same, signs, md::PlanRequest{0, 7});
  // All scalars zero, or all points the identity: nothing to add.
  std::vector<Fr> zeros(1000, Fr::zero());
  EXPECT_TRUE(emulate_msm<bls12_381::G1Cfg>(pts, zeros, md::PlanRequest{}).is_identity());
  std::vector<bls12_381::G1Affine> none(1000, bls12_381::G1Affine::identity());
  EXPECT_TRUE(emulate_msm<bls12_381::G1Cfg>(none, ones, md::PlanRequest{}).is_identity());
}

TEST(CudaMsmEmulation, G1WindowGroups) {
  PP_SEEDED_RNG(rng);
  const size_t n = 700;
  const auto pts = msm_test_points<bls12_381::G1Cfg>(n, rng);
  const auto scal = random_scalars(n, rng);
  MsmEmuStats st;
  // 3 windows a group (W = 32 at c = 8 -> 11 groups, the last of 2).
  expect_matches<bls12_381::G1Cfg>(pts, scal, md::PlanRequest{0, 0, 0, 3 * n}, &st);
  EXPECT_EQ(st.groups, 11u);
  expect_matches<bls12_381::G1Cfg>(pts, scal, md::PlanRequest{11, 4, 0, n}, &st);  // one window a group
  EXPECT_EQ(st.groups, 24u);
}

// ----- whole MSM, G2 ----------------------------------------------------------

TEST(CudaMsmEmulation, G2RandomAndSkewed) {
  PP_SEEDED_RNG(rng);
  auto all = msm_test_points<bls12_381::G2Cfg>(300, rng);
  const auto rnd = random_scalars(300, rng);
  for (size_t n : {0, 1, 2, 3, 255, 257}) {
    std::span<const bls12_381::G2Affine> p(all.data(), n);
    expect_matches<bls12_381::G2Cfg>(p, std::span<const Fr>(rnd.data(), n), md::PlanRequest{});
  }
  spoil_points(all, rng);
  const auto skw = skewed_scalars(300, rng);
  for (size_t n : {3, 257, 300}) {
    std::span<const bls12_381::G2Affine> p(all.data(), n);
    std::span<const Fr> s(skw.data(), n);
    expect_matches<bls12_381::G2Cfg>(p, s, md::PlanRequest{0, 2});
    expect_matches<bls12_381::G2Cfg>(p, s, md::PlanRequest{3, 3, 2, 2 * n});
    expect_matches<bls12_381::G2Cfg>(p, s, md::PlanRequest{12});
  }
}

}  // namespace
}  // namespace proofpipe::test
