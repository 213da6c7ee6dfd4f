// Fq6/Fq12 tower arithmetic and the BLS12-381 optimal ate pairing: field
// axioms, Frobenius maps against x^p, bilinearity, non-degeneracy, order r,
// multi-pairing against single pairings, the final exponentiation against a
// GMP-computed exponent, and known answers (zkcrypto/ffjavascript and the
// snarkjs fixtures' vk_alphabeta_12 and reference proofs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "proofpipe/pairing/bls12_381.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fq12;
using bls12_381::Fq2;
using bls12_381::Fq6;
using bls12_381::Fr;
using bls12_381::G1;
using bls12_381::G1Affine;
using bls12_381::G1G2Pair;
using bls12_381::G2;
using bls12_381::G2Affine;

constexpr int kRounds = 20;

template <size_t M>
ff::Limbs<M> limbs_of(const mpz_class& z) {
  return from_mpz<M>(z);
}

const mpz_class& fq_modulus() {
  static const mpz_class p = modulus_of<Fq>();
  return p;
}
const mpz_class& fr_modulus() {
  static const mpz_class r = modulus_of<Fr>();
  return r;
}

template <class Rng>
G1Affine random_g1(Rng& rng) {
  return bls12_381::scalar_mul(G1::from_affine(bls12_381::g1_generator()), Fr::random(rng)).to_affine();
}
template <class Rng>
G2Affine random_g2(Rng& rng) {
  return bls12_381::scalar_mul(G2::from_affine(bls12_381::g2_generator()), Fr::random(rng)).to_affine();
}

// ----- tower arithmetic -----

template <class F>
class TowerTest : public ::testing::Test {};
using TowerTypes = ::testing::Types<Fq6, Fq12>;
TYPED_TEST_SUITE(TowerTest, TowerTypes);

TYPED_TEST(TowerTest, RingAxiomsAndInverse) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < kRounds; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a + b) - b, a);
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * a.inverse(), F::one());
  }
  EXPECT_EQ(F::zero().inverse(), F::zero());
  EXPECT_EQ(F::one().inverse(), F::one());
}

TYPED_TEST(TowerTest, FrobeniusIsPowerOfP) {
  using F = TypeParam;
  PP_SEEDED_RNG(rng);
  const mpz_class& p = fq_modulus();
  for (int i = 0; i < 3; ++i) {
    F a = F::random(rng);
    EXPECT_EQ(a.frobenius(1), a.pow(limbs_of<6>(p)));
    EXPECT_EQ(a.frobenius(2), a.pow(limbs_of<12>(p * p)));
    EXPECT_EQ(a.frobenius(3), a.pow(limbs_of<18>(p * p * p)));
    EXPECT_EQ(a.frobenius(4), a.frobenius(1).frobenius(3));
    EXPECT_EQ(a.frobenius(0), a);
  }
  // The map has order 6 on Fq6 and 12 on Fq12.
  F a = F::random(rng);
  constexpr unsigned kDegree = std::is_same_v<F, Fq6> ? 6 : 12;
  EXPECT_EQ(a.frobenius(kDegree), a);
  EXPECT_NE(a.frobenius(kDegree / 2), a);
}

TEST(Fq6, SparseAndNonResidueProducts) {
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < kRounds; ++i) {
    Fq6 a = Fq6::random(rng);
    Fq2 b0 = Fq2::random(rng), b1 = Fq2::random(rng);
    EXPECT_EQ(a.mul_by_01(b0, b1), (a * Fq6{b0, b1, Fq2::zero()}));
    EXPECT_EQ(a.mul_by_1(b1), (a * Fq6{Fq2::zero(), b1, Fq2::zero()}));
    EXPECT_EQ(a.mul_by_v(), (a * Fq6{Fq2::zero(), Fq2::one(), Fq2::zero()}));
    EXPECT_EQ(a.mul_fq2(b0), (a * Fq6{b0, Fq2::zero(), Fq2::zero()}));
  }
  // v^3 = xi = 1 + u.
  Fq6 v{Fq2::zero(), Fq2::one(), Fq2::zero()};
  EXPECT_EQ(v * v * v, (Fq6{Fq2::one().mul_by_xi(), Fq2::zero(), Fq2::zero()}));
}

