// The CUDA MSM's per-thread bodies (proofpipe/cuda/msm_kernels.hpp) run on
// the host through the emulated driver (msm_emulation.hpp), against the CPU
// MSM of core/ (msm::msm_g1 / msm_g2): random and skewed scalars (0, 1,
// r-1, duplicates), identity and opposite points, window sizes from 2 to
// 16 bits, window groups, and tasks of L = 2 so a bucket of 1000 entries
// goes through 10 levels of split sums. Booth digits are checked with GMP.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "msm_emulation.hpp"
#include "proofpipe/msm/msm.hpp"
#include "support/gmp_ref.hpp"
#include "support/msm_inputs.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace md = cuda::msm_detail;
using ff::Fr;

template <class Cfg>
void expect_matches(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s, const md::Plan& plan,
                    MsmEmuStats* stats = nullptr) {
  const auto want = cpu_msm<Cfg>(p, s);
  const auto got = emulate_msm<Cfg>(p, s, plan, stats);
  EXPECT_TRUE(got == want) << "n=" << p.size() << " c=" << plan.c << " L=" << plan.task_len
                           << " S=" << plan.segment << " groups of " << plan.group_windows;
}

// ----- digits ---------------------------------------------------------------

TEST(CudaMsmDigits, BoothDigitsSumToTheFoldedScalar) {
  PP_SEEDED_RNG(rng);
  const ff::Limbs<4> r = Fr::C::kP;
  const mpz_class r_z = to_mpz(r), half_z = to_mpz(half_r());
  std::vector<ff::Limbs<4>> ks = {{0, 0, 0, 0}, {1, 0, 0, 0}, half_r(), ff::limbs_sub_u64(r, 1)};
  ff::Limbs<4> half_plus = half_r();
  half_plus[0] += 1;  // (r+1)/2: the low limb of (r-1)/2 is not all ones, no carry
  ks.push_back(half_plus);
  for (int i = 0; i < 200; ++i) ks.push_back(Fr::random(rng).to_canonical());
  for (const auto& k0 : ks) {
    ff::Limbs<4> k = k0;
    const uint32_t neg = md::fold_scalar_hd(k);
    const mpz_class k0_z = to_mpz(k0), k_z = to_mpz(k);
    ASSERT_LE(k_z, half_z);
    ASSERT_EQ(neg != 0, k0_z > half_z);
    ASSERT_EQ(neg ? r_z - k0_z : k0_z, k_z);
    for (unsigned c : {2u, 3u, 5u, 8u, 11u, 13u, 16u, 17u, 18u, 20u}) {
      const unsigned windows = (255 + c - 1) / c;
      mpz_class sum = 0;
      for (unsigned j = 0; j < windows; ++j) {
        const int32_t d = md::booth_digit_hd(k, j, c);
        ASSERT_LE(std::abs(d), int32_t(1) << (c - 1)) << "c=" << c << " j=" << j;
        mpz_class term = d;
        mpz_mul_2exp(term.get_mpz_t(), term.get_mpz_t(), j * c);
        sum += term;
      }
      ASSERT_EQ(sum, k_z) << "c=" << c;
    }
  }
}

TEST(CudaMsmDigits, PairsEncodeWindowBucketIndexAndSign) {
  PP_SEEDED_RNG(rng);
  const unsigned c = 5, j0 = 3, jn = 4;
  const size_t n = 64;
  std::vector<Fr> s = random_scalars(n, rng);
  s[0] = Fr::zero();
  s[1] = -Fr::one();
  std::vector<uint32_t> keys(n * jn), vals(n * jn);
  for (size_t i = 0; i < n; ++i) md::digits_body(i, s.data(), n, c, j0, jn, keys.data(), vals.data());
  for (size_t i = 0; i < n; ++i) {
    ff::Limbs<4> k = s[i].to_canonical();
    const uint32_t neg = md::fold_scalar_hd(k);
    for (unsigned w = 0; w < jn; ++w) {
      const int32_t d = md::booth_digit_hd(k, j0 + w, c);
      const uint32_t key = keys[w * n + i], val = vals[w * n + i];
      EXPECT_EQ(key >> c, w);
      EXPECT_EQ(int32_t(key & 31), std::abs(d));
      EXPECT_EQ(val & ~md::kSignBit, i);
      if (d != 0) {
        EXPECT_EQ((val >> 31) != 0, (neg != 0) != (d < 0));
      }
    }
  }
  for (unsigned w = 0; w < jn; ++w) EXPECT_EQ(keys[w * n + 0] & 31, 0u);  // scalar 0: no bucket
}

