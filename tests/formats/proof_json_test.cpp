// formats/proof_json.hpp and decimal.hpp: the snarkjs JSON files (proof,
// public signals, verification key) round trip byte for byte on the
// committed fixtures, write and read back (the point at infinity too),
// accept snarkjs's Jacobian form, and refuse malformed input with one-line
// errors; decimal field elements round trip and refuse junk.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/format_files.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::formats;

TEST(Json, SnarkjsFilesRoundTripByteForByte) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto proof_path = fixture(cs.name, "snarkjs_proof.json");
    REQUIRE_FIXTURE(proof_path);
    auto proof = read_proof_json<curves::Bls12_381>(proof_path);
    ASSERT_TRUE(proof.is_ok()) << proof.status().to_string();
    EXPECT_EQ(proof_to_json(*proof), read_text(proof_path));

    auto pub_path = fixture(cs.name, "snarkjs_public.json");
    auto pub = read_public_json<curves::Bls12_381>(pub_path);
    ASSERT_TRUE(pub.is_ok()) << pub.status().to_string();
    EXPECT_EQ(public_to_json<curves::Bls12_381>(*pub), read_text(pub_path));

    auto vk_path = fixture(cs.name, "verification_key.json");
    auto vk = read_verification_key_json<curves::Bls12_381>(vk_path);
    ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
    ASSERT_TRUE(vk->alphabeta_12.has_value());
    EXPECT_EQ(verification_key_to_json(*vk), read_text(vk_path));

    // The key exported from the zkey, with e(alpha, beta) passed through the hook.
    auto z = load_zkey<curves::Bls12_381>(fixture(cs.name, "circuit.zkey"));
    ASSERT_TRUE(z.is_ok());
    EXPECT_TRUE(verification_key_from_zkey(*z, vk->alphabeta_12) == *vk);
    VerificationKeyT<curves::Bls12_381> no_ab = verification_key_from_zkey(*z);
    EXPECT_EQ(verification_key_to_json(no_ab).find("vk_alphabeta_12"), std::string::npos);
    auto back = verification_key_from_json<curves::Bls12_381>(verification_key_to_json(no_ab));
    ASSERT_TRUE(back.is_ok());
    EXPECT_TRUE(*back == no_ab);
  }
}

TEST(Json, WritesAndReadsFilesIncludingInfinity) {
  TempDir dir;
  ProofT<curves::Bls12_381> proof{bls12_381::g1_generator(), bls12_381::g2_generator(),
                                  bls12_381::G1Affine::identity()};
  ASSERT_TRUE(write_proof_json(dir / "proof.json", proof).is_ok());
  auto back = read_proof_json<curves::Bls12_381>(dir / "proof.json");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(*back == proof);
  EXPECT_NE(proof_to_json(proof).find("\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]"), std::string::npos);
  ProofT<curves::Bls12_381> inf_b{bls12_381::g1_generator(), bls12_381::G2Affine::identity(),
                                  bls12_381::g1_generator()};
  EXPECT_TRUE(proof_from_json<curves::Bls12_381>(proof_to_json(inf_b)).value() == inf_b);

  std::vector<bls12_381::Fr> pub = {bls12_381::Fr::from_u64(7), bls12_381::Fr::zero(), -bls12_381::Fr::one()};
  ASSERT_TRUE(write_public_json<curves::Bls12_381>(dir / "public.json", pub).is_ok());
  auto pub_back = read_public_json<curves::Bls12_381>(dir / "public.json");
  ASSERT_TRUE(pub_back.is_ok());
  EXPECT_EQ(*pub_back, pub);
  EXPECT_EQ(public_to_json<curves::Bls12_381>({}), "[]");

  expect_error(write_proof_json(dir / "no_dir" / "p.json", proof), ErrorCode::kIo, dir / "no_dir" / "p.json",
               "cannot write proof");
  expect_error(read_proof_json<curves::Bls12_381>(dir / "absent.json").status(), ErrorCode::kNotFound,
               dir / "absent.json", "no such file");
}

