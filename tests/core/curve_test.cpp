// G1 and G2 of BLS12-381: group laws on random points, known generator
// coordinates, on-curve and subgroup checks (including points on the curve
// but outside the r-order subgroup), XYZZ and batch normalisation against
// Jacobian, and the zkey point encoding (hand-built bytes, and the header
// points of a real snarkjs key against its verification_key.json).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fq2;
using bls12_381::Fr;

using bls12_381::generator;

template <class Cfg, class Rng>
ec::Jacobian<Cfg> random_point(Rng& rng) {
  return bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(generator<Cfg>()), Fr::random(rng));
}

// A point on the curve, found by trying random x until x^3 + b is a square.
// The r-order subgroup is a 2^-126 (G1) or 2^-380 (G2) fraction of the
// curve, so such a point is outside it unless the test is astronomically lucky.
template <class Cfg, class Rng>
ec::Affine<Cfg> random_curve_point(Rng& rng) {
  using F = typename Cfg::Field;
  for (;;) {
    const F x = F::random(rng);
    F y;
    if ((x.sqr() * x + Cfg::b()).sqrt(&y)) return {x, y};
  }
}

template <class Cfg>
class CurveTest : public ::testing::Test {};
using Groups = ::testing::Types<bls12_381::G1Cfg, bls12_381::G2Cfg>;
TYPED_TEST_SUITE(CurveTest, Groups);

TYPED_TEST(CurveTest, GroupLaws) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  PP_SEEDED_RNG(rng);
  const J o = J::identity();
  for (int iter = 0; iter < 4; ++iter) {
    const J p = random_point<Cfg>(rng), q = random_point<Cfg>(rng), r = random_point<Cfg>(rng);
    EXPECT_TRUE(p.on_curve());
    EXPECT_EQ((p + q) + r, p + (q + r));
    EXPECT_EQ(p + q, q + p);
    EXPECT_EQ(p + o, p);
    EXPECT_EQ(o + p, p);
    EXPECT_TRUE((p + (-p)).is_identity());
    EXPECT_EQ(p.dbl(), p + p);
    EXPECT_EQ(p + q, p.add_affine(q.to_affine()));
    EXPECT_EQ(p + p, p.add_affine(p.to_affine()));              // mixed add, equal points
    EXPECT_TRUE(p.add_affine((-p).to_affine()).is_identity());  // mixed add, opposite points
    EXPECT_EQ(o.add_affine(q.to_affine()), q);
    EXPECT_EQ(p.add_affine(ec::Affine<Cfg>::identity()), p);
    EXPECT_EQ(J::from_affine(p.to_affine()), p);
  }
}

TYPED_TEST(CurveTest, ScalarMultiplication) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  PP_SEEDED_RNG(rng);
  const J g = J::from_affine(generator<Cfg>());
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  EXPECT_EQ(bls12_381::scalar_mul(g, a) + bls12_381::scalar_mul(g, b), bls12_381::scalar_mul(g, a + b));
  EXPECT_EQ(bls12_381::scalar_mul(bls12_381::scalar_mul(g, a), b), bls12_381::scalar_mul(g, a * b));
  EXPECT_TRUE(bls12_381::scalar_mul(g, Fr::zero()).is_identity());
  EXPECT_EQ(bls12_381::scalar_mul(g, Fr::one()), g);
  EXPECT_EQ(bls12_381::scalar_mul(g, Fr::from_u64(2)), g.dbl());
  EXPECT_TRUE(g.mul(Fr::C::kP).is_identity());            // [r]G = O
  EXPECT_EQ(g.mul(ff::limbs_sub_u64(Fr::C::kP, 1)), -g);  // [r-1]G = -G
  EXPECT_EQ(bls12_381::scalar_mul(g, -Fr::one()), -g);
  EXPECT_FALSE(g.mul(ff::limbs_sub_u64(Fr::C::kP, 2)).is_identity());
}