// ----- plan and helpers -----------------------------------------------------

TEST(CudaMsmPlan, WindowsGroupsAndKeyBits) {
  EXPECT_EQ(md::choose_window_bits(1), 8u);
  EXPECT_EQ(md::choose_window_bits(size_t(1) << 20), 14u);
  EXPECT_EQ(md::choose_window_bits(size_t(1) << 24), 18u);
  EXPECT_EQ(md::choose_window_bits(size_t(1) << 27), 18u);
  const md::Plan p24 = md::make_plan(size_t(1) << 24);
  EXPECT_EQ(p24.windows, 15u);
  EXPECT_EQ(p24.group_windows, 8u);  // 2^27 pairs a group
  EXPECT_EQ(p24.key_bits, 18u + 3u);
  EXPECT_EQ(p24.task_len, 64u);
  EXPECT_EQ(p24.segment, 64u);
  const md::Plan p28 = md::make_plan(size_t(1) << 28);
  EXPECT_EQ(p28.group_windows, 1u);
  EXPECT_EQ(p28.key_bits, 18u);
  for (unsigned c = 2; c <= 20; ++c) {
    const md::Plan p = md::make_plan(1000, c);
    EXPECT_GE(p.windows * c, 255u);
    EXPECT_LE(p.key_bits, 32u);
    EXPECT_LE(p.segment, p.buckets);
    EXPECT_EQ(p.buckets % p.segment, 0u);
  }
}

TEST(CudaMsmPlan, FindRunSkipsRunsWithoutTasks) {
  // ntasks = {2, 0, 0, 3, 1, 0} -> toff = {0, 2, 2, 2, 5, 6}
  const uint32_t toff[] = {0, 2, 2, 2, 5, 6};
  const uint32_t want[] = {0, 0, 3, 3, 3, 4};
  for (uint32_t t = 0; t < 6; ++t) EXPECT_EQ(md::find_run(toff, 6, t), want[t]) << "t=" << t;
}

TEST(CudaMsmPlan, MulSmall) {
  PP_SEEDED_RNG(rng);
  const auto pts = msm_test_points<ec::G1Cfg>(1, rng);
  const auto x = ec::Xyzz<ec::G1Cfg>::from_affine(pts[0]);
  for (uint32_t k : {0u, 1u, 2u, 3u, 64u, 131008u, 0xffffffffu}) {
    const auto want = ec::Jacobian<ec::G1Cfg>::from_affine(pts[0]).mul(ff::Limbs<1>{k});
    EXPECT_TRUE(md::mul_small(x, k).to_jacobian() == want) << "k=" << k;
  }
}

// ----- whole MSM, G1 ----------------------------------------------------------

TEST(CudaMsmEmulation, G1RandomScalarsAcrossSizes) {
  PP_SEEDED_RNG(rng);
  const auto all = msm_test_points<ec::G1Cfg>(4096, rng);
  const auto scal = random_scalars(4096, rng);
  for (size_t n : {0, 1, 2, 3, 255, 256, 257, 1023, 1025, 4096}) {
    std::span<const ec::G1Affine> p(all.data(), n);
    std::span<const Fr> s(scal.data(), n);
    expect_matches<ec::G1Cfg>(p, s, md::make_plan(n));
  }
}

TEST(CudaMsmEmulation, G1SkewedScalarsAndSpoiltPoints) {
  PP_SEEDED_RNG(rng);
  auto all = msm_test_points<ec::G1Cfg>(4096, rng);
  spoil_points(all, rng);
  const auto scal = skewed_scalars(4096, rng);
  for (size_t n : {1, 2, 3, 255, 256, 257, 1023, 1025, 4096}) {
    std::span<const ec::G1Affine> p(all.data(), n);
    std::span<const Fr> s(scal.data(), n);
    expect_matches<ec::G1Cfg>(p, s, md::make_plan(n));
    expect_matches<ec::G1Cfg>(p, s, md::make_plan(n, 0, 2));  // L = 2: deep split levels
  }
}

