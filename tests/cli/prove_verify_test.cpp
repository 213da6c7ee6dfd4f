// End-to-end through the real executables: `proofpipe prove/verify/export-vkey`
// against the pinned snarkjs on the committed fixtures (tests/data). Every
// proof we make must pass `snarkjs groth16 verify`, every snarkjs proof must
// pass ours, tampering must give INVALID (exit 1), bad input exit 2 with one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ProveVerify : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path dir() const { return data_dir() / GetParam(); }
  TempDir tmp_;
};

TEST_P(ProveVerify, OurProofsVerifyWithSnarkjsAndOurs) {
  for (const char* w : {"w00.wtns", "w01.wtns"}) {
    SCOPED_TRACE(w);
    const fs::path proof = tmp_ / "proof.json", pub = tmp_ / "public.json";
    auto r = pp_prove(dir() / "circuit.zkey", dir() / w, proof, pub);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto ours = pp_verify(dir() / "verification_key.json", pub, proof);
    EXPECT_EQ(ours.exit_code, 0) << ours.output;
    EXPECT_NE(ours.output.find("OK"), std::string::npos) << ours.output;
    auto theirs = snarkjs_verify(dir() / "verification_key.json", pub, proof);
    EXPECT_EQ(theirs.exit_code, 0) << theirs.output;
    EXPECT_NE(theirs.output.find("OK"), std::string::npos) << theirs.output;
  }
  // w00 is the witness snarkjs proved: same public signals.
  ASSERT_EQ(pp_prove(dir() / "circuit.zkey", dir() / "w00.wtns", tmp_ / "p.json", tmp_ / "pub.json").exit_code, 0);
  EXPECT_EQ(read_json(tmp_ / "pub.json"), read_json(dir() / "snarkjs_public.json"));
}

