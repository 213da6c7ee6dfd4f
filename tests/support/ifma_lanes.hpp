// Helpers shared by the tests of the eight-lane IFMA kernels (ifma_field_test
// for the prime fields, ifma_fq2_test for Fq2): the skip-with-reason guard,
// GMP views of a Pack's lanes, raw radix-2^52 edge values (redundant forms
// included), and the batch-affine kernel checked against the scalar formulas
// for any element type it serves.
#pragma once

#include <gmpxx.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "proofpipe/ff/ifma/batch_affine.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ff/ifma/radix52.hpp"
#include "support/gmp_ref.hpp"
#include "support/require_ifma.hpp"

namespace proofpipe::test::ifma_lanes {

template <class P>
constexpr size_t kL = ff::ifma::Radix52<P>::L;

template <class P>
mpz_class modulus() {
  return modulus_of<ff::Field<P>>();
}
// R52 = 2^(52L): the Montgomery radix of the IFMA form.
template <class P>
mpz_class r52() {
  return mpz_class(1) << (52 * kL<P>);
}
// R52^-1 mod p: what a radix-2^52 product divides by.
template <class P>
mpz_class r52_inverse() {
  const mpz_class p = modulus<P>(), r = r52<P>() % p;
  mpz_class rinv;
  mpz_invert(rinv.get_mpz_t(), r.get_mpz_t(), p.get_mpz_t());
  return rinv;
}

template <class P>
mpz_class lane_value(const ff::ifma::Pack<P>& p, int e) {
  mpz_class v = 0;
  for (size_t k = kL<P>; k-- > 0;) v = (v << 52) + mpz_class(static_cast<unsigned long>(p.limb[k][e]));
  return v;
}
template <class P>
void set_lane(ff::ifma::Pack<P>& p, int e, const mpz_class& v) {
  mpz_class t = v;
  for (size_t k = 0; k < kL<P>; ++k) {
    mpz_class limb = t & ((mpz_class(1) << 52) - 1);
    p.limb[k][e] = limb.get_ui();
    t >>= 52;
  }
  ASSERT_EQ(t, 0) << "value does not fit L limbs";
}
// The representation invariant: every limb below 2^52, value below 2p.
template <class P>
void expect_reduced(const ff::ifma::Pack<P>& p, int e) {
  for (size_t k = 0; k < kL<P>; ++k) ASSERT_LT(p.limb[k][e], uint64_t(1) << 52) << "limb " << k << " lane " << e;
  ASSERT_LT(lane_value(p, e), 2 * modulus<P>()) << "lane " << e;
}

// Raw radix-2^52 values in [0, 2p): edges, the redundant forms of the edges,
// numbers with long runs of ones, and random values from both halves.
template <class P, class Rng>
std::vector<mpz_class> raw_values(Rng& rng, int random_count) {
  const mpz_class p = modulus<P>(), one = r52<P>() % p;
  std::vector<mpz_class> v = {0,           1, 2,     p - 1,   p - 2,     one,       p - one,
                              (p - 1) / 2, p, p + 1, p + one, 2 * p - 1, 2 * p - 2, 2 * p - one};
  for (unsigned k = 1; k < 52 * kL<P>; k += 13) {
    mpz_class t = (mpz_class(1) << k) - 1;  // all-ones limbs up to bit k
    if (t < 2 * p) v.push_back(t);
    mpz_class t2 = mpz_class(1) << k;
    if (t2 < 2 * p) v.push_back(t2);
  }
  gmp_randclass gr(gmp_randinit_default);
  gr.seed(static_cast<unsigned long>(rng()));
  for (int i = 0; i < random_count; ++i) {
    mpz_class x = gr.get_z_range(p);
    v.push_back(x);
    v.push_back(x + p);  // its redundant form
  }
  return v;
}

// Every (a, b) pair of `vals` goes through every lane: batch t puts pair
// (t + e * stride) mod Q in lane e, over all t < Q.
template <class P, class Check>
void for_all_pairs_in_all_lanes(const std::vector<mpz_class>& vals, Check check) {
  const size_t n = vals.size(), q = n * n, stride = q / 8 + 1;
  for (size_t t = 0; t < q; ++t) {
    ff::ifma::Pack<P> a{}, b{};
    size_t idx[8];
    for (int e = 0; e < 8; ++e) {
      idx[e] = (t + e * stride) % q;
      set_lane(a, e, vals[idx[e] / n]);
      set_lane(b, e, vals[idx[e] % n]);
    }
    check(a, b);
  }
}

#if defined(PP_IFMA_COMPILED)
// Sum, difference, product and square of eight scalar elements S (ff::Field
// or ff::Fq2T) on the lanes of the memory form Pk, through the conversions
// in and out, against the scalar operations, lane by lane.
template <class Pk, class S>
void lanes_match_scalar(const S (&a)[8], const S (&b)[8]) {
  S sum[8], diff[8], prod[8], sq[8];
  Pk pa, pb, r;
  ff::ifma::pack_from_fields(pa, a);
  ff::ifma::pack_from_fields(pb, b);
  ff::ifma::pack_add(r, pa, pb);
  ff::ifma::pack_to_fields(r, sum);
  ff::ifma::pack_sub(r, pa, pb);
  ff::ifma::pack_to_fields(r, diff);
  ff::ifma::pack_mul(r, pa, pb);
  ff::ifma::pack_to_fields(r, prod);
  ff::ifma::pack_sqr(r, pa);
  ff::ifma::pack_to_fields(r, sq);
  for (int e = 0; e < 8; ++e) {
    ASSERT_EQ(sum[e], a[e] + b[e]) << "lane " << e;
    ASSERT_EQ(diff[e], a[e] - b[e]) << "lane " << e;
    ASSERT_EQ(prod[e], a[e] * b[e]) << "lane " << e;
    ASSERT_EQ(sq[e], a[e].sqr()) << "lane " << e;
  }
}

// ff::ifma::batch_affine_add over elements F (ff::Field or ff::Fq2T)
// against the addition formulas in scalar code. The points are any pairs of
// field values (the formulas do not need the curve), `pick` returns the next
// one (edges mixed in); about one entry in five shares its x with the other
// point: the tangent (same y) or the cancelling pair (opposite y, or y = 0),
// in every lane position. Signs at random; batch sizes that leave every
// count of padding lanes. The dst are scattered over a larger array, as
// buckets are.
template <class F, class Pick, class Rng>
void add_matches_scalar_formulas(Pick pick, Rng& rng) {
  for (size_t m : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(63), size_t(200)}) {
    std::vector<F> bucket(2 * 3 * m), point(2 * m);
    std::vector<F*> dst(m);
    std::vector<const F*> src(m);
    std::vector<uint8_t> neg(m), cancelled(m, 7);
    std::vector<size_t> order(3 * m);
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < m; ++k) {
      F* a = &bucket[2 * order[k]];
      F* p = &point[2 * k];
      a[0] = pick();
      a[1] = pick();
      neg[k] = uint8_t(rng() % 2);
      switch (rng() % 10) {
        case 0:  // the tangent: the same point after the sign
          p[0] = a[0];
          p[1] = neg[k] ? -a[1] : a[1];
          break;
        case 1:  // P + (-P)
          p[0] = a[0];
          p[1] = neg[k] ? a[1] : -a[1];
          break;
        default: p[0] = pick(); p[1] = pick();
      }
      dst[k] = a;
      src[k] = p;
    }
    const std::vector<F> before = bucket;
    std::vector<typename ff::ifma::LanePack<F>::type> scratch(6 * ((m + 7) / 8));
    ff::ifma::batch_affine_add(dst.data(), src.data(), neg.data(), m, scratch.data(), cancelled.data());
    for (size_t k = 0; k < m; ++k) {
      const F* a = &before[2 * order[k]];
      const F x2 = src[k][0], y2 = neg[k] ? -src[k][1] : src[k][1];
      F den = x2 - a[0], num = y2 - a[1];
      const bool cancels = den.is_zero() && (y2 != a[1] || a[1].is_zero());
      if (den.is_zero() && !cancels) {
        den = a[1].dbl();
        num = a[0].sqr().dbl() + a[0].sqr();
      }
      ASSERT_EQ(cancelled[k], cancels ? 1 : 0) << "m=" << m << " entry " << k;
      F x3 = F::zero(), y3 = F::zero();
      if (!cancels) {
        const F lambda = num * den.inverse();
        x3 = lambda.sqr() - a[0] - x2;
        y3 = lambda * (a[0] - x3) - a[1];
      }
      ASSERT_EQ(dst[k][0], x3) << "m=" << m << " entry " << k << " lane " << k % 8;
      ASSERT_EQ(dst[k][1], y3) << "m=" << m << " entry " << k << " lane " << k % 8;
    }
  }
}
#endif

}  // namespace proofpipe::test::ifma_lanes