TEST(CudaMsmEmulation, G1WindowSizesFromTwoToSixteenBits) {
  PP_SEEDED_RNG(rng);
  auto pts = msm_test_points<ec::G1Cfg>(257, rng);
  spoil_points(pts, rng);
  auto scal = random_scalars(257, rng);
  for (size_t i = 0; i < scal.size(); i += 5) scal[i] = skewed_scalars(1, rng)[0];
  for (unsigned c : {2u, 3u, 4u, 7u, 8u, 9u, 12u, 13u, 15u, 16u}) {
    expect_matches<ec::G1Cfg>(pts, scal, md::make_plan(pts.size(), c));
    if (c <= 13) expect_matches<ec::G1Cfg>(pts, scal, md::make_plan(pts.size(), c, 3, 2));  // S = 2: many segments
  }
}

TEST(CudaMsmEmulation, G1OneBucketOfAThousandEntriesSplitsInLevels) {
  PP_SEEDED_RNG(rng);
  const auto pts = msm_test_points<ec::G1Cfg>(1000, rng);
  std::vector<Fr> ones(1000, Fr::one());
  MsmEmuStats st;
  expect_matches<ec::G1Cfg>(pts, ones, md::make_plan(1000, 0, 2), &st);
  EXPECT_EQ(st.max_levels, 10u);  // ceil(log2 1000)
  EXPECT_EQ(st.max_tasks, 500u);
  // Every term in one bucket with both signs and equal points: P + P and P - P.
  std::vector<ec::G1Affine> same(1000, pts[0]);
  std::vector<Fr> signs(1000);
  for (size_t i = 0; i < signs.size(); ++i) signs[i] = i % 3 == 0 ? -Fr::one() : Fr::one();
  expect_matches<ec::G1Cfg>(same, signs, md::make_plan(1000, 0, 2));
  expect_matches<ec::G1Cfg>(same, signs, md::make_plan(1000, 0, 7));
  // All scalars zero, or all points the identity: nothing to add.
  std::vector<Fr> zeros(1000, Fr::zero());
  EXPECT_TRUE(emulate_msm<ec::G1Cfg>(pts, zeros, md::make_plan(1000)).is_identity());
  std::vector<ec::G1Affine> none(1000, ec::G1Affine::identity());
  EXPECT_TRUE(emulate_msm<ec::G1Cfg>(none, ones, md::make_plan(1000)).is_identity());
}

TEST(CudaMsmEmulation, G1WindowGroups) {
  PP_SEEDED_RNG(rng);
  const size_t n = 700;
  const auto pts = msm_test_points<ec::G1Cfg>(n, rng);
  const auto scal = random_scalars(n, rng);
  MsmEmuStats st;
  // 3 windows a group (W = 32 at c = 8 -> 11 groups, the last of 2).
  expect_matches<ec::G1Cfg>(pts, scal, md::make_plan(n, 0, 0, 0, 3 * n), &st);
  EXPECT_EQ(st.groups, 11u);
  expect_matches<ec::G1Cfg>(pts, scal, md::make_plan(n, 11, 4, 0, n), &st);  // one window a group
  EXPECT_EQ(st.groups, 24u);
}

// ----- whole MSM, G2 ----------------------------------------------------------

TEST(CudaMsmEmulation, G2RandomAndSkewed) {
  PP_SEEDED_RNG(rng);
  auto all = msm_test_points<ec::G2Cfg>(300, rng);
  const auto rnd = random_scalars(300, rng);
  for (size_t n : {0, 1, 2, 3, 255, 257}) {
    std::span<const ec::G2Affine> p(all.data(), n);
    expect_matches<ec::G2Cfg>(p, std::span<const Fr>(rnd.data(), n), md::make_plan(n));
  }
  spoil_points(all, rng);
  const auto skw = skewed_scalars(300, rng);
  for (size_t n : {3, 257, 300}) {
    std::span<const ec::G2Affine> p(all.data(), n);
    std::span<const Fr> s(skw.data(), n);
    expect_matches<ec::G2Cfg>(p, s, md::make_plan(n, 0, 2));
    expect_matches<ec::G2Cfg>(p, s, md::make_plan(n, 3, 3, 2, 2 * n));
    expect_matches<ec::G2Cfg>(p, s, md::make_plan(n, 12));
  }
}

}  // namespace
}  // namespace proofpipe::test