TYPED_TEST(CurveTest, OnCurveAndSubgroupChecks) {
  using Cfg = TypeParam;
  PP_SEEDED_RNG(rng);
  EXPECT_TRUE(bls12_381::in_subgroup(generator<Cfg>()));
  EXPECT_TRUE(bls12_381::in_subgroup(ec::Affine<Cfg>::identity()));
  const auto k_g = random_point<Cfg>(rng).to_affine();  // [k]G
  EXPECT_TRUE(k_g.on_curve());
  EXPECT_TRUE(bls12_381::in_subgroup(k_g));
  // Off the curve: y changed.
  auto bad = k_g;
  bad.y = bad.y + Cfg::Field::one();
  EXPECT_FALSE(bad.on_curve());
  EXPECT_FALSE(bls12_381::in_subgroup(bad));
  // On the curve, outside the subgroup: must be rejected.
  for (int i = 0; i < 3; ++i) {
    const auto p = random_curve_point<Cfg>(rng);
    EXPECT_TRUE(p.on_curve());
    EXPECT_FALSE(bls12_381::in_subgroup(p));
  }
}

// G1's cofactor h1 = 0x396c8c005555e1568c00aaab0000aaab (Bowe 2017): [h1]P
// of any curve point lands in the subgroup, and is accepted.
TEST(Curve, G1CofactorClearingEntersSubgroup) {
  PP_SEEDED_RNG(rng);
  const auto p = random_curve_point<bls12_381::G1Cfg>(rng);
  ASSERT_FALSE(bls12_381::in_subgroup(p));
  const auto h = ff::limbs_from_hex<2>("0x396c8c005555e1568c00aaab0000aaab");
  const auto q = bls12_381::G1::from_affine(p).mul(h).to_affine();
  EXPECT_TRUE(bls12_381::in_subgroup(q));
  EXPECT_FALSE(q.is_identity());
}

