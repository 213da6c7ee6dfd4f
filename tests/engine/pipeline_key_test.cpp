// engine::PipelineKey (engine/include/proofpipe/engine/key.hpp) on the snarkjs
// fixtures of both curves: the curve and proof size read from the zkey, a
// witness checked in the key's curve (the other curve's is "curve
// mismatch"), and snarkjs's own proof of w00 verified through the raw-bytes
// and file paths the pipeline uses; a proof of the wrong size is an error.
#include <gtest/gtest.h>

#include "proofpipe/engine/key.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "support/format_files.hpp"

namespace proofpipe::test {
namespace {

struct Case {
  const char* dir;
  const char* other;  // the same circuit for the other curve
  curves::CurveId curve;
  const char* name;
  size_t proof_bytes;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class PipelineKeyTest : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineKeyTest, ChecksWitnessesAndVerifiesInItsCurve) {
  const Case& c = GetParam();
  REQUIRE_FIXTURE(fixture(c.dir, "circuit.zkey"));
  auto loaded = engine::load_pipeline_key(fixture(c.dir, "circuit.zkey"));
  ASSERT_TRUE(loaded) << loaded.status().to_string();
  const engine::PipelineKey& key = **loaded;
  EXPECT_EQ(key.curve(), c.curve);
  EXPECT_EQ(key.curve_name(), c.name);
  EXPECT_EQ(key.proof_bytes(), c.proof_bytes);
  EXPECT_GT(key.constraints(), 0u);

  std::vector<engine::FrWords> pub(key.n_public());
  ASSERT_TRUE(key.check_witness(fixture(c.dir, "w00.wtns"), pub).is_ok());
  auto theirs = key.read_public_json(fixture(c.dir, "snarkjs_public.json"));
  ASSERT_TRUE(theirs) << theirs.status().to_string();
  EXPECT_EQ(*theirs, pub);
  std::vector<engine::FrWords> again(key.n_public());
  ASSERT_TRUE(key.read_public(fixture(c.dir, "w00.wtns"), again).is_ok());
  EXPECT_EQ(again, pub);
  // No public signals wanted, as the service's intake checks a witness: an
  // empty span (a null pointer) must not reach memcpy (UBSan's finding; this
  // aborts in the sanitizer build if it does).
  EXPECT_TRUE(key.check_witness(fixture(c.dir, "w00.wtns"), {}).is_ok());
  EXPECT_TRUE(key.read_public(fixture(c.dir, "w00.wtns"), {}).is_ok());

  const Status other = key.check_witness(fixture(c.other, "w00.wtns"), pub);
  EXPECT_FALSE(other.is_ok());
  EXPECT_NE(other.message().find("curve mismatch"), std::string::npos) << other.to_string();

  auto verdict = key.verify_proof_file(fixture(c.dir, "snarkjs_proof.json"), pub);
  ASSERT_TRUE(verdict) << verdict.status().to_string();
  EXPECT_TRUE(verdict->valid) << verdict->reason;
  // The same proof as the bytes a PROOF message carries.
  const auto raw = [&](auto curve) {
    auto proof = formats::read_proof_json<decltype(curve)>(fixture(c.dir, "snarkjs_proof.json"));
    EXPECT_TRUE(proof);
    return std::string(reinterpret_cast<const char*>(&*proof), sizeof *proof);
  };
  const std::string bytes = c.curve == curves::CurveId::kBn254 ? raw(curves::Bn254{}) : raw(curves::Bls12_381{});
  ASSERT_EQ(bytes.size(), c.proof_bytes);
  verdict = key.verify(pub, bytes);
  ASSERT_TRUE(verdict) << verdict.status().to_string();
  EXPECT_TRUE(verdict->valid) << verdict->reason;
  pub[0][0] ^= 1;  // another public signal: the pairing check fails
  verdict = key.verify(pub, bytes);
  ASSERT_TRUE(verdict) << verdict.status().to_string();
  EXPECT_FALSE(verdict->valid);
  EXPECT_FALSE(key.verify(pub, bytes.substr(1)));
}

INSTANTIATE_TEST_SUITE_P(Curves, PipelineKeyTest,
                         ::testing::Values(Case{"multi_io", "multi_io_bn128", curves::CurveId::kBls12_381, "bls12381",
                                                384},
                                           Case{"multi_io_bn128", "multi_io", curves::CurveId::kBn254, "bn128", 256}),
                         [](const ::testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace proofpipe::test
