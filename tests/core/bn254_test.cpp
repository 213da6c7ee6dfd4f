// BN254 (snarkjs's bn128) beyond the field tests (field_test and inverse_test
// run BN254's Fq and Fr against GMP with the BLS12-381 ones): the tower, the
// curve constants and generators, group laws, the G2 subgroup check on
// points of the twist outside the r-torsion, the twist's Frobenius, the
// pairing (bilinearity, non-degeneracy, the final exponentiation against the
// plain exponent, a known answer from ffjavascript), the NTT against a naive
// DFT and the MSM against naive and split sums.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "proofpipe/pairing/bn254.hpp"
#include "support/field_edges.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bn254::Fq;
using bn254::Fq12;
using bn254::Fq2;
using bn254::Fq6;
using bn254::Fr;
using bn254::G1;
using bn254::G1Affine;
using bn254::G2;
using bn254::G2Affine;

template <size_t N>
ff::Limbs<N> limbs_of(const mpz_class& z) {
  return from_mpz<N>(z);
}

template <class Cfg, class Rng>
ec::Jacobian<Cfg> random_point(Rng& rng) {
  return ec::Jacobian<Cfg>::from_affine(bn254::generator<Cfg>()).mul(Fr::random(rng).to_canonical());
}
template <class Rng>
G1Affine random_g1(Rng& rng) {
  return random_point<bn254::G1Cfg>(rng).to_affine();
}
template <class Rng>
G2Affine random_g2(Rng& rng) {
  return random_point<bn254::G2Cfg>(rng).to_affine();
}

// ----- constants and the tower -----

TEST(Bn254Constants, ModuliAndParameter) {
  // p and r from u: p = 36u^4 + 36u^3 + 24u^2 + 6u + 1, r = p - 6u^2 (the
  // trace is 6u^2 + 1).
  const mpz_class u(std::to_string(bn254::kU));
  const mpz_class p = 36 * u * u * u * u + 36 * u * u * u + 24 * u * u + 6 * u + 1;
  EXPECT_EQ(modulus_of<Fq>(), p);
  EXPECT_EQ(modulus_of<Fr>(), p - 6 * u * u);
  EXPECT_EQ(mpz_probab_prime_p(p.get_mpz_t(), 30), 1);
  // r - 1 = 2^28 * odd, and 5 generates the 2^28 part (snarkjs's roots).
  const mpz_class r = modulus_of<Fr>();
  EXPECT_EQ(mpz_scan1(mpz_class(r - 1).get_mpz_t(), 0), 28u);
  Fr w = Fr::from_u64(5).pow(limbs_of<4>((r - 1) >> 28));
  for (int i = 0; i < 27; ++i) w = w.sqr();
  EXPECT_EQ(w, -Fr::one());
  EXPECT_EQ(mpz_jacobi(mpz_class(5).get_mpz_t(), r.get_mpz_t()), -1);  // the smallest non-residue...
  for (int k = 2; k < 5; ++k) EXPECT_EQ(mpz_jacobi(mpz_class(k).get_mpz_t(), r.get_mpz_t()), 1);  // ...is 5
}

TEST(Bn254Constants, TwistConstantIsThreeOverXi) {
  const Fq2 xi{Fq::from_u64(9), Fq::one()};
  EXPECT_EQ(bn254::G2Cfg::b() * xi, (Fq2{Fq::from_u64(3), Fq::zero()}));
  EXPECT_EQ(Fq2::one().mul_by_xi(), xi);
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 20; ++i) {
    const Fq2 a = Fq2::random(rng);
    EXPECT_EQ(a.mul_by_xi(), a * xi);
  }
}

template <class F>
class Bn254Tower : public ::testing::Test {};
using Bn254TowerTypes = ::testing::Types<Fq2, Fq6, Fq12>;
TYPED_TEST_SUITE(Bn254Tower, Bn254TowerTypes);

