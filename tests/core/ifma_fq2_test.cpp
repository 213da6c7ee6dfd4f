// The eight-lane Fq2 (ff/ifma/fq2x8.hpp) against GMP and against the scalar
// ff::Fq2T, for BN254's and BLS12-381's Fq2 (u^2 = -1 in both): product,
// square, sum and difference on raw radix-2^52 values with edges (0, 1,
// p-1, the redundant forms p .. 2p-1) in every lane of either coordinate,
// then on scalar Fq2 edge elements through the conversions; and the G2 use
// of the generic batch-affine kernel (ff/ifma/batch_affine.hpp) against the
// scalar formulas. Without IFMA on this CPU the tests skip and say why.
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/ff/ifma/batch_affine.hpp"
#include "proofpipe/ff/ifma/fq2x8.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/ifma_lanes.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace ifma = ff::ifma;
using namespace ifma_lanes;

#if defined(PP_IFMA_COMPILED)

template <class F2>
class IfmaFq2Test : public ::testing::Test {};
using Fq2Types = ::testing::Types<bn254::Fq2, bls12_381::Fq2>;
TYPED_TEST_SUITE(IfmaFq2Test, Fq2Types);

// Lane e of x as (c0, c1) raw integers, (a0 + a1 u) * (b0 + b1 u) reduced by
// u^2 = -1 and the product's division by R52.
TYPED_TEST(IfmaFq2Test, RawOpsAgainstGmpInEveryLane) {
  using P = typename TypeParam::Fq::Params;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus<P>(), rinv = r52_inverse<P>();
  auto mod = [&](const mpz_class& v) -> mpz_class { return ((v % p) + p) % p; };
  const auto vals = raw_values<P>(rng, 6);
  // Every pair (a, b) of raw values in every lane, as x = a + b u against
  // y = b + a u (cross terms a*a, b*b) and against y' = a + b u (x * x by
  // the general product), so each value meets each in both coordinates.
  for_all_pairs_in_all_lanes<P>(vals, [&](const ifma::Pack<P>& a, const ifma::Pack<P>& b) {
    const ifma::Pack2<P> x{a, b};
    for (const ifma::Pack2<P>& y : {ifma::Pack2<P>{b, a}, ifma::Pack2<P>{a, b}}) {
      ifma::Pack2<P> sum, diff, prod, sq;
      ifma::pack_add(sum, x, y);
      ifma::pack_sub(diff, x, y);
      ifma::pack_mul(prod, x, y);
      ifma::pack_sqr(sq, x);
      for (int e = 0; e < 8; ++e) {
        const mpz_class x0 = lane_value(x.c0, e), x1 = lane_value(x.c1, e);
        const mpz_class y0 = lane_value(y.c0, e), y1 = lane_value(y.c1, e);
        SCOPED_TRACE(::testing::Message()
                     << "lane " << e << " x=" << x0 << "+" << x1 << "u y=" << y0 << "+" << y1 << "u");
        for (const auto* r : {&sum, &diff, &prod, &sq}) {
          expect_reduced(r->c0, e);
          expect_reduced(r->c1, e);
        }
        ASSERT_EQ(mod(lane_value(sum.c0, e)), mod(x0 + y0));
        ASSERT_EQ(mod(lane_value(sum.c1, e)), mod(x1 + y1));
        ASSERT_EQ(mod(lane_value(diff.c0, e)), mod(x0 - y0));
        ASSERT_EQ(mod(lane_value(diff.c1, e)), mod(x1 - y1));
        ASSERT_EQ(mod(lane_value(prod.c0, e)), mod((x0 * y0 - x1 * y1) * rinv));
        ASSERT_EQ(mod(lane_value(prod.c1, e)), mod((x0 * y1 + x1 * y0) * rinv));
        ASSERT_EQ(mod(lane_value(sq.c0, e)), mod((x0 * x0 - x1 * x1) * rinv));
        ASSERT_EQ(mod(lane_value(sq.c1, e)), mod(2 * x0 * x1 * rinv));
      }
    }
  });
}

// Scalar Fq2 inputs: each raw Fq edge as (e, 0), (0, e) and (e, next edge),
// 1, -1, u, and random elements.
template <class F2, class Rng>
std::vector<F2> fq2_values(Rng& rng, int random_count) {
  using Fq = typename F2::Fq;
  const std::vector<Fq> edges = raw_edge_elements<Fq>();
  std::vector<F2> v = {F2::one(), -F2::one(), F2{Fq::zero(), Fq::one()}, F2{Fq::one(), -Fq::one()}};
  for (size_t i = 0; i < edges.size(); ++i) {
    v.push_back({edges[i], Fq::zero()});
    v.push_back({Fq::zero(), edges[i]});
    v.push_back({edges[i], edges[(i + 1) % edges.size()]});
  }
  for (int i = 0; i < random_count; ++i) v.push_back(F2::random(rng));
  return v;
}

// Through the conversions (x*R64 -> x*R52 and back): every value in every
// lane, once as the left operand against random partners, once as the right.
TYPED_TEST(IfmaFq2Test, VectorMatchesScalarFq2) {
  using F2 = TypeParam;
  using P = typename F2::Fq::Params;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const auto vals = fq2_values<F2>(rng, 64);
  const size_t n = vals.size();
  for (int side = 0; side < 2; ++side) {
    for (size_t t = 0; t < n; ++t) {
      F2 a[8], b[8];
      for (int e = 0; e < 8; ++e) {
        const F2 fixed = vals[(t + size_t(e)) % n], other = vals[rng() % n];
        a[e] = side == 0 ? fixed : other;
        b[e] = side == 0 ? other : fixed;
      }
      SCOPED_TRACE(::testing::Message() << "t=" << t << " side " << side);
      ASSERT_NO_FATAL_FAILURE(lanes_match_scalar<ifma::Pack2<P>>(a, b));
    }
  }
}

// The G2 instance of the one addition kernel: lambda = num/den, x3, y3 over
// Fq2 with the factor bookkeeping carried by Fq constants, the x1 = x2 cases
// settled per lane.
TYPED_TEST(IfmaFq2Test, BatchAffineAddMatchesScalarFormulas) {
  using F2 = TypeParam;
  PP_REQUIRE_IFMA();
  PP_SEEDED_RNG(rng);
  const auto edges = fq2_values<F2>(rng, 0);
  add_matches_scalar_formulas<F2>([&] { return rng() % 4 == 0 ? edges[rng() % edges.size()] : F2::random(rng); }, rng);
}

#else
TEST(IfmaFq2Test, NotCompiled) { GTEST_SKIP() << "not an x86-64 GCC/Clang build: no IFMA kernels"; }
#endif  // PP_IFMA_COMPILED

}  // namespace
}  // namespace proofpipe::test