TEST(Json, ReadsJacobianZLikeSnarkjs) {
  // (x*z^2, y*z^3, z) with z = 2 is the generator.
  bls12_381::G1Affine g = bls12_381::g1_generator();
  bls12_381::Fq z = bls12_381::Fq::from_u64(2);
  std::string x = to_decimal(g.x * z.sqr()), y = to_decimal(g.y * z.sqr() * z);
  std::string gx = to_decimal(g.x), gy = to_decimal(g.y);
  ProofT<curves::Bls12_381> ref{g, bls12_381::g2_generator(), g};
  std::string text = proof_to_json(ref);
  std::string jac = text;
  jac.replace(jac.find(gx), gx.size(), x);
  jac.replace(jac.find(gy), gy.size(), y);
  jac.replace(jac.find("\"1\""), 3, "\"2\"");
  auto p = proof_from_json<curves::Bls12_381>(jac);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  EXPECT_TRUE(*p == ref);
}

TEST(Json, RejectsMalformedInputWithOneLineErrors) {
  const std::string good = proof_to_json(formats::ProofT<curves::Bls12_381>{
      bls12_381::g1_generator(), bls12_381::g2_generator(), bls12_381::g1_generator()});
  const std::string gx = to_decimal(bls12_381::g1_generator().x);
  auto bad_proof = [&](const std::string& text, const std::string& needle) {
    SCOPED_TRACE(needle);
    auto r = proof_from_json<curves::Bls12_381>(text, "proof 'p.json'");
    expect_error(r.status(), ErrorCode::kBadFormat, "proof 'p.json'", needle);
  };
  auto replaced = [&](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  bad_proof("{", "malformed JSON");
  bad_proof(good.substr(0, good.size() / 2), "malformed JSON");
  bad_proof("[]", "expected a JSON object");
  bad_proof(replaced(good, "pi_a", "pi_x"), "missing \"pi_a\"");
  bad_proof(replaced(good, "\"groth16\"", "\"plonk\""), "unsupported protocol \"plonk\"");
  bad_proof(replaced(good, "\"bls12381\"", "\"bn128\""), "curve mismatch: \"bn128\", expected \"bls12381\"");
  bad_proof(replaced(good, gx, "12a"), "pi_a[0]: '12a' is not a decimal number");
  bad_proof(replaced(good, gx, "-1"), "'-1' is not a decimal number");
  bad_proof(replaced(good, "\"" + gx + "\"", "12"), "pi_a[0]: expected a decimal string");
  bad_proof(replaced(good, gx, gx + "0"), "is not below the base field modulus q");
  bad_proof(replaced(good, gx, "5"), "pi_a: point is not on the curve");
  bad_proof(replaced(good, "\"" + gx + "\",", ""), "pi_a: expected an array of 3");
  bad_proof(replaced(good, "[\n   \"1\",\n   \"0\"\n  ]", "[\"1\"]"), "pi_b[2]: expected an array of 2");
  bad_proof(replaced(good, gx, "0\",\"0"), "pi_a: expected an array of 3");

  auto bad_public = [&](const std::string& text, const std::string& needle) {
    SCOPED_TRACE(needle);
    expect_error(public_from_json<curves::Bls12_381>(text, "public 'x.json'").status(), ErrorCode::kBadFormat,
                 "public 'x.json'", needle);
  };
  bad_public("{\"a\": 1}", "expected a JSON array");
  bad_public("[\"1\", 2]", "[1]: expected a decimal string");
  bad_public("[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
             "[0]: '524358751751261904794477...' (77 chars) is not below the scalar field modulus r");
  bad_public("[\"1\"\n\"2\"]", "malformed JSON");

  auto vk_path = fixture("multi_io", "verification_key.json");
  if (fs::exists(vk_path)) {
    const std::string vk = read_text(vk_path);
    auto bad_vk = [&](const std::string& text, const std::string& needle) {
      SCOPED_TRACE(needle);
      expect_error(verification_key_from_json<curves::Bls12_381>(text, "vk 'v.json'").status(), ErrorCode::kBadFormat,
                   "vk 'v.json'", needle);
    };
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": 4"), "IC: expected an array of nPublic + 1 = 5 points");
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": -5"), "nPublic: expected a non-negative integer");
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": \"5\""), "nPublic: expected a non-negative integer");
    bad_vk(replaced(vk, "vk_gamma_2", "vk_gama_2"), "missing \"vk_gamma_2\"");
    bad_vk(replaced(vk, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": [[],"),
           "vk_alphabeta_12: expected an array of 2");
  }
}

