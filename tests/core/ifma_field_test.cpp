// The eight-lane AVX-512 IFMA field (ff/ifma/field8.hpp) against GMP and
// against the scalar ff::Field, for all four fields: random values and edge
// values (0, 1, p-1, and the redundant forms p .. 2p-1 the radix-2^52 form
// allows) in every lane; the batched inversion with zeros among the inputs;
// and the PROOFPIPE_SIMD=off dispatch. Without IFMA on this CPU the vector
// tests skip and say why; each test logs the path that ran.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "proofpipe/ff/ifma/batch_affine.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ff/ifma/field8.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/ifma_lanes.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace ifma = ff::ifma;
using namespace ifma_lanes;

#if defined(PP_IFMA_COMPILED)

template <class P>
class IfmaFieldTest : public ::testing::Test {};
using Params = ::testing::Types<bls12_381::FqParams, bls12_381::FrParams, bn254::FqParams, bn254::FrParams>;
TYPED_TEST_SUITE(IfmaFieldTest, Params);

TYPED_TEST(IfmaFieldTest, RawOpsAgainstGmpInEveryLane) {
  using P = TypeParam;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus<P>();
  const mpz_class rinv = r52_inverse<P>();
  const auto vals = raw_values<P>(rng, 12);
  for_all_pairs_in_all_lanes<P>(vals, [&](const ifma::Pack<P>& a, const ifma::Pack<P>& b) {
    ifma::Pack<P> sum, diff, prod, sq;
    ifma::pack_add(sum, a, b);
    ifma::pack_sub(diff, a, b);
    ifma::pack_mul(prod, a, b);
    ifma::pack_sqr(sq, a);
    for (int e = 0; e < 8; ++e) {
      const mpz_class x = lane_value(a, e), y = lane_value(b, e);
      SCOPED_TRACE(::testing::Message() << "lane " << e << " a=" << x << " b=" << y);
      for (const auto* res : {&sum, &diff, &prod, &sq}) expect_reduced(*res, e);
      ASSERT_EQ(lane_value(sum, e) % p, (x + y) % p);
      ASSERT_EQ(lane_value(diff, e) % p, ((x - y) % p + p) % p);
      ASSERT_EQ(lane_value(prod, e) % p, (x * y * rinv) % p);  // REDC: a*b/R52
      ASSERT_EQ(lane_value(sq, e) % p, (x * x * rinv) % p);
    }
  });
}

// Scalar elements for the vector-vs-scalar tests: ff::Field's raw edges plus
// random ones.
template <class P, class Rng>
std::vector<ff::Field<P>> field_values(Rng& rng, int random_count) {
  using F = ff::Field<P>;
  std::vector<F> v = raw_edge_elements<F>();
  v.push_back(F::one());
  v.push_back(-F::one());
  for (int i = 0; i < random_count; ++i) v.push_back(F::random(rng));
  return v;
}

TYPED_TEST(IfmaFieldTest, ConversionIsExactInEveryLane) {
  using P = TypeParam;
  using F = ff::Field<P>;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus<P>();
  const auto vals = field_values<P>(rng, 100);
  for (size_t t = 0; t < vals.size(); ++t) {
    F in[8], out[8];
    for (int e = 0; e < 8; ++e) in[e] = vals[(t + e) % vals.size()];
    ifma::Pack<P> pk;
    ifma::pack_from_fields(pk, in);
    ifma::pack_to_fields(pk, out);
    for (int e = 0; e < 8; ++e) {
      expect_reduced(pk, e);
      // The IFMA form of x is x * R52 mod p, up to a multiple of p.
      ASSERT_EQ(lane_value(pk, e) % p, (value_of(in[e]) * r52<P>()) % p) << "lane " << e;
      ASSERT_EQ(out[e], in[e]) << "lane " << e;
    }
  }
  // Redundant forms [p, 2p) come back fully reduced.
  const auto raws = raw_values<P>(rng, 20);
  const mpz_class rinv = r52_inverse<P>();
  for (size_t t = 0; t < raws.size(); ++t) {
    ifma::Pack<P> pk{};
    for (int e = 0; e < 8; ++e) set_lane(pk, e, raws[(t + e) % raws.size()]);
    F out[8];
    ifma::pack_to_fields(pk, out);
    for (int e = 0; e < 8; ++e)
      ASSERT_EQ(value_of(out[e]), (lane_value(pk, e) * rinv) % p) << "lane " << e << " raw=" << lane_value(pk, e);
  }
}

