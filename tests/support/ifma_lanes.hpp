// Helpers shared by the tests of the eight-lane IFMA kernels (ifma_field_test
// for the prime fields, ifma_fq2_test for Fq2): the skip-with-reason guard,
// GMP views of a Pack's lanes, raw radix-2^52 edge values (redundant forms
// included), and the batch-affine kernel checked against the scalar formulas
// for any element type it serves.
#pragma once

#include <gmpxx.h>
#include <gtest/gtest.h>

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

// ff::ifma::batch_affine_chord over elements F (ff::Field or ff::Fq2T)
// against the same formulas in scalar code: any non-zero den, any num, s,
// x1, y1 (`edges` mixed in), batch sizes that leave every count of padding
// lanes. `pick` returns the next input value.
template <class F, class Pick>
void chord_matches_scalar_formulas(Pick pick) {
  for (size_t m : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(63), size_t(200)}) {
    std::vector<F> slots(6 * m);  // den, num, s, x1, y1 and one unused, as msm/buckets.hpp lays them out
    for (size_t k = 0; k < m; ++k)
      for (size_t j = 0; j < 5; ++j) {
        F v = pick();
        if (j == 0 && v.is_zero()) v = F::one();
        slots[6 * k + j] = v;
      }
    std::vector<typename ff::ifma::LanePack<F>::type> scratch(2 * ((m + 7) / 8));
    std::vector<F> out(2 * m);
    ff::ifma::batch_affine_chord(slots.data(), 6, m, out.data(), scratch.data());
    for (size_t k = 0; k < m; ++k) {
      const F* sl = &slots[6 * k];
      const F lambda = sl[1] * sl[0].inverse();
      const F x3 = lambda.sqr() - sl[2];
      const F y3 = lambda * (sl[3] - x3) - sl[4];
      ASSERT_EQ(out[2 * k], x3) << "m=" << m << " entry " << k;
      ASSERT_EQ(out[2 * k + 1], y3) << "m=" << m << " entry " << k;
    }
  }
}
#endif

}  // namespace proofpipe::test::ifma_lanes