// A verifier is fed untrusted files: 100,000 nested arrays in a proof, a
// public list or a key is one error line, never a stack overflow: the tree
// is never built past kMaxJsonDepth levels (bounded_json.hpp).
TEST(Json, NestedFarTooDeepIsOneErrorLineNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string in_object = R"({"curve": "bls12381", "pi_a": )" + deep + "}";
  expect_error(proof_from_json<curves::Bls12_381>(in_object, "proof 'p.json'").status(), ErrorCode::kBadFormat,
               "proof 'p.json'", "nested deeper than 64");
  expect_error(public_from_json<curves::Bls12_381>(deep, "public 'x.json'").status(), ErrorCode::kBadFormat,
               "public 'x.json'", "nested deeper than 64");
  expect_error(verification_key_from_json<curves::Bn254>(in_object, "vk 'v.json'").status(), ErrorCode::kBadFormat,
               "vk 'v.json'", "nested deeper than 64");
  expect_error(json_curve(in_object, "vk 'v.json'").status(), ErrorCode::kBadFormat, "vk 'v.json'",
               "nested deeper than 64");
  // 64 levels (the object and 63 arrays) are read, and refused for their shape.
  const std::string d64 = R"({"pi_a": )" + std::string(63, '[') + std::string(63, ']') + "}";
  const Status shape = proof_from_json<curves::Bls12_381>(d64).status();
  EXPECT_EQ(shape.message().find("nested"), std::string::npos) << shape.message();
  EXPECT_NE(shape.message().find("missing"), std::string::npos) << shape.message();
}

TEST(BoundedJson, CapsDepthWhileParsingAndSaysWhy) {
  const auto nest = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(parse_json_bounded(nest(kMaxJsonDepth)).is_ok());
  EXPECT_TRUE(parse_ordered_json_bounded(nest(kMaxJsonDepth)).is_ok());
  for (const Status& st :
       {parse_json_bounded(nest(kMaxJsonDepth + 1)).status(), parse_ordered_json_bounded(nest(1000000)).status(),
        parse_json_bounded(R"({"a":[{"b":)" + nest(62) + "}]}").status()}) {
    EXPECT_EQ(st.code(), ErrorCode::kBadFormat);
    EXPECT_EQ(st.message(), "JSON nested deeper than 64 arrays and objects");
  }
  EXPECT_TRUE(parse_json_bounded(R"({"a":[{"b":)" + nest(61) + "}]}").is_ok());
  EXPECT_TRUE(parse_json_bounded(nest(3), 3).is_ok());
  EXPECT_FALSE(parse_json_bounded(nest(4), 3).is_ok());
  // Brackets inside strings are text, not nesting.
  const std::string in_string = "[\"" + std::string(1000, '[') + "\"]";
  EXPECT_TRUE(parse_json_bounded(in_string).is_ok());
  EXPECT_EQ(json_depth_problem(in_string), "");
  EXPECT_EQ(json_depth_problem(nest(kMaxJsonDepth)), "");
  EXPECT_EQ(json_depth_problem(nest(kMaxJsonDepth + 1)), "JSON nested deeper than 64 arrays and objects");
  const Status bad = parse_json_bounded("{\"a\":\n1,}").status();
  EXPECT_EQ(bad.code(), ErrorCode::kBadFormat);
  EXPECT_EQ(bad.message().rfind("malformed JSON: ", 0), 0u) << bad.message();
  EXPECT_EQ(bad.message().find('\n'), std::string::npos) << bad.message();
}

TEST(Decimal, RoundTripsAndRejectsJunk) {
  EXPECT_EQ(to_decimal(bls12_381::Fr::zero()), "0");
  EXPECT_EQ(to_decimal(-bls12_381::Fr::one()),
            "52435875175126190479447740508185965837690552500527637822603658699938581184512");
  EXPECT_TRUE(from_decimal<bls12_381::Fr>("0007").value() == bls12_381::Fr::from_u64(7));
  EXPECT_TRUE(from_decimal<bls12_381::Fr>("000").value().is_zero());
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1e3"})
    EXPECT_FALSE(from_decimal<bls12_381::Fr>(bad).is_ok()) << bad;
  EXPECT_FALSE(from_decimal<bls12_381::Fq>(std::string(200, '9')).is_ok());
  std::string nl = from_decimal<bls12_381::Fr>("1\n2").status().message();
  EXPECT_EQ(nl.find('\n'), std::string::npos) << nl;
}

}  // namespace
}  // namespace proofpipe::test
