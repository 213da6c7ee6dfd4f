// MSM (msm/msm.hpp) against naive double-and-add sums for n = 0..64 with edge
// scalars (0, 1, r-1, (r+-1)/2) and identity points, adversarial bucket
// patterns (equal digits, equal and opposite points) for both accumulation
// engines, and MSM(x, P) = MSM(x[:k], P[:k]) + MSM(x[k:], P[k:]) at 2^16 (G1)
// and 2^12 (G2). Booth digits and the fold are checked against GMP.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/msm/digits.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/tiles.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fr;
using msm::Accumulation;
using msm::MsmOptions;

using bls12_381::generator;

template <class Cfg>
ec::Jacobian<Cfg> run_msm(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s, const MsmOptions& o = {}) {
  if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>) {
    return msm::msm_g1(p, s, o);
  } else {
    return msm::msm_g2(p, s, o);
  }
}

template <class Cfg>
ec::Jacobian<Cfg> naive_msm(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s) {
  auto acc = ec::Jacobian<Cfg>::identity();
  for (size_t i = 0; i < p.size(); ++i) acc += bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(p[i]), s[i]);
  return acc;
}

// n points: chunks of consecutive multiples s_c*G + i*G with a random s_c
// per chunk of 1024, normalised with one inversion per chunk (parallel).
template <class Cfg, class Rng>
std::vector<ec::Affine<Cfg>> make_points(size_t n, Rng& rng) {
  constexpr size_t kChunk = 1024;
  const size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Fr> starts(chunks);
  for (auto& s : starts) s = Fr::random(rng);
  std::vector<ec::Affine<Cfg>> out(n);
  const auto g = generator<Cfg>();
  parallel_for(chunks, [&](size_t c) {
    const size_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
    std::vector<ec::Jacobian<Cfg>> jac(hi - lo);
    auto p = bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(g), starts[c]);
    for (auto& j : jac) j = p = p.add_affine(g);
    ec::batch_to_affine<Cfg>(jac, std::span(out).subspan(lo, hi - lo));
  });
  return out;
}

// Scalars that exercise the folding and the +-1 path, mixed with random ones.
template <class Rng>
Fr edge_or_random(Rng& rng) {
  const unsigned pick = unsigned(rng() % 10);
  if (pick < 5) return msm_edge_scalar<Fr>(pick);
  return pick == 5 ? Fr::from_u64(rng() % 5 + 2) : Fr::random(rng);
}

template <class Cfg>
class MsmTest : public ::testing::Test {};
using Groups = ::testing::Types<bls12_381::G1Cfg, bls12_381::G2Cfg>;
TYPED_TEST_SUITE(MsmTest, Groups);

// Every n in 0..64 (G2: 0..16, then every 4th; its field is 3x slower): the
// automatic plan and two random forced plans (window 1..8, one per engine,
// 1..3 point splits; wider windows only add empty buckets at this size).
// Scalars and identity positions are drawn once for index 0..63, so the
// naive sum grows by one scalar multiplication per n (64, not 2080).
TYPED_TEST(MsmTest, MatchesNaiveSmall) {
  using Cfg = TypeParam;
  PP_SEEDED_RNG(rng);
  constexpr size_t kMax = 64;
  auto p = make_points<Cfg>(kMax, rng);
  std::vector<Fr> s(kMax);
  for (size_t i = 0; i < kMax; ++i) {
    s[i] = edge_or_random(rng);
    if (rng() % 8 == 0) p[i] = ec::Affine<Cfg>::identity();
  }
  auto want = ec::Jacobian<Cfg>::identity();
  constexpr bool kG1 = std::is_same_v<Cfg, bls12_381::G1Cfg>;
  for (size_t n = 0; n <= kMax; ++n) {
    if (n > 0) want += bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(p[n - 1]), s[n - 1]);
    if (!kG1 && n > 16 && n % 4 != 0) continue;
    std::span<const ec::Affine<Cfg>> pn(p.data(), n);
    std::span<const Fr> sn(s.data(), n);
    EXPECT_EQ(run_msm<Cfg>(pn, sn), want) << "n=" << n;
    for (int rep = 0; rep < 2; ++rep) {
      MsmOptions o;
      o.window_bits = 1 + unsigned(rng() % 8);
      o.accumulation = rep == 0 ? Accumulation::kXyzz : Accumulation::kBatchAffine;
      o.point_splits = 1 + unsigned(rng() % 3);
      EXPECT_EQ(run_msm<Cfg>(pn, sn, o), want)
          << "n=" << n << " c=" << o.window_bits << " acc=" << int(o.accumulation) << " splits=" << o.point_splits;
    }
  }
}