TYPED_TEST(Bn254Tower, RingAxiomsInverseAndFrobenius) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<Fq>();
  for (int i = 0; i < 8; ++i) {
    const F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * a.inverse(), F::one());
    EXPECT_EQ(a + (-a), F::zero());
    if constexpr (!std::is_same_v<F, Fq2>) {
      EXPECT_EQ(a.frobenius(1), a.pow(limbs_of<4>(p)));
      EXPECT_EQ(a.frobenius(2), a.pow(limbs_of<8>(p * p)));
      EXPECT_EQ(a.frobenius(3), a.pow(limbs_of<12>(p * p * p)));
    } else {
      EXPECT_EQ(a.frobenius(), a.pow(limbs_of<4>(p)));
    }
  }
  EXPECT_EQ(F::zero().inverse(), F::zero());
}

TEST(Bn254Tower, SparseProductsAndCyclotomicSquare) {
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 8; ++i) {
    const Fq12 f = Fq12::random(rng);
    const Fq2 l0 = Fq2::random(rng), l3 = Fq2::random(rng), l4 = Fq2::random(rng);
    Fq12 line = Fq12::zero();
    line.c0.c0 = l0;
    line.c1.c0 = l3;
    line.c1.c1 = l4;
    EXPECT_EQ(f.mul_by_034(l0, l3, l4), f * line);
    // Into the cyclotomic subgroup: m = f^((p^6 - 1)(p^2 + 1)).
    Fq12 m = f.conj() * f.inverse();
    m = m.frobenius(2) * m;
    EXPECT_EQ(m.cyclotomic_sqr(), m.sqr());
  }
}

// ----- G1 and G2 -----

TEST(Bn254Curve, GeneratorsOnCurveOfOrderR) {
  const auto r = Fr::C::kP;
  EXPECT_TRUE(bn254::g1_generator().on_curve());
  EXPECT_TRUE(bn254::g2_generator().on_curve());
  EXPECT_TRUE(G1::from_affine(bn254::g1_generator()).mul(r).is_identity());
  EXPECT_TRUE(G2::from_affine(bn254::g2_generator()).mul(r).is_identity());
  EXPECT_FALSE(G2::from_affine(bn254::g2_generator()).mul(ff::limbs_sub_u64(r, 1)).is_identity());
  EXPECT_TRUE(bn254::in_subgroup(bn254::g1_generator()));
  EXPECT_TRUE(bn254::in_subgroup(bn254::g2_generator()));
  EXPECT_TRUE(bn254::in_subgroup(G2Affine::identity()));
}

template <class Cfg>
class Bn254Group : public ::testing::Test {};
using Bn254Groups = ::testing::Types<bn254::G1Cfg, bn254::G2Cfg>;
TYPED_TEST_SUITE(Bn254Group, Bn254Groups);

TYPED_TEST(Bn254Group, GroupLawsAndScalars) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  PP_SEEDED_RNG(rng);
  const J g = J::from_affine(bn254::generator<Cfg>());
  for (int i = 0; i < 4; ++i) {
    const J p = random_point<Cfg>(rng), q = random_point<Cfg>(rng), s = random_point<Cfg>(rng);
    EXPECT_TRUE(p.on_curve());
    EXPECT_EQ((p + q) + s, p + (q + s));
    EXPECT_EQ(p + q, q + p);
    EXPECT_TRUE((p + (-p)).is_identity());
    EXPECT_EQ(p.dbl(), p + p);
    EXPECT_EQ(p + q, p.add_affine(q.to_affine()));
    EXPECT_EQ(p + p, p.add_affine(p.to_affine()));
    EXPECT_TRUE(bn254::in_subgroup(p.to_affine()));
  }
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  EXPECT_EQ(g.mul(a.to_canonical()) + g.mul(b.to_canonical()), g.mul((a + b).to_canonical()));
  EXPECT_EQ(g.mul(a.to_canonical()).mul(b.to_canonical()), g.mul((a * b).to_canonical()));
  EXPECT_EQ(g.mul(ff::limbs_sub_u64(Fr::C::kP, 1)), -g);
}

