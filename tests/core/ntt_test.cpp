// ntt::DomainT and compute_h_odd_coset against naive O(n^2) transforms and
// Horner evaluation, the snarkjs root values (docs/design/formats.md
// §3.2), round trips up to 2^22, and every multi-pass plan shape on small sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "proofpipe/ntt/kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/gmp_ref.hpp"
#include "support/ntt_plans.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fr;
using Domain = ntt::DomainT<Fr>;
using Vec = std::vector<Fr>;

// Random values with the edge values 0, 1, p-1, p-2 and 2^k mixed in.
template <class Rng>
Vec sample(Rng& rng, size_t n) {
  const Fr edges[] = {Fr::zero(), Fr::one(), -Fr::one(), -Fr::from_u64(2), Fr::from_u64(uint64_t(1) << 63)};
  Vec v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (rng() % 4 == 0) ? edges[rng() % 5] : Fr::random(rng);
  return v;
}

// sum_j x[j] * z^j by Horner.
Fr horner(const Vec& x, const Fr& z) {
  Fr acc = Fr::zero();
  for (size_t j = x.size(); j-- > 0;) acc = acc * z + x[j];
  return acc;
}

// out[i] = sum_j x[j] * (g * w^i)^j, the definition, in O(n^2).
Vec naive_dft(const Vec& x, const Fr& w, const Fr& g) {
  const size_t n = x.size();
  Vec out(n);
  Fr wi = Fr::one();
  for (size_t i = 0; i < n; ++i, wi = wi * w) out[i] = horner(x, g * wi);
  return out;
}

Vec naive_idft(const Vec& y, const Fr& w) {
  Vec out = naive_dft(y, w.inverse(), Fr::one());
  const Fr inv_n = Fr::from_u64(y.size()).inverse();
  for (Fr& v : out) v = v * inv_n;
  return out;
}

TEST(NttRoots, SnarkjsValues) {
  // snarkjs Fr.w[12] and Fr.w[32] for BLS12-381 (decimal, canonical).
  EXPECT_EQ(value_of(ntt::root_of_unity<Fr>(12)),
            mpz_class("7712148129911606624315688729500842900222944762233088101895611600385646063109"));
  EXPECT_EQ(value_of(ntt::root_of_unity<Fr>(32)),
            mpz_class("937917089079007706106976984802249742464848817460758522850752807661925904159"));
  EXPECT_EQ(value_of(ntt::root_of_unity<Fr>(13)),
            mpz_class("4862464726302065505506688039068558711848980475932963135959468859464391638674"));
  EXPECT_EQ(Domain::get(12).omega(), ntt::root_of_unity<Fr>(12));
}

TEST(NttRoots, PrimitiveAndNested) {
  EXPECT_TRUE(ntt::root_of_unity<Fr>(0).is_one());
  for (unsigned k = 1; k <= 32; ++k) {
    const Fr w = ntt::root_of_unity<Fr>(k);
    EXPECT_EQ(w.pow_u64(uint64_t(1) << (k - 1)), -Fr::one()) << "k=" << k;  // order exactly 2^k
    EXPECT_EQ(w.sqr(), ntt::root_of_unity<Fr>(k - 1)) << "k=" << k;
  }
  // Not arkworks' 7-based root (docs/design/formats.md §3.2): same set, other order.
  EXPECT_NE(
      ntt::root_of_unity<Fr>(32),
      Fr::from_canonical(ff::limbs_from_hex<4>("0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b")));
  const Domain& d = Domain::get(10);
  EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
  EXPECT_EQ(d.size_inv() * Fr::from_u64(1024), Fr::one());
  EXPECT_EQ(d.odd_coset_shift().sqr(), d.omega());
}

TEST(NttDomain, CachedAndThreadSafe) {
  std::vector<const Domain*> seen(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) threads.emplace_back([&, t] { seen[t] = &Domain::get(17); });
  for (auto& th : threads) th.join();
  for (const Domain* p : seen) EXPECT_EQ(p, &Domain::get(17));
  EXPECT_EQ(Domain::get(17).size(), size_t(1) << 17);
}

TEST(Ntt, AgainstNaiveDftSmall) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= 8; ++k) {
    const Domain& d = Domain::get(k);
    for (int rep = 0; rep < 3; ++rep) {
      const Vec x = sample(rng, d.size());
      Vec y = x;
      d.ntt(y);
      ASSERT_EQ(y, naive_dft(x, d.omega(), Fr::one())) << "k=" << k;
      Vec z = x;
      d.intt(z);
      ASSERT_EQ(z, naive_idft(x, d.omega())) << "k=" << k;
    }
  }
}