// Bucket edge cases in one batch: the same point twice (tangent), P and -P
// (cancellation), equal scalars on many points (one bucket per window, so
// deferrals overflow into XYZZ), and identity points among them. Per round
// the terms sum to k * sum(base), so the expected value is one scalar mul.
TYPED_TEST(MsmTest, AdversarialBuckets) {
  using Cfg = TypeParam;
  PP_SEEDED_RNG(rng);
  constexpr int kRounds = 30;
  auto base = make_points<Cfg>(8, rng);
  std::vector<ec::Affine<Cfg>> p;
  std::vector<Fr> s;
  const Fr k = Fr::random(rng);
  auto base_sum = ec::Jacobian<Cfg>::identity();
  for (const auto& b : base) base_sum += b;
  for (int round = 0; round < kRounds; ++round) {
    for (const auto& b : base) {
      for (const auto& q : {b, -b, b}) {  // b - b + b: cancel, then re-fill
        p.push_back(q);
        s.push_back(k);
      }
    }
    p.push_back(ec::Affine<Cfg>::identity());
    s.push_back(Fr::random(rng));
  }
  const auto want = bls12_381::scalar_mul(base_sum, k * Fr::from_u64(kRounds));
  for (unsigned c : {2u, 5u, 11u}) {
    for (Accumulation a : {Accumulation::kXyzz, Accumulation::kBatchAffine}) {
      MsmOptions o;
      o.window_bits = c;
      o.accumulation = a;
      EXPECT_EQ(run_msm<Cfg>(p, s, o), want) << "c=" << c << " acc=" << int(a);
    }
  }
  // The same point twice in one batch takes the tangent branch.
  std::vector<ec::Affine<Cfg>> twice = {base[0], base[0], base[1], base[1]};
  std::vector<Fr> ks = {k, k, k, k};
  MsmOptions o;
  o.accumulation = Accumulation::kBatchAffine;
  o.window_bits = 8;
  const auto b01 = ec::Jacobian<Cfg>::from_affine(base[0]).add_affine(base[1]);
  EXPECT_EQ(run_msm<Cfg>(twice, ks, o), bls12_381::scalar_mul(b01.dbl(), k));
}

// MSM(x, P) = MSM(x[:k], P[:k]) + MSM(x[k:], P[k:]) at a size where the
// automatic plan uses batch-affine buckets and splits windows over points.
TYPED_TEST(MsmTest, SplitSumLarge) {
  using Cfg = TypeParam;
  PP_SEEDED_RNG(rng);
  const size_t n = std::is_same_v<Cfg, bls12_381::G1Cfg> ? (size_t(1) << 16) : (size_t(1) << 12);
  auto p = make_points<Cfg>(n, rng);
  std::vector<Fr> s(n);
  for (auto& x : s) x = rng() % 16 == 0 ? edge_or_random(rng) : Fr::random(rng);
  const size_t k = 1 + rng() % (n - 1);
  msm::MsmStats stats;
  MsmOptions o;
  o.stats = &stats;
  const auto whole = run_msm<Cfg>(p, s, o);
  if (std::is_same_v<Cfg, bls12_381::G1Cfg>) {
    EXPECT_EQ(stats.accumulation, Accumulation::kBatchAffine);
    EXPECT_GT(stats.batch_adds, 0u);
  }
  std::span<const ec::Affine<Cfg>> ps(p);
  std::span<const Fr> ss(s);
  const auto left = run_msm<Cfg>(ps.first(k), ss.first(k));
  const auto right = run_msm<Cfg>(ps.subspan(k), ss.subspan(k));
  EXPECT_EQ(whole, left + right) << "k=" << k;
  EXPECT_FALSE(whole.is_identity());
}

TEST(Msm, CanonicalScalarsMatchMontgomeryAndReduceModR) {
  PP_SEEDED_RNG(rng);
  auto p = make_points<bls12_381::G1Cfg>(300, rng);
  std::vector<Fr> s(p.size());
  std::vector<ff::Limbs<4>> canon(p.size());
  for (size_t i = 0; i < s.size(); ++i) {
    s[i] = edge_or_random(rng);
    canon[i] = s[i].to_canonical();
    // k + r and k + 2r are the same scalar when they fit in 256 bits.
    ff::Limbs<4> t = canon[i];
    if (i % 3 != 0 && ff::limbs_add(t, Fr::C::kP) == 0) canon[i] = t;
  }
  msm::MsmStats stats;
  MsmOptions o;
  o.stats = &stats;
  EXPECT_EQ(msm::msm_g1_canonical(p, canon, o), msm::msm_g1(p, s));
  EXPECT_LE(stats.skipped + stats.ones, p.size());
  EXPECT_TRUE(msm::msm_g1(std::span<const bls12_381::G1Affine>(), std::span<const Fr>()).is_identity());
}

