// README's "Bring your own circuit", followed as written on a circomlib
// circuit (Poseidon of two inputs): compile for bn128 with `-l
// node_modules`, a setup-dev key, export-vkey, fullprove from an input, and
// snarkjs verifies the proof. The commands run are checked to be the
// README's own lines, so the section and this test cannot drift apart.
// `npm i` is the one step replaced: the pinned packages come from this
// repository's node_modules (circomlib copied in, as npm would install it:
// circom2 runs in a WebAssembly sandbox that does not follow a link out of
// the project).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

std::string readme_section() {
  std::ifstream in(fs::path(PP_SOURCE_DIR) / "README.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const size_t begin = text.find("## Bring your own circuit");
  const size_t end = text.find("\n## ", begin + 1);
  return begin == std::string::npos ? std::string() : text.substr(begin, end - begin);
}

TEST(BringYourOwnCircuit, TheReadmesStepsProveAPoseidonCircuitSnarkjsVerifies) {
  const std::string readme = readme_section();
  ASSERT_FALSE(readme.empty()) << "README.md has no 'Bring your own circuit' section";
  const std::string compile = "npx circom2 circuit.circom --r1cs --wasm --prime bn128 -l node_modules -o build";
  const std::string setup = "proofpipe setup-dev build/circuit.r1cs circuit.zkey";
  const std::string vkey = "proofpipe export-vkey circuit.zkey verification_key.json";
  const std::string prove = "proofpipe fullprove input.json build/circuit_js circuit.zkey proof.json public.json";
  const std::string verify = "npx snarkjs groth16 verify verification_key.json public.json proof.json";
  for (const std::string* line : {&compile, &setup, &vkey, &prove, &verify}) {
    EXPECT_NE(readme.find(*line), std::string::npos) << "the README no longer says: " << *line;
  }
  EXPECT_NE(readme.find("npm i -D circom2@0.2.23 snarkjs@0.7.6 circomlib@2.0.5"), std::string::npos);

  TempDir tmp;
  const fs::path project = tmp / "mycircuit", modules = fs::path(PP_SOURCE_DIR) / "node_modules";
  fs::create_directories(project / "build");
  fs::create_directories(project / "node_modules" / "circomlib");
  fs::copy(modules / "circomlib" / "circuits", project / "node_modules" / "circomlib" / "circuits",
           fs::copy_options::recursive);
  std::ofstream(project / "circuit.circom") << "pragma circom 2.0.0;\n"
                                               "include \"circomlib/circuits/poseidon.circom\";\n"
                                               "template Main() {\n"
                                               "  signal input a; signal input b; signal output h;\n"
                                               "  component p = Poseidon(2);\n"
                                               "  p.inputs[0] <== a; p.inputs[1] <== b; h <== p.out;\n"
                                               "}\n"
                                               "component main = Main();\n";
  std::ofstream(project / "input.json") << R"({"a": "1", "b": "2"})";

  // Each README line with its tool's name made a path: npx's lookup of the
  // project's node_modules/.bin, and the built proofpipe.
  const auto in_project = [&](std::string line) {
    if (line.starts_with("npx circom2 ")) line.replace(0, 12, "node " + quote(modules / "circom2/cli.js") + " ");
    if (line.starts_with("npx snarkjs ")) line.replace(0, 12, snarkjs() + " ");
    if (line.starts_with("proofpipe ")) line.replace(0, 10, proofpipe() + " ");
    return run_command("cd " + quote(project) + " && " + line);
  };
  for (const std::string* line : {&compile, &setup, &vkey, &prove}) {
    const auto r = in_project(*line);
    ASSERT_EQ(r.exit_code, 0) << *line << "\n" << r.output;
  }
  const auto checked = in_project(verify);
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("OK"), std::string::npos) << checked.output;
  // Poseidon(1, 2) over BN254, as circomlibjs computes it.
  EXPECT_EQ(read_json(project / "public.json"),
            nlohmann::json::array({"7853200120776062878684798364095072458815029376092732009249414926327459813530"}));
}

}  // namespace
}  // namespace proofpipe::test