// A point of the twist outside the r-torsion (G2's cofactor is 2p - r, so a
// random twist point is in G2 with probability about 2^-254): on the curve,
// and refused by in_subgroup. Also a point off the curve.
TEST(Bn254Curve, G2SubgroupCheckRefusesTwistPointsOutsideG2) {
  PP_SEEDED_RNG(rng);
  int found = 0;
  while (found < 3) {
    const Fq2 x = Fq2::random(rng);
    Fq2 y;
    if (!(x.sqr() * x + bn254::G2Cfg::b()).sqrt(&y)) continue;
    const G2Affine p{x, y};
    ASSERT_TRUE(p.on_curve());
    EXPECT_FALSE(bn254::in_subgroup(p));
    // Its cofactor multiple is in G2 (h2 = 2p - r).
    const mpz_class h2 = 2 * modulus_of<Fq>() - modulus_of<Fr>();
    const G2Affine cleared = G2::from_affine(p).mul(limbs_of<4>(h2)).to_affine();
    EXPECT_TRUE(bn254::in_subgroup(cleared));
    ++found;
  }
  G2Affine bad = bn254::g2_generator();
  bad.y = bad.y + Fq2::one();
  EXPECT_FALSE(bad.on_curve());
  EXPECT_FALSE(bn254::in_subgroup(bad));
  G1Affine bad1 = bn254::g1_generator();
  bad1.y = bad1.y + Fq::one();
  EXPECT_FALSE(bn254::in_subgroup(bad1));
}

TEST(Bn254Curve, TwistFrobeniusIsMultiplicationByP) {
  PP_SEEDED_RNG(rng);
  const G2 q = random_point<bn254::G2Cfg>(rng);
  const G2Affine pq = bn254::twist_frobenius(q.to_affine());
  EXPECT_TRUE(pq.on_curve());
  EXPECT_EQ(G2::from_affine(pq), q.mul(Fq::C::kP));
}

// ----- pairing -----

TEST(Bn254Pairing, BilinearNonDegenerateOfOrderR) {
  PP_SEEDED_RNG(rng);
  const G1Affine g1 = bn254::g1_generator();
  const G2Affine g2 = bn254::g2_generator();
  const Fq12 e = bn254::pairing(g1, g2);
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::C::kP).is_one());
  for (int i = 0; i < 2; ++i) {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    const G1Affine ag = G1::from_affine(g1).mul(a.to_canonical()).to_affine();
    const G2Affine bg = G2::from_affine(g2).mul(b.to_canonical()).to_affine();
    EXPECT_EQ(bn254::pairing(ag, bg), e.pow((a * b).to_canonical()));
    // e(aP, Q) = e(P, aQ)
    const G2Affine ag2 = G2::from_affine(g2).mul(a.to_canonical()).to_affine();
    EXPECT_EQ(bn254::pairing(ag, g2), bn254::pairing(g1, ag2));
  }
  EXPECT_TRUE(bn254::pairing(G1Affine::identity(), g2).is_one());
  EXPECT_TRUE(bn254::pairing(g1, G2Affine::identity()).is_one());
  const bn254::G1G2Pair pairs[] = {{g1, g2}, {-g1, g2}};
  EXPECT_TRUE(bn254::pairing_product_is_one(pairs));
  const bn254::G1G2Pair one_pair[] = {{g1, g2}};
  EXPECT_FALSE(bn254::pairing_product_is_one(one_pair));
}

// The hard part's chain against the plain exponent c (p^12 - 1)/r,
// c = 2u(6u^2 + 3u + 1) (pairing/bn254.hpp says why c).
TEST(Bn254Pairing, FinalExponentiationMatchesExponent) {
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<Fq>();
  mpz_class p12;
  mpz_pow_ui(p12.get_mpz_t(), p.get_mpz_t(), 12);
  ASSERT_EQ(mpz_class((p12 - 1) % modulus_of<Fr>()), 0);
  const mpz_class u(std::to_string(bn254::kU));
  const mpz_class e = 2 * u * (6 * u * u + 3 * u + 1) * ((p12 - 1) / modulus_of<Fr>());
  ASSERT_LE(mpz_sizeinbase(e.get_mpz_t(), 2), 64u * 52);
  const auto exponent = limbs_of<52>(e);
  const std::vector<Fq12> inputs = {Fq12::random(rng), bn254::miller_loop(random_g1(rng), random_g2(rng))};
  for (const Fq12& f : inputs) EXPECT_EQ(bn254::final_exponentiation(f), f.pow(exponent));
}