TYPED_TEST(IfmaFieldTest, VectorMatchesScalarField) {
  using P = TypeParam;
  using F = ff::Field<P>;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const auto vals = field_values<P>(rng, 30);
  const size_t n = vals.size();
  for (size_t t = 0; t < n * n; ++t) {
    F a[8], b[8];
    for (int e = 0; e < 8; ++e) {
      const size_t q = (t + e * (n * n / 8 + 1)) % (n * n);
      a[e] = vals[q / n];
      b[e] = vals[q % n];
    }
    ASSERT_NO_FATAL_FAILURE(lanes_match_scalar<ifma::Pack<P>>(a, b));
  }
}

TYPED_TEST(IfmaFieldTest, BatchInverseAgainstScalarAndGmp) {
  using P = TypeParam;
  using F = ff::Field<P>;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus<P>();
  const auto edges = field_values<P>(rng, 0);
  for (size_t m : {size_t(1), size_t(3), size_t(17)}) {
    std::vector<F> xs(8 * m);
    for (auto& x : xs) x = F::random(rng);
    // Edges at spread positions, so each lands in several lanes and packs.
    for (size_t i = 0; i < edges.size(); ++i) xs[(i * 5 + m) % xs.size()] = edges[i];
    std::vector<ifma::Pack<P>> packs(m), scratch(m);
    for (size_t i = 0; i < m; ++i) ifma::pack_from_fields(packs[i], &xs[8 * i]);
    // The redundant zero p in one lane of the first pack: must invert to 0.
    set_lane(packs[0], 3, p);
    xs[3] = F::zero();
    ifma::batch_inverse(packs.data(), m, scratch.data());
    std::vector<F> inv(8 * m);
    for (size_t i = 0; i < m; ++i) {
      for (int e = 0; e < 8; ++e) expect_reduced(packs[i], e);
      ifma::pack_to_fields(packs[i], &inv[8 * i]);
    }
    for (size_t i = 0; i < xs.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "m=" << m << " element " << i << " lane " << i % 8);
      ASSERT_EQ(inv[i], xs[i].inverse());
      const mpz_class x = value_of(xs[i]);
      if (x == 0) {
        ASSERT_EQ(value_of(inv[i]), 0);
      } else {
        ASSERT_EQ((x * value_of(inv[i])) % p, 1);
      }
    }
  }
}

// The batch-affine kernel against the same formulas in scalar code: points
// of any coordinates (edges included), tangents and cancelling pairs in
// every lane, batch sizes that leave every count of padding lanes.
TYPED_TEST(IfmaFieldTest, BatchAffineAddMatchesScalarFormulas) {
  using P = TypeParam;
  using F = ff::Field<P>;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const auto edges = field_values<P>(rng, 0);
  add_matches_scalar_formulas<F>([&] { return rng() % 4 == 0 ? edges[rng() % edges.size()] : F::random(rng); }, rng);
}

#else
TEST(IfmaFieldTest, NotCompiled) { GTEST_SKIP() << "not an x86-64 GCC/Clang build: no IFMA kernels"; }
#endif  // PP_IFMA_COMPILED

TEST(IfmaDispatch, EnvironmentOffForcesScalar) {
  EXPECT_EQ(ifma::choose_simd_path(true, "off"), ifma::SimdPath::kScalar);
  EXPECT_EQ(ifma::choose_simd_path(true, nullptr), ifma::SimdPath::kIfma);
  EXPECT_EQ(ifma::choose_simd_path(true, "on"), ifma::SimdPath::kIfma);
  EXPECT_EQ(ifma::choose_simd_path(false, nullptr), ifma::SimdPath::kScalar);
  EXPECT_EQ(ifma::choose_simd_path(false, "on"), ifma::SimdPath::kScalar);  // never IFMA without the CPU

  const char* old = std::getenv("PROOFPIPE_SIMD");
  const std::string saved = old ? old : "";
  ASSERT_EQ(setenv("PROOFPIPE_SIMD", "off", 1), 0);
  EXPECT_EQ(ifma::detect_simd_path(), ifma::SimdPath::kScalar);
  ASSERT_EQ(unsetenv("PROOFPIPE_SIMD"), 0);
  const ifma::SimdPath native = ifma::detect_simd_path();
  EXPECT_EQ(native, ifma::cpu_has_ifma() ? ifma::SimdPath::kIfma : ifma::SimdPath::kScalar);
  std::printf("[ simd     ] cpu_has_ifma=%d, path without PROOFPIPE_SIMD: %s\n", int(ifma::cpu_has_ifma()),
              ifma::simd_path_name(native));
  if (old) setenv("PROOFPIPE_SIMD", saved.c_str(), 1);
}

}  // namespace
}  // namespace proofpipe::test