// Canonical coordinates of the generators (draft-irtf-cfrg-pairing-friendly-
// curves-11 §4.2.1), typed here independently of ec/bls12_381.hpp.
TEST(Curve, KnownGeneratorCoordinates) {
  auto hex = [](const Fq& f) { return value_of(f).get_str(16); };
  const auto g1 = bls12_381::g1_generator();
  EXPECT_EQ(hex(g1.x),
            "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  EXPECT_EQ(hex(g1.y),
            "8b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
  const auto g2 = bls12_381::g2_generator();
  EXPECT_EQ(hex(g2.x.c0),
            "24aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
  EXPECT_EQ(hex(g2.x.c1),
            "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
  EXPECT_EQ(hex(g2.y.c0),
            "ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
  EXPECT_EQ(hex(g2.y.c1),
            "606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
  EXPECT_TRUE(g1.on_curve());
  EXPECT_TRUE(g2.on_curve());
}

TYPED_TEST(CurveTest, XyzzMatchesJacobian) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  using X = ec::Xyzz<Cfg>;
  PP_SEEDED_RNG(rng);
  const J p = random_point<Cfg>(rng), q = random_point<Cfg>(rng);
  const auto pa = p.to_affine(), qa = q.to_affine();
  // Build XYZZ values with non-trivial ZZ by adding through the formulas.
  const X xp = X::from_affine(pa).dbl().add_affine(pa), xq = X::from_affine(qa).add_affine(qa);
  EXPECT_EQ(xp.to_jacobian(), p.dbl() + p);
  EXPECT_EQ(xq.to_jacobian(), q.dbl());
  EXPECT_EQ((xp + xq).to_jacobian(), p.dbl() + p + q.dbl());
  EXPECT_EQ((xp + xp).to_jacobian(), (p.dbl() + p).dbl());  // full add of equal points
  EXPECT_TRUE((xp + (-xp)).is_identity());
  EXPECT_EQ(xp.add_affine(qa).to_jacobian(), p.dbl() + p + q);
  EXPECT_EQ(xp.sub_affine(qa).to_jacobian(), p.dbl() + p - q);
  EXPECT_TRUE(X::from_affine(pa).sub_affine(pa).is_identity());
  EXPECT_EQ(X::dbl_affine(pa).to_jacobian(), p.dbl());
  EXPECT_EQ(J::from_affine(xp.to_affine()), p.dbl() + p);
  EXPECT_EQ((X::identity() + xq).to_jacobian(), q.dbl());
  EXPECT_TRUE(X::identity().to_jacobian().is_identity());
  EXPECT_TRUE(X::identity().to_affine().is_identity());
}

TYPED_TEST(CurveTest, BatchToAffine) {
  using Cfg = TypeParam;
  using J = ec::Jacobian<Cfg>;
  PP_SEEDED_RNG(rng);
  std::vector<J> in;
  for (int i = 0; i < 9; ++i) in.push_back(i % 4 == 1 ? J::identity() : random_point<Cfg>(rng).dbl());
  std::vector<ec::Affine<Cfg>> out(in.size());
  ec::batch_to_affine<Cfg>(in, out);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], in[i].to_affine()) << i;
  ec::batch_to_affine<Cfg>(std::span<const J>(), std::span<ec::Affine<Cfg>>());  // empty is fine
}

std::vector<mpz_class> json_numbers(const std::string& text, const std::string& key, int count) {
  std::vector<mpz_class> out;
  size_t pos = text.find("\"" + key + "\"");
  if (pos == std::string::npos) return out;
  pos += key.size() + 2;
  while (int(out.size()) < count) {
    const size_t a = text.find('"', pos), b = text.find('"', a + 1);
    if (a == std::string::npos || b == std::string::npos) break;
    out.emplace_back(text.substr(a + 1, b - a - 1), 10);
    pos = b + 1;
  }
  return out;
}

// A real snarkjs BLS12-381 key (tests/data, made by scripts/make_fixtures.sh):
// its section-2 header points, as the zkey reader gives them, are the
// decimal coordinates snarkjs exported in verification_key.json, and gamma_2
// is the G2 generator (snarkjs never changes gamma). The n8q offset from
// docs/design/formats.md §2.3.
TEST(ZkeyHeader, SnarkjsKeyHeaderPointsMatchVerificationKey) {
  const std::string dir = std::string(PP_TEST_DATA_DIR) + "/multi_io/";
  std::ifstream zf(dir + "circuit.zkey", std::ios::binary), vf(dir + "verification_key.json");
  if (!zf || !vf) GTEST_SKIP() << "fixtures not generated (scripts/make_fixtures.sh)";
  const std::vector<uint8_t> z((std::istreambuf_iterator<char>(zf)), std::istreambuf_iterator<char>());
  std::stringstream vs;
  vs << vf.rdbuf();
  const std::string vk = vs.str();
  ASSERT_GE(z.size(), 1004u);
  ASSERT_EQ(z[40], 48);  // n8q
  // The key's header as the prover reads it (formats::load_zkey, its
  // points checked on the curve and in the subgroup).
  formats::ZkeyLoadOptions options;
  options.points = false;
  auto zkey = formats::load_zkey<curves::Bls12_381>(dir + "circuit.zkey", options);
  ASSERT_TRUE(zkey.is_ok()) << zkey.status().to_string();
  const auto& h = zkey->header();
  const auto* alpha = &h.alpha1;
  const auto va = json_numbers(vk, "vk_alpha_1", 2);
  ASSERT_EQ(va.size(), 2u);
  EXPECT_EQ(value_of(alpha->x), va[0]);
  EXPECT_EQ(value_of(alpha->y), va[1]);
  for (auto [key, point] : {std::pair{"vk_beta_2", &h.beta2}, {"vk_gamma_2", &h.gamma2}, {"vk_delta_2", &h.delta2}}) {
    const auto* p = point;
    const auto v = json_numbers(vk, key, 4);
    ASSERT_EQ(v.size(), 4u) << key;
    EXPECT_EQ(value_of(p->x.c0), v[0]) << key;
    EXPECT_EQ(value_of(p->x.c1), v[1]) << key;
    EXPECT_EQ(value_of(p->y.c0), v[2]) << key;
    EXPECT_EQ(value_of(p->y.c1), v[3]) << key;
  }
  EXPECT_EQ(h.gamma2, bls12_381::g2_generator());
  EXPECT_TRUE(h.beta1.on_curve());
  EXPECT_TRUE(h.delta1.on_curve());
}

}  // namespace
}  // namespace proofpipe::test