TEST(Fq12, SparseLineProductConjugateAndWSquared) {
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < kRounds; ++i) {
    Fq12 a = Fq12::random(rng);
    Fq2 l0 = Fq2::random(rng), l1 = Fq2::random(rng), l4 = Fq2::random(rng);
    Fq12 line{{l0, l1, Fq2::zero()}, {Fq2::zero(), l4, Fq2::zero()}};
    EXPECT_EQ(a.mul_by_014(l0, l1, l4), a * line);
    EXPECT_EQ(a.conj(), a.frobenius(6));
  }
  Fq12 w{Fq6::zero(), Fq6::one()};
  EXPECT_EQ(w * w, (Fq12{Fq6{Fq2::zero(), Fq2::one(), Fq2::zero()}, Fq6::zero()}));  // w^2 = v
}

TEST(Fq12, FrobeniusTableIsConsistent) {
  const bls12_381::FrobeniusTable& t = ff::frobenius_table<bls12_381::Tower>();
  const Fq2 xi = Fq2::one().mul_by_xi();
  for (int k = 1; k <= 3; ++k) {
    EXPECT_TRUE(t.gamma[k][0].is_one());
    // g_k^6 = xi^(p^k - 1), i.e. g_k^6 * xi = phi^k(xi).
    Fq2 g6 = t.gamma[k][5] * t.gamma[k][1];
    EXPECT_EQ(g6 * xi, (k & 1) ? xi.conj() : xi);
  }
  EXPECT_TRUE(t.gamma[2][1].c1.is_zero());  // a norm from Fq2, so in Fq
}

// After the easy part an element is in the cyclotomic subgroup, where the
// Granger-Scott squaring must agree with the generic one.
TEST(Fq12, CyclotomicSquareMatchesSquare) {
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < kRounds; ++i) {
    Fq12 f = Fq12::random(rng);
    Fq12 m = f.conj() * f.inverse();
    m = m.frobenius(2) * m;
    EXPECT_EQ(m.cyclotomic_sqr(), m.sqr());
    EXPECT_EQ(m * m.conj(), Fq12::one());  // conj is the inverse there
  }
}

// ----- the pairing -----

TEST(Pairing, NonDegenerateAndOfOrderR) {
  Fq12 e = bls12_381::pairing(bls12_381::g1_generator(), bls12_381::g2_generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::C::kP).is_one());
}

TEST(Pairing, IdentityInputsGiveOne) {
  PP_SEEDED_RNG(rng);
  G1Affine p = random_g1(rng);
  G2Affine q = random_g2(rng);
  EXPECT_TRUE(bls12_381::pairing(G1Affine::identity(), q).is_one());
  EXPECT_TRUE(bls12_381::pairing(p, G2Affine::identity()).is_one());
  EXPECT_TRUE(bls12_381::pairing(G1Affine::identity(), G2Affine::identity()).is_one());
  EXPECT_TRUE(bls12_381::multi_pairing({}).is_one());
  EXPECT_TRUE(bls12_381::miller_loop(G1Affine::identity(), q).is_one());
}