TEST(Ntt, EdgeVectors) {
  for (unsigned k : {0u, 1u, 3u, 9u, 14u}) {
    const Domain& d = Domain::get(k);
    const size_t n = d.size();
    Vec zero(n, Fr::zero());
    d.ntt(zero);
    EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](const Fr& v) { return v.is_zero(); }));
    Vec delta(n, Fr::zero());
    delta[0] = -Fr::one();  // p - 1 at index 0: evaluates to p - 1 everywhere
    d.ntt(delta);
    EXPECT_TRUE(std::all_of(delta.begin(), delta.end(), [](const Fr& v) { return v == -Fr::one(); }));
    Vec ones(n, Fr::one());  // sum_j w^(ij) = n at i = 0, else 0
    d.ntt(ones);
    EXPECT_EQ(ones[0], Fr::from_u64(n));
    for (size_t i = 1; i < n; ++i) ASSERT_TRUE(ones[i].is_zero()) << "k=" << k << " i=" << i;
  }
}

TEST(Ntt, CosetAgainstNaiveSmall) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= 8; ++k) {
    const Domain& d = Domain::get(k);
    for (const Fr& g : {Fr::random(rng), Fr::from_u64(7), -Fr::one()}) {
      const Vec x = sample(rng, d.size());
      Vec y = x;
      d.coset_ntt(y, g);
      ASSERT_EQ(y, naive_dft(x, d.omega(), g)) << "k=" << k;
      d.coset_intt(y, g);
      ASSERT_EQ(y, x) << "k=" << k;
    }
  }
}

TEST(Ntt, ConvolutionTheorem) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 1; k <= 8; ++k) {
    const Domain& d = Domain::get(k);
    const size_t n = d.size();
    const Vec a = sample(rng, n), b = sample(rng, n);
    Vec cyclic(n, Fr::zero());
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) cyclic[(i + j) % n] += a[i] * b[j];
    Vec fa = a, fb = b;
    d.ntt(fa);
    d.ntt(fb);
    for (size_t i = 0; i < n; ++i) fa[i] = fa[i] * fb[i];
    d.intt(fa);
    ASSERT_EQ(fa, cyclic) << "k=" << k;
  }
}

TEST(NttKernels, MakePlanCoversEveryLevel) {
  for (unsigned k = 0; k <= ntt::kMaxLogSize; ++k) {
    const ntt::Plan plan = ntt::make_plan(k);
    ASSERT_FALSE(plan.passes.empty());
    EXPECT_LE(plan.passes[0].bits, ntt::kMaxPassBits) << "k=" << k;  // the level tables' reach
    unsigned lo = 0;
    for (const ntt::PassSpec& ps : plan.passes) {
      EXPECT_EQ(ps.lo, lo) << "k=" << k;
      EXPECT_TRUE(ps.bits > 0 || k == 0) << "k=" << k;
      lo += ps.bits;
    }
    EXPECT_EQ(lo, k);
  }
}

// Every way of cutting 2^k into passes (not just make_plan's) computes the same
// DIF and DIT, forward and inverse, and the same fused odd-coset pipeline: this
// is how the 3-pass plans of 2^23..2^28 are exercised without 256 MiB+ vectors.
TEST(NttKernels, AllPlanShapesAgree) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 1; k <= 13; ++k) {
    const size_t n = size_t(1) << k;
    const Vec top = ntt::powers(ntt::root_of_unity<Fr>(k), n / 2 + 1);
    const Vec x = sample(rng, n);
    Vec want = x, odd = x;
    Domain::get(k).ntt(want);
    Domain::get(k).evals_to_odd_coset(odd);
    const Fr inv_n = Fr::from_u64(n).inverse();
    for (int rep = 0; rep < 6; ++rep) {
      const ntt::Plan plan = random_plan(rng, k);
      SCOPED_TRACE(::testing::Message() << "k=" << k << " passes=" << plan.passes.size());
      Vec y = x;  // DIF forward, then permute
      ntt::dif(y.data(), plan, top.data(), false);
      ntt::bit_reverse(y.data(), k, Fr::one());
      ASSERT_EQ(y, want);
      ntt::bit_reverse(y.data(), k, Fr::one());  // DIT inverse back from bit-reversed order
      ntt::dit(y.data(), plan, top.data(), true);
      for (Fr& v : y) v = v * inv_n;
      ASSERT_EQ(y, x);
      Vec z = x;  // permute, then DIT forward
      ntt::bit_reverse(z.data(), k, Fr::one());
      ntt::dit(z.data(), plan, top.data(), false);
      ASSERT_EQ(z, want);
      Vec q = x;  // the fused odd-coset pipeline, whose scaling depends on the bottom pass's width
      ntt::dif_columns(q.data(), plan, top.data(), true);
      ntt::bottom_inverse_scale_forward(q.data(), plan, ntt::root_of_unity<Fr>(k + 1), inv_n);
      ntt::dit_columns(q.data(), plan, top.data(), false);
      ASSERT_EQ(q, odd);
    }
  }
}