// e(g1, g2) computed with ffjavascript 0.3.1 (snarkjs 0.7.6's engine, in
// node_modules here): curve = buildBn128(); Gt.toObject(pairing(G1.g, G2.g)),
// in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
TEST(Bn254Pairing, KnownAnswerForGenerators) {
  const char* kHex[12] = {"262b253feda94cfe0da01bde280a3ed6f87e5feb898578b55e1f63739d870e95",
                          "2e02d2cc795a2000a1b1f823879abbd397c4dea0918ed66b49d34b48efb8a4a",
                          "13a9f2d6e29b128da5b1ad44b31977935fd2957387ecb1fc4e135402fdbd1de0",
                          "40ba9fa500f1a5c4b31984a74e68659c4b420bd699ce630b130b08a6ea1162b",
                          "afc2f3fd870678fbe359d7f9873f052478f590b211ce30bf5e3eeaef89eafdb",
                          "1c54a530398c9064bdc662d929e645cadda9a712cc5a8243f9cddbd2d98dd1f0",
                          "95c0fbf5d5a1ac023794a0d856f92591ba990ecfd4b7aef5c0d58c5dc2429fe",
                          "14d3d6ca72d8a950a31dc10f7b4053c9e9ad9ebb590cb4a60f8215d4b99f2b4a",
                          "1dc0e7bbc3d70e6689dc206b4b91c85759dc1a23043c585fdfaf545838ca7429",
                          "b53320e5a6488cb98a855ffc837d2a75ab90d61ac16cc1b7ab2cd3ed5e22b97",
                          "13a8afd3085dae4c6c91476ef36cd1d318ce07bac42a9c0f9bd7fddaf5ebd723",
                          "f97b5221474526b601f3730a3afa965ceee1b343940c383e5314859e762c97"};
  Fq12 want;
  Fq* c[12] = {&want.c0.c0.c0, &want.c0.c0.c1, &want.c0.c1.c0, &want.c0.c1.c1, &want.c0.c2.c0, &want.c0.c2.c1,
               &want.c1.c0.c0, &want.c1.c0.c1, &want.c1.c1.c0, &want.c1.c1.c1, &want.c1.c2.c0, &want.c1.c2.c1};
  for (int i = 0; i < 12; ++i) *c[i] = field_of<Fq>(mpz_class(kHex[i], 16));
  EXPECT_EQ(bn254::pairing(bn254::g1_generator(), bn254::g2_generator()), want);
}

// The committed bn128 key (tests/data/multi_io_bn128, snarkjs 0.7.6): its
// vk_alphabeta_12 is a second known answer, on points other than the
// generators, read straight from the zkey's header.
TEST(Bn254Pairing, AlphaBetaMatchesSnarkjsVerificationKey) {
  const std::filesystem::path dir = std::filesystem::path(PP_TEST_DATA_DIR) / "multi_io_bn128";
  auto zkey = formats::load_zkey<curves::Bn254>(dir / "circuit.zkey");
  ASSERT_TRUE(zkey.is_ok()) << zkey.status().message();
  auto vk = formats::read_verification_key_json<curves::Bn254>(dir / "verification_key.json");
  ASSERT_TRUE(vk.is_ok()) << vk.status().message();
  ASSERT_TRUE(vk->alphabeta_12.has_value());
  const Fq12 e = bn254::pairing(zkey->header().alpha1, zkey->header().beta2);
  const formats::Fq12CoeffsT<curves::Bn254>& want = *vk->alphabeta_12;
  for (int i = 0; i < 2; ++i) {
    const Fq6& half = i == 0 ? e.c0 : e.c1;
    EXPECT_EQ(half.c0, want.c[i][0]);
    EXPECT_EQ(half.c1, want.c[i][1]);
    EXPECT_EQ(half.c2, want.c[i][2]);
  }
}

// ----- NTT -----