TEST(Pairing, Bilinearity) {
  PP_SEEDED_RNG(rng);
  G1 g1 = G1::from_affine(bls12_381::g1_generator());
  G2 g2 = G2::from_affine(bls12_381::g2_generator());
  for (int i = 0; i < 3; ++i) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    G1Affine p = random_g1(rng);
    G2Affine q = random_g2(rng);
    Fq12 e = bls12_381::pairing(p, q);
    G1Affine ap = bls12_381::scalar_mul(G1::from_affine(p), a).to_affine();
    G2Affine bq = bls12_381::scalar_mul(G2::from_affine(q), b).to_affine();
    G2Affine aq = bls12_381::scalar_mul(G2::from_affine(q), a).to_affine();
    EXPECT_EQ(bls12_381::pairing(ap, bq), e.pow((a * b).to_canonical()));
    EXPECT_EQ(bls12_381::pairing(ap, q), bls12_381::pairing(p, aq));
    // Additivity in each argument, on the generators.
    G1Affine s = (bls12_381::scalar_mul(g1, a) + bls12_381::scalar_mul(g1, b)).to_affine();
    EXPECT_EQ(bls12_381::pairing(s, bls12_381::g2_generator()),
              bls12_381::pairing(bls12_381::scalar_mul(g1, a).to_affine(), bls12_381::g2_generator()) *
                  bls12_381::pairing(bls12_381::scalar_mul(g1, b).to_affine(), bls12_381::g2_generator()));
    G2Affine t = (bls12_381::scalar_mul(g2, a) + bls12_381::scalar_mul(g2, b)).to_affine();
    EXPECT_EQ(bls12_381::pairing(bls12_381::g1_generator(), t),
              bls12_381::pairing(bls12_381::g1_generator(), bls12_381::scalar_mul(g2, a).to_affine()) *
                  bls12_381::pairing(bls12_381::g1_generator(), bls12_381::scalar_mul(g2, b).to_affine()));
  }
}

TEST(Pairing, NegationCancels) {
  PP_SEEDED_RNG(rng);
  G1Affine p = random_g1(rng);
  G2Affine q = random_g2(rng);
  EXPECT_TRUE((bls12_381::pairing(p, q) * bls12_381::pairing(-p, q)).is_one());
  EXPECT_EQ(bls12_381::pairing(-p, q), bls12_381::pairing(p, -q));
  EXPECT_EQ(bls12_381::pairing(-p, q), bls12_381::pairing(p, q).conj());
  std::vector<G1G2Pair> pairs = {{p, q}, {-p, q}};
  EXPECT_TRUE(bls12_381::pairing_product_is_one(pairs));
  pairs[1].first = p;
  EXPECT_FALSE(bls12_381::pairing_product_is_one(pairs));
}

TEST(Pairing, MultiPairingIsProductOfPairings) {
  PP_SEEDED_RNG(rng);
  std::vector<G1G2Pair> pairs;
  for (int i = 0; i < 4; ++i) pairs.push_back({random_g1(rng), random_g2(rng)});
  pairs.push_back({G1Affine::identity(), random_g2(rng)});
  pairs.push_back({random_g1(rng), G2Affine::identity()});
  Fq12 prod = Fq12::one();
  for (const G1G2Pair& pq : pairs) prod = prod * bls12_381::pairing(pq.first, pq.second);
  EXPECT_EQ(bls12_381::multi_pairing(pairs), prod);
  EXPECT_EQ(bls12_381::multi_pairing(std::span<const G1G2Pair>(pairs).first(1)),
            bls12_381::pairing(pairs[0].first, pairs[0].second));
}

// The addition chain against the plain exponent 3 (p^12 - 1)/r, on Miller-loop
// outputs and on arbitrary non-zero elements.
TEST(Pairing, FinalExponentiationMatchesExponent) {
  PP_SEEDED_RNG(rng);
  const mpz_class& p = fq_modulus();
  mpz_class p12;
  mpz_pow_ui(p12.get_mpz_t(), p.get_mpz_t(), 12);
  mpz_class e = 3 * ((p12 - 1) / fr_modulus());
  ASSERT_EQ(mpz_sizeinbase(e.get_mpz_t(), 2), 4316u);
  auto exponent = limbs_of<68>(e);
  std::vector<Fq12> inputs = {Fq12::random(rng), bls12_381::miller_loop(random_g1(rng), random_g2(rng))};
  for (const Fq12& f : inputs) EXPECT_EQ(bls12_381::final_exponentiation(f), f.pow(exponent));
}