TEST_P(ProveVerify, SnarkjsProofsVerifyWithOurs) {
  auto r = pp_verify(dir() / "verification_key.json", dir() / "snarkjs_public.json", dir() / "snarkjs_proof.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos);
}

TEST_P(ProveVerify, TamperedPublicInputIsInvalidForBoth) {
  json pub = read_json(dir() / "snarkjs_public.json");
  // Add one to the first public signal (stays below r for these fixtures).
  std::string v = pub[0].get<std::string>();
  int i = static_cast<int>(v.size()) - 1;
  while (i >= 0 && v[i] == '9') v[i--] = '0';
  if (i < 0) {
    v = std::string("1") + v;
  } else {
    ++v[i];
  }
  pub[0] = v;
  write_json(tmp_ / "bad_public.json", pub);
  auto ours = pp_verify(dir() / "verification_key.json", tmp_ / "bad_public.json", dir() / "snarkjs_proof.json");
  EXPECT_EQ(ours.exit_code, 1) << ours.output;
  EXPECT_NE(ours.output.find("INVALID"), std::string::npos) << ours.output;
  auto theirs = snarkjs_verify(dir() / "verification_key.json", tmp_ / "bad_public.json", dir() / "snarkjs_proof.json");
  EXPECT_EQ(theirs.output.find("OK!"), std::string::npos) << theirs.output;
}

TEST_P(ProveVerify, TamperedProofIsInvalidForBoth) {
  // Swap pi_a and pi_c: both stay valid G1 points, the pairing equation fails.
  json proof = read_json(dir() / "snarkjs_proof.json");
  std::swap(proof["pi_a"], proof["pi_c"]);
  write_json(tmp_ / "bad_proof.json", proof);
  auto ours = pp_verify(dir() / "verification_key.json", dir() / "snarkjs_public.json", tmp_ / "bad_proof.json");
  EXPECT_EQ(ours.exit_code, 1) << ours.output;
  EXPECT_NE(ours.output.find("INVALID"), std::string::npos) << ours.output;
  auto theirs = snarkjs_verify(dir() / "verification_key.json", dir() / "snarkjs_public.json", tmp_ / "bad_proof.json");
  EXPECT_EQ(theirs.output.find("OK!"), std::string::npos) << theirs.output;
}

TEST_P(ProveVerify, ExportVkeyMatchesSnarkjs) {
  auto r = run_command(proofpipe() + " export-vkey " + quote(dir() / "circuit.zkey") + " " + quote(tmp_ / "vk.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(tmp_ / "vk.json"), read_json(dir() / "verification_key.json"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ProveVerify,
                         ::testing::Values("multi_io", "sparse_dense", "multi_io_bn128", "sparse_dense_bn128"));

// A key and a witness (or a vkey and a proof) for different curves: one
// line naming the file and both curves, exit 2, nothing written.
TEST(CrossCurve, MismatchedFilesAreOneLineExit2) {
  TempDir tmp;
  const fs::path bls = data_dir() / "multi_io", bn = data_dir() / "multi_io_bn128";
  const fs::path proof = tmp / "p.json", pub = tmp / "pub.json";
  for (const auto& [key, wtns, want] :
       {std::tuple{bn / "circuit.zkey", bls / "w01.wtns", "is bls12381's, expected bn128"},
        std::tuple{bls / "circuit.zkey", bn / "w01.wtns", "is bn128's, expected bls12381"}}) {
    auto r = pp_prove(key, wtns, proof, pub);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(wtns.filename().string()), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(proof) || fs::exists(pub));
  }
  // A bn128 proof against a bls12381 vkey, and the reverse.
  auto r = pp_verify(bls / "verification_key.json", bn / "snarkjs_public.json", bn / "snarkjs_proof.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("curve mismatch"), std::string::npos) << r.output;
  r = pp_verify(bn / "verification_key.json", bls / "snarkjs_public.json", bls / "snarkjs_proof.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("curve mismatch"), std::string::npos) << r.output;
  // --backend cuda has no bn128 kernels: one line, exit 2.
  r = run_command(proofpipe() + " prove " + quote(bn / "circuit.zkey") + " " + quote(bn / "w01.wtns") + " " +
                  quote(proof) + " " + quote(pub) + " --backend cuda");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bls12381 keys only"), std::string::npos) << r.output;
  // The pipeline's --backend cuda the same, naming the key.
  r = pp_run("--zkey " + quote(bn / "circuit.zkey") + " --witness " + quote(bn / "w01.wtns") + " --out " +
             quote(tmp / "out") + " --backend cuda");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is a bn128 key and the CUDA backend proves bls12381 keys only"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp / "out" / "w01.proof.json"));
}

// ----- bad input: exit 2, one line naming the file and the problem, no output files -----

class BadInput : public ::testing::Test {
 protected:
  fs::path copy_of(const fs::path& src, const std::string& name) {
    fs::copy_file(src, tmp_ / name);
    return tmp_ / name;
  }
  static void truncate_to(const fs::path& p, uintmax_t size) { fs::resize_file(p, size); }
  void expect_error(const CommandResult& r, const std::string& needle) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.output;
    // One error line (the log line of a successful run never appears).
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(tmp_ / "proof.json"));
    EXPECT_FALSE(fs::exists(tmp_ / "public.json"));
  }
  CommandResult prove(const fs::path& zkey, const fs::path& wtns) {
    return pp_prove(zkey, wtns, tmp_ / "proof.json", tmp_ / "public.json");
  }
  fs::path multi() const { return data_dir() / "multi_io"; }
  TempDir tmp_;
};

TEST_F(BadInput, MissingZkey) { expect_error(prove(tmp_ / "nope.zkey", multi() / "w00.wtns"), "nope.zkey"); }

TEST_F(BadInput, TruncatedZkey) {
  fs::path z = copy_of(multi() / "circuit.zkey", "t.zkey");
  truncate_to(z, fs::file_size(z) / 2);
  expect_error(prove(z, multi() / "w00.wtns"), "t.zkey");
}

TEST_F(BadInput, BadMagicWitness) {
  fs::path w = copy_of(multi() / "w00.wtns", "m.wtns");
  std::fstream f(w, std::ios::in | std::ios::out | std::ios::binary);
  f.write("xxxx", 4);
  f.close();
  expect_error(prove(multi() / "circuit.zkey", w), "m.wtns");
}

TEST_F(BadInput, WitnessLengthNotMatchingTheKey) {
  expect_error(prove(data_dir() / "sparse_dense" / "circuit.zkey", multi() / "w00.wtns"), "w00.wtns");
}

TEST_F(BadInput, UnwritableOutput) {
  auto r =
      pp_prove(multi() / "circuit.zkey", multi() / "w00.wtns", tmp_ / "no/such/dir/proof.json", tmp_ / "public.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no/such/dir"), std::string::npos) << r.output;
}

// A zkey where verify takes the vkey JSON: named as what it is, with the
// command that makes the vkey, not a JSON parse error.
TEST_F(BadInput, VerifyHandedAZkeySaysWhatItTakes) {
  auto r = pp_verify(multi() / "circuit.zkey", multi() / "snarkjs_public.json", multi() / "snarkjs_proof.json");
  expect_error(r, "a proving key (zkey); it takes the verification key JSON");
  EXPECT_NE(r.output.find("proofpipe export-vkey"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("malformed JSON"), std::string::npos) << r.output;
}

// A verifier is fed untrusted files: a proof, public list or key nested
// 100,000 deep (200 KB) is one error line and exit 2, never a signal.
TEST_F(BadInput, VerifyWithJsonNested100000Deep) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::ofstream(tmp_ / "deep_proof.json") << R"({"protocol": "groth16", "curve": "bls12381", "pi_a": )" << deep << "}";
  std::ofstream(tmp_ / "deep_public.json") << deep;
  std::ofstream(tmp_ / "deep_vkey.json") << R"({"protocol": "groth16", "curve": "bls12381", "IC": )" << deep << "}";
  const fs::path vk = multi() / "verification_key.json", pub = multi() / "snarkjs_public.json",
                 proof = multi() / "snarkjs_proof.json";
  for (const auto& [v, u, p, named] : {std::tuple{vk, pub, tmp_ / "deep_proof.json", "deep_proof.json"},
                                       std::tuple{vk, tmp_ / "deep_public.json", proof, "deep_public.json"},
                                       std::tuple{tmp_ / "deep_vkey.json", pub, proof, "deep_vkey.json"}}) {
    SCOPED_TRACE(named);
    const auto r = pp_verify(v, u, p);
    expect_error(r, "nested deeper than 64");
    EXPECT_NE(r.output.find(named), std::string::npos) << r.output;
  }
}

TEST_F(BadInput, VerifyWithMalformedJson) {
  std::ofstream(tmp_ / "broken.json") << "{ \"pi_a\": [1, 2";
  auto r = pp_verify(multi() / "verification_key.json", multi() / "snarkjs_public.json", tmp_ / "broken.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("broken.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
