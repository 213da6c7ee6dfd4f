// `proofpipe run` and `demo` with bn128 (BN254) keys: a batch of
// the circom-compiled multi_io_bn128 witnesses through the real synthesis
// and proving worker processes (CPU backend), every proof checked by snarkjs
// and by `proofpipe verify`; the take intake; --resume over bn128 outputs;
// --inputs with the wasm generator; a witness for the other curve, and
// --backend cuda with a bn128 key, each one line and exit 2 with nothing
// written; `demo --curve both`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path bn() { return data_dir() / "multi_io_bn128"; }
fs::path bls() { return data_dir() / "multi_io"; }

std::string witnesses(const fs::path& dir, int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += " --witness " + quote(dir / fmt::format("w{:02}.wtns", i));
  return s;
}

void expect_verified(const fs::path& out, int count, bool snarkjs) {
  const fs::path vk = bn() / "verification_key.json";
  for (int i = 0; i < count; ++i) {
    const std::string stem = fmt::format("w{:02}", i);
    SCOPED_TRACE(stem);
    const fs::path proof = out / (stem + ".proof.json"), pub = out / (stem + ".public.json");
    if (snarkjs) {
      auto theirs = snarkjs_verify(vk, pub, proof);
      EXPECT_EQ(theirs.exit_code, 0) << theirs.output;
      EXPECT_NE(theirs.output.find("OK"), std::string::npos) << theirs.output;
    }
    auto ours = pp_verify(vk, pub, proof);
    EXPECT_EQ(ours.exit_code, 0) << ours.output;
    EXPECT_EQ(read_json(proof)["curve"], "bn128");
  }
}

TEST(Bn128Run, ABatchThroughThePipelineVerifiesWithSnarkjsAndProofpipe) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  const auto rings_before = shm_rings();
  auto r = pp_run("--zkey " + quote(bn() / "circuit.zkey") + witnesses(bn(), 5) + " --out " + quote(out) +
                  " --synth-workers 2 --gpu-workers 1 --slots 2 --backend cpu --run-dir " + quote(tmp / "run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("5/5 partitions proved"), std::string::npos) << r.output;
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["proved"], 5);
  EXPECT_EQ(summary["malformed_messages_dropped"], 0);
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
  EXPECT_EQ(summary["provenance"]["curve"], "bn128");
  expect_verified(out, 5, /*snarkjs=*/true);
  // w00's public signals are the ones snarkjs computed for the same witness.
  EXPECT_EQ(read_json(out / "w00.public.json"), read_json(bn() / "snarkjs_public.json"));
  EXPECT_TRUE(new_rings(rings_before).empty());

  // --resume reads the bn128 files back, verifies them and skips them all;
  // a tampered public file is found and that partition proved again.
  { std::ofstream(out / "w02.public.json", std::ios::trunc) << "[\"1\",\"2\",\"3\"]"; }
  r = pp_run("--zkey " + quote(bn() / "circuit.zkey") + witnesses(bn(), 5) + " --out " + quote(out) +
             " --backend cpu --resume");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 of 5 partitions already proved"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 redone: w02"), std::string::npos) << r.output;
  expect_verified(out, 5, /*snarkjs=*/false);
}

TEST(Bn128Run, TheTakeIntakeAndGeneratedWitnessesProveBn128) {
  TempDir tmp;
  // The CUDA backend's intake, forced on the CPU backend: the record goes
  // from the slot straight into the backend.
  auto r = pp_run("--zkey " + quote(bn() / "circuit.zkey") + witnesses(bn(), 4) + " --out " + quote(tmp / "take") +
                      " --backend cpu",
                  "PP_GPU_INTAKE=take");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cpu, take intake"), std::string::npos) << r.output;
  expect_verified(tmp / "take", 4, /*snarkjs=*/false);

  // --inputs: the witness generated in the synthesis worker (bn128's wasm),
  // its public signals carried by SEALED.
  const fs::path in = tmp / "inputs";
  fs::create_directories(in);
  for (int i : {0, 1}) fs::copy_file(bn() / fmt::format("inputs/w{:02}.json", i), in / fmt::format("w{:02}.json", i));
  r = pp_run("--zkey " + quote(bn() / "circuit.zkey") + " --inputs " + quote(in) + " --witness-gen " +
             quote("wasm:" + (bn() / "circuit_js").string()) + " --out " + quote(tmp / "gen") + " --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_verified(tmp / "gen", 2, /*snarkjs=*/false);
  EXPECT_EQ(read_json(tmp / "gen" / "w00.public.json"), read_json(bn() / "snarkjs_public.json"));
}

// A witness for the other curve than the key, either way round, and the
// CUDA backend (BLS12-381 kernels only) with a bn128 key: one line naming
// the file, exit 2, no --out created.
TEST(Bn128Run, AWitnessForTheOtherCurveOrCudaIsOneLineExit2) {
  TempDir tmp;
  struct Case {
    fs::path zkey, wtns;
    std::string extra, want, names;
  };
  for (const Case& c :
       {Case{bls() / "circuit.zkey", bn() / "w01.wtns", "", "is bn128's, expected bls12381", "w01.wtns"},
        Case{bn() / "circuit.zkey", bls() / "w01.wtns", "", "is bls12381's, expected bn128", "w01.wtns"},
        Case{bn() / "circuit.zkey", bn() / "w01.wtns", " --backend cuda",
             "is a bn128 key and the CUDA backend proves bls12381 keys only", "circuit.zkey"}}) {
    SCOPED_TRACE(c.want);
    auto r =
        pp_run("--zkey " + quote(c.zkey) + " --witness " + quote(c.wtns) + " --out " + quote(tmp / "out") + c.extra);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.want), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(tmp / "out"));
  }
}

TEST(Bn128Run, DemoProvesBothCurvesAndVerifiesEveryProof) {
  TempDir tmp;
  auto r = run_command(proofpipe() + " demo --curve both --out " + quote(tmp / "demo"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("proofpipe demo (bls12381)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("proofpipe demo (bn128)"), std::string::npos) << r.output;
  size_t at = 0, both = 0;
  while ((at = r.output.find("12 proved of 12, 12 verified from disk", at)) != std::string::npos) ++both, ++at;
  EXPECT_EQ(both, 2u) << r.output;
  EXPECT_EQ(read_json(tmp / "demo" / "bn128" / "w11.proof.json")["curve"], "bn128");
  EXPECT_EQ(read_json(tmp / "demo" / "bls12381" / "w11.proof.json")["curve"], "bls12381");
  r = run_command(proofpipe() + " demo --curve bn254 --out " + quote(tmp / "bad"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("expected bls12381, bn128 or both"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