Fq from_dec(const std::string& s) { return field_of<Fq>(mpz_class(s, 10)); }
Fq from_hex(const char* s) { return field_of<Fq>(mpz_class(s, 16)); }

// e(g1, g2) for the standard generators. Published in the tests of
// zkcrypto/pairing (src/bls12_381/tests) and reproduced by noble-curves and
// kilic/bls12-381; recomputed for this test with ffjavascript 0.3.1 (snarkjs
// 0.7.6's engine, node_modules here): curve.Gt.toObject(curve.pairing(G1.g, G2.g)).
// Order: c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
TEST(Pairing, KnownAnswerForGenerators) {
  const char* kHex[12] = {
      "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
      "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
      "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
      "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
      "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
      "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
      "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
      "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
      "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
      "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
      "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
      "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
  };
  Fq12 want;
  Fq* c[12] = {&want.c0.c0.c0, &want.c0.c0.c1, &want.c0.c1.c0, &want.c0.c1.c1, &want.c0.c2.c0, &want.c0.c2.c1,
               &want.c1.c0.c0, &want.c1.c0.c1, &want.c1.c1.c0, &want.c1.c1.c1, &want.c1.c2.c0, &want.c1.c2.c1};
  for (int i = 0; i < 12; ++i) *c[i] = from_hex(kHex[i]);
  EXPECT_EQ(bls12_381::pairing(bls12_381::g1_generator(), bls12_381::g2_generator()), want);
}

// ----- snarkjs fixtures (tests/data/<circuit>/, made by scripts/make_fixtures.sh) -----