TEST(Bn254Ntt, AgainstNaiveDftAndRoundTrip) {
  PP_SEEDED_RNG(rng);
  using Domain = ntt::DomainT<Fr>;
  EXPECT_TRUE(ntt::root_of_unity<Fr>(0).is_one());
  for (unsigned k = 1; k <= 28; ++k) EXPECT_EQ(ntt::root_of_unity<Fr>(k).sqr(), ntt::root_of_unity<Fr>(k - 1));
  EXPECT_EQ(ntt::root_of_unity<Fr>(1), -Fr::one());
  for (unsigned k = 0; k <= 7; ++k) {
    const Domain& d = Domain::get(k);
    const size_t n = d.size();
    std::vector<Fr> x(n);
    for (auto& v : x) v = (rng() % 5 == 0) ? -Fr::one() : Fr::random(rng);
    std::vector<Fr> y = x;
    d.ntt(y);
    for (size_t i = 0; i < n; ++i) {
      Fr acc = Fr::zero(), wi = d.omega().pow_u64(i);
      for (size_t j = n; j-- > 0;) acc = acc * wi + x[j];
      ASSERT_EQ(y[i], acc) << "k=" << k << " i=" << i;
    }
    d.intt(y);
    ASSERT_EQ(y, x) << "k=" << k;
  }
  // A size with column passes: round trip and the odd-coset step against
  // coset_ntt(intt(x), w_2n).
  const Domain& d = Domain::get(14);
  std::vector<Fr> x(d.size());
  for (auto& v : x) v = Fr::random(rng);
  std::vector<Fr> odd = x, ref = x;
  d.evals_to_odd_coset(odd);
  d.intt(ref);
  d.coset_ntt(ref, d.odd_coset_shift());
  EXPECT_EQ(odd, ref);
}

// ----- MSM -----

template <class Cfg>
ec::Jacobian<Cfg> run_msm(std::span<const ec::Affine<Cfg>> p, std::span<const Fr> s) {
  if constexpr (Cfg::kG2) {
    return msm::msm_g2(p, s);
  } else {
    return msm::msm_g1(p, s);
  }
}

TYPED_TEST(Bn254Group, MsmAgainstNaiveAndSplitSums) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  using A = ec::Affine<Cfg>;
  PP_SEEDED_RNG(rng);
  auto scalar = [&] {
    const unsigned pick = unsigned(rng() % 8);
    return pick < 5 ? msm_edge_scalar<Fr>(pick) : Fr::random(rng);
  };
  // Small n against the naive sum, identities mixed in.
  for (size_t n : {0u, 1u, 2u, 7u, 33u, 100u}) {
    std::vector<A> pts(n);
    std::vector<Fr> sc(n);
    J want = J::identity();
    for (size_t i = 0; i < n; ++i) {
      pts[i] = rng() % 9 == 0 ? A::identity() : random_point<Cfg>(rng).to_affine();
      sc[i] = scalar();
      want += J::from_affine(pts[i]).mul(sc[i].to_canonical());
    }
    EXPECT_EQ(run_msm<Cfg>(pts, sc), want) << "n=" << n;
  }
  // Larger n: the whole against the sum of two parts (different plans).
  const size_t n = Cfg::kG2 ? 3000 : 20000;
  std::vector<J> jac(n);
  J p = random_point<Cfg>(rng);
  const A g = bn254::generator<Cfg>();
  for (auto& j : jac) j = p = p.add_affine(g);
  std::vector<A> pts(n);
  ec::batch_to_affine<Cfg>(jac, pts);
  std::vector<Fr> sc(n);
  for (auto& s : sc) s = scalar();
  const size_t k = n / 3;
  const J whole = run_msm<Cfg>(pts, sc);
  const J parts = run_msm<Cfg>(std::span<const A>(pts).first(k), std::span<const Fr>(sc).first(k)) +
                  run_msm<Cfg>(std::span<const A>(pts).subspan(k), std::span<const Fr>(sc).subspan(k));
  EXPECT_EQ(whole, parts);
  // And canonical scalars (a wtns's values) give the same as Montgomery ones.
  std::vector<ff::Limbs<4>> canon(n);
  for (size_t i = 0; i < n; ++i) canon[i] = sc[i].to_canonical();
  if constexpr (Cfg::kG2) {
    EXPECT_EQ(msm::msm_g2_canonical(pts, canon), whole);
  } else {
    EXPECT_EQ(msm::msm_g1_canonical(pts, canon), whole);
  }
}

}  // namespace
}  // namespace proofpipe::test
