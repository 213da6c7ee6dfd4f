// `proofpipe run --inputs --witness-gen` (docs/witness-gen.md):
// circuit input JSON to proofs, the witnesses generated inside the synthesis
// workers, with circom's wasm generator and (where nasm built it) the native
// one; every proof checked by snarkjs. A bad input JSON and a circuit
// assertion fail their partition at once with the generator's message while
// the others are proved; flag misuse is one line and exit 2; `demo
// --from-inputs` runs the bundled circuit from its inputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }
std::string wasm_gen() { return "wasm:" + (multi_io() / "circuit_js").string(); }

// Copies of inputs w<i>.json into dir/inputs.
fs::path copy_inputs(const fs::path& dir, std::initializer_list<int> which) {
  const fs::path in = dir / "inputs";
  fs::create_directories(in);
  for (int i : which) {
    fs::copy_file(multi_io() / fmt::format("inputs/w{:02}.json", i), in / fmt::format("w{:02}.json", i));
  }
  return in;
}

std::string run_flags(const fs::path& inputs, const std::string& gen, const fs::path& out, const fs::path& run_dir) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + " --inputs " + quote(inputs) + " --witness-gen " +
         quote(gen) + " --out " + quote(out) + " --run-dir " + quote(run_dir) + " --backend cpu";
}

void expect_proved_and_snarkjs_verified(const fs::path& out, std::initializer_list<int> which) {
  for (int i : which) {
    const std::string stem = fmt::format("w{:02}", i);
    auto r = snarkjs_verify(multi_io() / "verification_key.json", out / (stem + ".public.json"),
                            out / (stem + ".proof.json"));
    EXPECT_EQ(r.exit_code, 0) << stem << ": " << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
  }
}

TEST(InputsRun, WasmAndNativeGeneratorsProveWhatSnarkjsVerifies) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), {0, 3, 5, 7});
  auto r = pp_run(run_flags(inputs, wasm_gen(), tmp / "out", tmp / "run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_proved_and_snarkjs_verified(tmp / "out", {0, 3, 5, 7});
  // The public signals come from the generated witness: w00's are snarkjs's.
  EXPECT_EQ(read_json(tmp / "out/w00.public.json"), read_json(multi_io() / "snarkjs_public.json"));
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 4);
  EXPECT_EQ(summary["provenance"]["witnesses"].size(), 4u) << "the inputs stand for the witnesses";
  for (const auto& p : summary["per_partition"]) {  // the generator's share of synthesis
    EXPECT_GT(p["generate_s"].get<double>(), 0.0) << p.dump();
    EXPECT_LE(p["generate_s"].get<double>(), p["synth_s"].get<double>()) << p.dump();
  }

  if (std::string(PP_NATIVE_WITNESS_GEN).empty()) {
    std::printf("native generator not built (no nasm): wasm only\n");
    return;
  }
  r = pp_run(run_flags(inputs, std::string("native:") + PP_NATIVE_WITNESS_GEN, tmp / "out-native", tmp / "run2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_proved_and_snarkjs_verified(tmp / "out-native", {0, 3, 5, 7});
}

TEST(InputsRun, BadJsonAndAssertionFailOnceWithTheGeneratorsMessage) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), {0, 1});
  std::ofstream(inputs / "bad_json.json") << "{\"a\": \"1\", \"b\": }";
  {
    // small = 2^40 breaks LessThan(32)'s range check (an assert in Num2Bits).
    std::ifstream in(multi_io() / "inputs/w02.json");
    std::stringstream s;
    s << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(s.str());
    j["small"] = "1099511627776";
    std::ofstream(inputs / "assert.json") << j.dump();
  }
  auto r = pp_run(run_flags(inputs, wasm_gen(), tmp / "out", tmp / "run") + " --max-attempts 3");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("FAILED bad_json after 1 attempt:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAILED assert after 1 attempt:"), std::string::npos) << r.output;
  const auto summary = read_json(tmp / "out/summary.json");
  EXPECT_EQ(summary["proved"], 2);
  ASSERT_EQ(summary["failed"].size(), 2u) << summary["failed"].dump();
  for (const auto& f : summary["failed"]) {
    ASSERT_EQ(f["causes"].size(), 1u) << "a deterministic failure is not retried: " << f.dump();
    const std::string cause = f["causes"][0];
    const char* says = f["partition"] == "assert" ? "Assert Failed" : "is not valid JSON";
    EXPECT_NE(cause.find(says), std::string::npos) << cause;
    EXPECT_NE(cause.find("witness generator exited with code 1"), std::string::npos) << cause;
  }
  expect_proved_and_snarkjs_verified(tmp / "out", {0, 1});
  EXPECT_FALSE(fs::exists(tmp / "out/bad_json.proof.json"));
}

TEST(InputsRun, FlagMisuseIsOneLineAndExit2) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), {0});
  const std::string zkey = "--zkey " + quote(multi_io() / "circuit.zkey");
  std::ofstream(tmp / "gen") << "#!/bin/sh\n";  // not executable
  struct Case {
    std::string flags;
    const char* says;
  };
  for (const Case& c : {
           Case{" --inputs " + quote(inputs), "--inputs needs --witness-gen"},
           Case{" --inputs " + quote(inputs) + " --witness-gen " + quote(wasm_gen()) + " --witness " +
                    quote(multi_io() / "w00.wtns"),
                "excludes"},
           Case{" --inputs " + quote(inputs) + " --witness-gen native:" + quote(tmp / "gen"), "is not executable"},
           Case{" --inputs " + quote(inputs) + " --witness-gen wasm:" + quote(tmp.path()), "holds 0 .wasm files"},
           Case{" --inputs " + quote(tmp / "none.json") + " --witness-gen " + quote(wasm_gen()), "none.json"},
           Case{" --inputs " + quote(inputs) + " --witness-gen " + quote(wasm_gen()) + " --resume",
                "--resume needs witnesses"},
       }) {
    auto r = pp_run(zkey + c.flags + " --out " + quote(tmp / "out"));
    EXPECT_EQ(r.exit_code, 2) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find("proofpipe: error:"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(tmp / "out")) << c.flags;
  }
}

// The generator is checked against the key before any worker starts: the
// other curve's wasm, and another circuit's, are one line naming both.
TEST(InputsRun, AGeneratorOfTheOtherCurveOrCircuitIsRefusedBeforeAnyProof) {
  TempDir tmp;
  const fs::path inputs = copy_inputs(tmp.path(), {0});
  struct Case {
    fs::path generator;
    const char* says;
  };
  for (const Case& c : {
           Case{data_dir() / "multi_io_bn128" / "circuit_js", "makes bn128 witnesses, zkey '"},
           Case{data_dir() / "sparse_dense" / "circuit_js", "expects nVars = 351"},
       }) {
    auto r = pp_run(run_flags(inputs, "wasm:" + c.generator.string(), tmp / "out", tmp / "run"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    EXPECT_NE(r.output.find((multi_io() / "circuit.zkey").string()), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.generator.string()), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(tmp / "out")) << r.output;
  }
}

TEST(InputsRun, DemoFromInputs) {
  TempDir tmp;
  auto r = run_command(proofpipe() + " demo --from-inputs --out " + quote(tmp / "demo"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("12 proved of 12, 12 verified from disk"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(tmp / "demo/w11.proof.json"));
}

}  // namespace
}  // namespace proofpipe::test