// Every quoted string of the JSON value that starts at or after `pos` (a
// string or nested arrays of strings, as snarkjs writes numbers), in order.
// Enough for verification_key.json, proof.json and public.json; not a parser.
std::vector<std::string> json_strings_at(const std::string& json, size_t pos) {
  std::vector<std::string> out;
  int depth = 0;
  for (size_t i = pos; i < json.size(); ++i) {
    if (json[i] == '[') {
      ++depth;
    } else if (json[i] == ']') {
      if (--depth <= 0) break;
    } else if (json[i] == '"') {
      size_t j = json.find('"', i + 1);
      out.push_back(json.substr(i + 1, j - i - 1));
      i = j;
      if (depth == 0) break;
    }
  }
  return out;
}
std::vector<std::string> json_strings(const std::string& json, const std::string& key) {
  size_t k = json.find("\"" + key + "\"");
  if (k == std::string::npos) return {};
  return json_strings_at(json, json.find(':', k) + 1);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// snarkjs writes points as projective triples with z = 1, or z = 0 for O.
G1Affine g1_of(const std::vector<std::string>& s, size_t at = 0) {
  if (s.at(at + 2) == "0") return G1Affine::identity();
  EXPECT_EQ(s.at(at + 2), "1");
  return {from_dec(s.at(at)), from_dec(s.at(at + 1))};
}
G2Affine g2_of(const std::vector<std::string>& s) {
  if (s.at(4) == "0" && s.at(5) == "0") return G2Affine::identity();
  return {{from_dec(s.at(0)), from_dec(s.at(1))}, {from_dec(s.at(2)), from_dec(s.at(3))}};
}

std::vector<std::filesystem::path> fixture_dirs() {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (const auto& ent : std::filesystem::directory_iterator(PP_TEST_DATA_DIR, ec)) {
    // BLS12-381 keys only: the bn128 fixtures are bn254_test.cpp's.
    if (std::filesystem::exists(ent.path() / "verification_key.json") &&
        read_text(ent.path() / "verification_key.json").find("\"bls12381\"") != std::string::npos) {
      dirs.push_back(ent.path());
    }
  }
  return dirs;
}

// snarkjs stores e(alpha, beta) in the verification key: a second known answer,
// on points other than the generators.
TEST(PairingSnarkjs, AlphaBetaMatchesVerificationKey) {
  auto dirs = fixture_dirs();
  if (dirs.empty()) GTEST_SKIP() << "no snarkjs fixtures under " << PP_TEST_DATA_DIR;
  for (const auto& dir : dirs) {
    SCOPED_TRACE(dir.string());
    std::string vk = read_text(dir / "verification_key.json");
    auto ab = json_strings(vk, "vk_alphabeta_12");
    ASSERT_EQ(ab.size(), 12u);
    Fq12 want;
    Fq* c[12] = {&want.c0.c0.c0, &want.c0.c0.c1, &want.c0.c1.c0, &want.c0.c1.c1, &want.c0.c2.c0, &want.c0.c2.c1,
                 &want.c1.c0.c0, &want.c1.c0.c1, &want.c1.c1.c0, &want.c1.c1.c1, &want.c1.c2.c0, &want.c1.c2.c1};
    for (int i = 0; i < 12; ++i) *c[i] = from_dec(ab[i]);
    EXPECT_EQ(bls12_381::pairing(g1_of(json_strings(vk, "vk_alpha_1")), g2_of(json_strings(vk, "vk_beta_2"))), want);
  }
}

// The Groth16 equation on snarkjs's own reference proof, as one multi-pairing:
// e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) == 1, L = IC_0 + sum x_i IC_i.
TEST(PairingSnarkjs, ReferenceProofSatisfiesGroth16Equation) {
  auto dirs = fixture_dirs();
  if (dirs.empty()) GTEST_SKIP() << "no snarkjs fixtures under " << PP_TEST_DATA_DIR;
  for (const auto& dir : dirs) {
    if (!std::filesystem::exists(dir / "snarkjs_proof.json")) continue;
    SCOPED_TRACE(dir.string());
    std::string vk = read_text(dir / "verification_key.json");
    std::string proof = read_text(dir / "snarkjs_proof.json");
    std::string pub_json = read_text(dir / "snarkjs_public.json");
    auto pub = json_strings_at(pub_json, 0);
    auto ic = json_strings(vk, "IC");
    ASSERT_EQ(ic.size(), 3 * (pub.size() + 1));
    auto vk_input = [&](const std::vector<std::string>& inputs) {
      G1 l = G1::from_affine(g1_of(ic, 0));
      for (size_t i = 0; i < inputs.size(); ++i) {
        l = l + bls12_381::scalar_mul(G1::from_affine(g1_of(ic, 3 * (i + 1))), field_of<Fr>(mpz_class(inputs[i], 10)));
      }
      return l.to_affine();
    };
    std::vector<G1G2Pair> pairs = {
        {-g1_of(json_strings(proof, "pi_a")), g2_of(json_strings(proof, "pi_b"))},
        {g1_of(json_strings(vk, "vk_alpha_1")), g2_of(json_strings(vk, "vk_beta_2"))},
        {vk_input(pub), g2_of(json_strings(vk, "vk_gamma_2"))},
        {g1_of(json_strings(proof, "pi_c")), g2_of(json_strings(vk, "vk_delta_2"))},
    };
    for (const G1G2Pair& pq : pairs) ASSERT_TRUE(bls12_381::in_subgroup(pq.first) && bls12_381::in_subgroup(pq.second));
    EXPECT_TRUE(bls12_381::pairing_product_is_one(pairs));
    if (!pub.empty()) {
      auto wrong = pub;
      wrong[0] = mpz_class(mpz_class(wrong[0], 10) + 1).get_str();
      pairs[2].first = vk_input(wrong);
      EXPECT_FALSE(bls12_381::pairing_product_is_one(pairs));
    }
  }
}

}  // namespace
}  // namespace proofpipe::test