// 2^16..2^20 and 2^22 (2^21 adds nothing the others miss): about 3 s of CPU.
TEST(Ntt, RoundTripLarge) {
  PP_SEEDED_RNG(rng);
  for (unsigned k : {16u, 17u, 18u, 19u, 20u, 22u}) {
    const Domain& d = Domain::get(k);
    const Vec x = sample(rng, d.size());
    Vec y = x;
    d.ntt(y);
    // Spot-check outputs against Horner so a self-consistent but wrong pair fails.
    for (int s = 0; s < 2; ++s) {
      const size_t i = rng() % d.size();
      ASSERT_EQ(y[i], horner(x, d.omega().pow_u64(i))) << "k=" << k << " i=" << i;
    }
    d.intt(y);
    ASSERT_EQ(y, x) << "k=" << k;
  }
}

TEST(Ntt, CosetRoundTripLarge) {
  PP_SEEDED_RNG(rng);
  for (unsigned k : {13u, 16u, 18u, 20u}) {
    const Domain& d = Domain::get(k);
    const Fr g = Fr::random(rng);
    const Vec x = sample(rng, d.size());
    Vec y = x;
    d.coset_ntt(y, g);
    const size_t i = rng() % d.size();
    ASSERT_EQ(y[i], horner(x, g * d.omega().pow_u64(i))) << "k=" << k;
    d.coset_intt(y, g);
    ASSERT_EQ(y, x) << "k=" << k;
  }
}

// q_i = A(s_i) * B(s_i) - C(s_i), s_i = w_2n^(2i+1), with A, B, C interpolated
// naively from their evaluations on the n-domain.
Vec naive_h(const Vec& a, const Vec& b, const Vec& c) {
  const size_t n = a.size();
  const unsigned k = unsigned(__builtin_ctzll(n));
  const Fr w = ntt::root_of_unity<Fr>(k), w2n = ntt::root_of_unity<Fr>(k + 1);
  const Vec pa = naive_idft(a, w), pb = naive_idft(b, w), pc = naive_idft(c, w);
  Vec q(n);
  for (size_t i = 0; i < n; ++i) {
    const Fr s = w2n.pow_u64(2 * i + 1);
    q[i] = horner(pa, s) * horner(pb, s) - horner(pc, s);
  }
  return q;
}

TEST(NttH, OddCosetAgainstNaive) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= 9; ++k) {
    const size_t n = size_t(1) << k;
    for (bool satisfied : {false, true}) {
      Vec a = sample(rng, n), b = sample(rng, n), c = sample(rng, n);
      if (satisfied)  // the prover's case: C_T = A_T * B_T (docs/design/formats.md §3.1)
        for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
      const Vec want = naive_h(a, b, c);
      ntt::compute_h_odd_coset<Fr>(a, b, c);
      ASSERT_EQ(a, want) << "k=" << k << " satisfied=" << satisfied;
    }
  }
}

TEST(NttH, OddCosetMatchesCosetNttLarge) {
  PP_SEEDED_RNG(rng);
  for (unsigned k : {12u, 13u, 16u, 20u}) {
    const Domain& d = Domain::get(k);
    const Vec x = sample(rng, d.size());
    Vec fused = x, plain = x;
    d.evals_to_odd_coset(fused);
    d.intt(plain);
    d.coset_ntt(plain, d.odd_coset_shift());
    ASSERT_EQ(fused, plain) << "k=" << k;
  }
}

}  // namespace
}  // namespace proofpipe::test