TEST(Msm, ZeroAndOneScalarsBypassBuckets) {
  PP_SEEDED_RNG(rng);
  auto p = make_points<bls12_381::G1Cfg>(1000, rng);
  std::vector<Fr> s(p.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = i % 2 ? Fr::zero() : (i % 4 ? Fr::one() : -Fr::one());
  msm::MsmStats stats;
  MsmOptions o;
  o.stats = &stats;
  EXPECT_EQ(msm::msm_g1(p, s, o), naive_msm<bls12_381::G1Cfg>(p, s));
  EXPECT_EQ(stats.skipped, 500u);
  EXPECT_EQ(stats.ones, 500u);
  EXPECT_EQ(stats.batch_adds, 0u);
}

// sum_j d_j 2^(jc) == k for k < 2^254 and every window width, |d_j| <= 2^(c-1).
TEST(MsmDigits, BoothDigitsReconstructScalar) {
  PP_SEEDED_RNG(rng);
  for (int iter = 0; iter < 200; ++iter) {
    ff::Limbs<4> k{rng(), rng(), rng(), rng() >> 2};
    if (iter == 0) k = {~0ull, ~0ull, ~0ull, ~0ull >> 2};  // 2^254 - 1
    for (unsigned c = 1; c <= 20; ++c) {
      mpz_class sum = 0;
      for (unsigned j = 0; j < msm::detail::window_count(c); ++j) {
        const int32_t d = msm::detail::booth_digit(k, j, c);
        ASSERT_LE(std::abs(d), 1 << (c - 1)) << "c=" << c;
        sum += mpz_class(d) << (j * c);
      }
      ASSERT_EQ(sum, to_mpz<4>(k)) << "c=" << c;
    }
  }
}

// fold_canonical (shared with the CUDA MSM) against GMP: k -> min(k, r - k)
// with the sign, at 0, 1, (r-1)/2, (r+1)/2, r-1 and random k.
TEST(MsmDigits, FoldCanonicalTakesTheSmallerOfKAndRMinusK) {
  PP_SEEDED_RNG(rng);
  const ff::Limbs<4> r = Fr::C::kP;
  const ff::Limbs<4> half = ff::limbs_shr(ff::limbs_sub_u64(r, 1), 1);
  const mpz_class r_z = to_mpz<4>(r), half_z = to_mpz<4>(half);
  ff::Limbs<4> half_plus = half;
  half_plus[0] += 1;  // (r+1)/2: the low limb of (r-1)/2 is not all ones, no carry
  std::vector<ff::Limbs<4>> ks = {{0, 0, 0, 0}, {1, 0, 0, 0}, half, half_plus, ff::limbs_sub_u64(r, 1)};
  for (int i = 0; i < 500; ++i) ks.push_back(Fr::random(rng).to_canonical());
  for (const auto& k0 : ks) {
    ff::Limbs<4> k = k0;
    const uint32_t neg = msm::detail::fold_canonical<bls12_381::FrParams>(k);
    const mpz_class k0_z = to_mpz<4>(k0), k_z = to_mpz<4>(k);
    ASSERT_LE(k_z, half_z);
    ASSERT_EQ(neg != 0, k0_z > half_z);
    ASSERT_EQ(neg ? r_z - k0_z : k0_z, k_z);
    const auto cls = msm::detail::folded_class(k);
    ASSERT_EQ(cls == msm::detail::ScalarClass::kZero, k_z == 0);
    ASSERT_EQ(cls == msm::detail::ScalarClass::kOne, k_z == 1);
  }
}

TEST(MsmPlan, WindowGrowsWithN) {
  unsigned prev = 0;
  for (unsigned lg = 4; lg <= 24; lg += 2) {
    const auto pl = msm::plan(size_t(1) << lg, 2);
    EXPECT_GE(pl.window_bits * pl.windows, 255u);
    EXPECT_GE(pl.window_bits, prev) << "lg=" << lg;
    prev = pl.window_bits;
  }
  EXPECT_EQ(msm::plan(size_t(1) << 18, 2).accumulation, Accumulation::kBatchAffine);
}

// Every window's tiles cover the term range exactly once, whatever the
// splits and tail cuts.
TEST(MsmPlan, TilesCoverEveryWindowOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (size_t m : {size_t(1), size_t(100), size_t(5000), size_t(1) << 18}) {
      for (unsigned splits : {0u, 1u, 3u}) {
        MsmOptions o;
        o.point_splits = splits;
        const auto pl = msm::plan(m, threads, o);
        const auto tiles = msm::detail::make_tiles(pl, m);
        std::vector<std::vector<std::pair<size_t, size_t>>> per(pl.windows);
        for (const auto& t : tiles) {
          ASSERT_LT(t.window, pl.windows);
          per[t.window].push_back({t.lo, t.hi});
        }
        for (auto& ranges : per) {
          std::sort(ranges.begin(), ranges.end());
          size_t at = 0;
          for (auto [lo, hi] : ranges) {
            EXPECT_EQ(lo, at);
            at = hi;
          }
          EXPECT_EQ(at, m) << "threads=" << threads << " m=" << m;
        }
      }
    }
  }
  // W = 17 windows (c = 15) on 2 threads: 16 whole windows plus one in halves.
  MsmOptions o;
  o.window_bits = 15;
  o.point_splits = 1;
  const auto pl = msm::plan(size_t(1) << 18, 2, o);
  EXPECT_EQ(pl.tail_tiles, 1u);
  EXPECT_EQ(msm::detail::make_tiles(pl, size_t(1) << 18).size(), 18u);
}

}  // namespace
}  // namespace proofpipe::test
