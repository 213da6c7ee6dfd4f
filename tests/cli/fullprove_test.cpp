// `proofpipe fullprove`: snarkjs's argument order, the witness from circom's
// generator (wasm folder, .wasm file, native executable) in a capped child,
// then `prove`. Its proofs must pass `snarkjs groth16 verify` on both curves;
// a generator for the other curve is refused (exit 2) before any proof; a
// generator that fails on its input fails at once with its own message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

CommandResult fullprove(const fs::path& input, const fs::path& generator, const fs::path& zkey, const fs::path& proof,
                        const fs::path& pub) {
  return run_command(proofpipe() + " fullprove " + quote(input) + " " + quote(generator) + " " + quote(zkey) + " " +
                     quote(proof) + " " + quote(pub));
}

// Proves inputs/w00.json of `circuit` with `generator` and has snarkjs verify it.
void expect_verified_proof(const std::string& circuit, const fs::path& generator) {
  TempDir tmp;
  const fs::path dir = data_dir() / circuit, proof = tmp / "proof.json", pub = tmp / "public.json";
  auto r = fullprove(dir / "inputs" / "w00.json", generator, dir / "circuit.zkey", proof, pub);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto theirs = snarkjs_verify(dir / "verification_key.json", pub, proof);
  EXPECT_EQ(theirs.exit_code, 0) << theirs.output;
  EXPECT_NE(theirs.output.find("OK"), std::string::npos) << theirs.output;
  // inputs/w00.json is w00.wtns's input: snarkjs's public signals for it.
  EXPECT_EQ(read_json(pub), read_json(dir / "snarkjs_public.json"));
}

TEST(Fullprove, Bls12381FromTheCircuitJsFolder) {
  expect_verified_proof("multi_io", data_dir() / "multi_io" / "circuit_js");
}

TEST(Fullprove, Bn128FromTheWasmFile) {
  expect_verified_proof("multi_io_bn128", data_dir() / "multi_io_bn128" / "circuit_js" / "multi_io.wasm");
}

TEST(Fullprove, Bls12381FromTheNativeGenerator) {
  if (std::string(PP_NATIVE_WITNESS_GEN).empty()) GTEST_SKIP() << "no native generator (nasm not installed)";
  expect_verified_proof("multi_io", PP_NATIVE_WITNESS_GEN);
}

TEST(Fullprove, AGeneratorForTheOtherCurveIsRefusedBeforeAnyProof) {
  TempDir tmp;
  const fs::path proof = tmp / "proof.json", pub = tmp / "public.json";
  auto r =
      fullprove(data_dir() / "multi_io_bn128" / "inputs" / "w00.json", data_dir() / "multi_io_bn128" / "circuit_js",
                data_dir() / "multi_io" / "circuit.zkey", proof, pub);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("makes bn128 witnesses"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("is for bls12381: nothing proved"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("proved curve="), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(proof));
  EXPECT_FALSE(fs::exists(pub));
}

// Checked before the generator runs: an input it would reject gets the
// key's refusal, not the generator's message.
TEST(Fullprove, TheGeneratorIsCheckedAgainstTheKeyBeforeItRuns) {
  TempDir tmp;
  const fs::path input = tmp / "input.json", proof = tmp / "proof.json", pub = tmp / "public.json";
  std::ofstream(input) << "{}";
  auto other_curve = fullprove(input, data_dir() / "multi_io" / "circuit_js",
                               data_dir() / "multi_io_bn128" / "circuit.zkey", proof, pub);
  EXPECT_EQ(other_curve.exit_code, 2) << other_curve.output;
  EXPECT_NE(other_curve.output.find("makes bls12381 witnesses"), std::string::npos) << other_curve.output;
  EXPECT_EQ(other_curve.output.find("witness generator exited"), std::string::npos) << other_curve.output;
  auto other_circuit = fullprove(input, data_dir() / "sparse_dense" / "circuit_js",
                                 data_dir() / "multi_io" / "circuit.zkey", proof, pub);
  EXPECT_EQ(other_circuit.exit_code, 2) << other_circuit.output;
  EXPECT_NE(other_circuit.output.find("expects nVars = 351"), std::string::npos) << other_circuit.output;
  EXPECT_FALSE(fs::exists(proof));
}

TEST(Fullprove, AnInputTheGeneratorRejectsFailsAtOnceWithItsMessage) {
  TempDir tmp;
  const fs::path input = tmp / "input.json", proof = tmp / "proof.json", pub = tmp / "public.json";
  std::ofstream(input) << "{\"a\": \"1\"}";  // b, c and s missing
  auto r =
      fullprove(input, data_dir() / "multi_io" / "circuit_js", data_dir() / "multi_io" / "circuit.zkey", proof, pub);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("input '" + input.string() + "': witness generator exited with code"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("attempts"), std::string::npos) << "an input failure is not retried: " << r.output;
  EXPECT_FALSE(fs::exists(proof));
}

}  // namespace
}  // namespace proofpipe::test
