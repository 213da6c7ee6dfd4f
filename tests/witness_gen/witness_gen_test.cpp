// The synthesis worker's witness generator runner (witness_gen/include/proofpipe/witness_gen/generator.hpp)
// and the resolution of --witness-gen (resolve.hpp):
// circom's wasm generator (node) and native one (built from the fixture's
// circom --c sources where nasm is installed) write witnesses byte-identical
// to the `snarkjs wtns calculate` ones in tests/data; how each way a
// generator can end is classified (the retry rule, docs/witness-gen.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "proofpipe/witness_gen/check.hpp"
#include "proofpipe/witness_gen/generator.hpp"
#include "proofpipe/witness_gen/resolve.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

using witness_gen::GeneratorRun;
namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }

std::string read_fd(int fd) {
  std::string bytes;
  char buf[65536];
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, off_t(bytes.size()))) > 0) bytes.append(buf, size_t(n));
  return bytes;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

GeneratorRun generate(const std::vector<std::string>& command, const fs::path& input) {
  int beats = 0;
  auto run = witness_gen::run_generator({command, input.string()}, [&] { ++beats; });
  EXPECT_TRUE(run.is_ok()) << run.status().message();
  return run.is_ok() ? std::move(*run) : GeneratorRun{};
}

std::vector<std::string> wasm_command() {
  auto cmd = witness_gen::resolve_generator("wasm:" + (multi_io() / "circuit_js").string());
  EXPECT_TRUE(cmd.is_ok()) << cmd.status().message();
  return cmd.is_ok() ? *cmd : std::vector<std::string>{"/bin/false"};
}

// A stand-in generator: a shell script in `dir`.
std::vector<std::string> script(const fs::path& dir, const std::string& body) {
  const fs::path path = dir / "gen.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return {path.string()};
}

// An input of multi_io that violates LessThan(32)'s range check: small = 2^40.
fs::path assert_input(const fs::path& dir) {
  std::string text = read_file(multi_io() / "inputs/w00.json");
  const std::string from = "\"small\": \"945041289\"";
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, from.size(), "\"small\": \"1099511627776\"");
  std::ofstream(dir / "assert.json") << text;
  return dir / "assert.json";
}

void expect_matches_snarkjs(const std::vector<std::string>& command) {
  for (int i : {0, 5, 11}) {
    GeneratorRun run = generate(command, multi_io() / fmt::format("inputs/w{:02}.json", i));
    ASSERT_EQ(run.end, GeneratorRun::End::kOk) << run.describe();
    EXPECT_EQ(read_fd(run.witness_fd), read_file(multi_io() / fmt::format("w{:02}.wtns", i))) << "w" << i;
    ::close(run.witness_fd);
  }
}

TEST(WitnessGen, WasmWritesSnarkjsWitnesses) { expect_matches_snarkjs(wasm_command()); }

TEST(WitnessGen, NativeWritesSnarkjsWitnesses) {
  if (std::string(PP_NATIVE_WITNESS_GEN).empty()) GTEST_SKIP() << "no nasm: the native generator was not built";
  auto cmd = witness_gen::resolve_generator(std::string("native:") + PP_NATIVE_WITNESS_GEN);
  ASSERT_TRUE(cmd.is_ok()) << cmd.status().message();
  expect_matches_snarkjs(*cmd);
}

TEST(WitnessGen, CircuitAssertionIsAnInputFailureWithItsMessage) {
  TempDir tmp;
  const fs::path input = assert_input(tmp.path());
  GeneratorRun wasm = generate(wasm_command(), input);
  EXPECT_EQ(wasm.end, GeneratorRun::End::kInputFailure) << wasm.describe();
  EXPECT_EQ(wasm.exit_code, 1);
  EXPECT_NE(wasm.output.find("Assert Failed"), std::string::npos) << wasm.output;
  EXPECT_NE(wasm.output.find("Num2Bits"), std::string::npos) << wasm.output;
  EXPECT_EQ(wasm.output.find("    at "), std::string::npos) << "node's stack frames are dropped";
  if (std::string(PP_NATIVE_WITNESS_GEN).empty()) return;
  // The native generator reports it by abort(): still deterministic.
  GeneratorRun native = generate({PP_NATIVE_WITNESS_GEN}, input);
  EXPECT_EQ(native.end, GeneratorRun::End::kInputFailure) << native.describe();
  EXPECT_EQ(native.signal, SIGABRT);
  EXPECT_NE(native.output.find("Failed assert"), std::string::npos) << native.output;
}

TEST(WitnessGen, BadJsonAndMissingInputAreInputFailures) {
  TempDir tmp;
  std::ofstream(tmp / "bad.json") << "{\"a\": \"1\", \"b\": }";
  GeneratorRun bad = generate(wasm_command(), tmp / "bad.json");
  EXPECT_EQ(bad.end, GeneratorRun::End::kInputFailure) << bad.describe();
  EXPECT_NE(bad.output.find("not valid JSON"), std::string::npos) << bad.output;

  GeneratorRun missing = generate(wasm_command(), tmp / "absent.json");
  EXPECT_EQ(missing.end, GeneratorRun::End::kInputFailure);
  EXPECT_NE(missing.output.find("absent.json"), std::string::npos) << missing.output;

  ASSERT_EQ(::mkfifo((tmp / "fifo.json").c_str(), 0600), 0);  // refused, never waited on
  GeneratorRun fifo = generate(wasm_command(), tmp / "fifo.json");
  EXPECT_EQ(fifo.end, GeneratorRun::End::kInputFailure);
  EXPECT_NE(fifo.output.find("FIFO"), std::string::npos) << fifo.output;
}

TEST(WitnessGen, HowAGeneratorEndsDecidesTheRetry) {
  TempDir tmp;
  const fs::path input = multi_io() / "inputs/w00.json";
  struct Case {
    const char* body;
    GeneratorRun::End end;
  };
  for (const Case& c :
       {Case{"echo 'no such signal' >&2; exit 3", GeneratorRun::End::kInputFailure},
        Case{"kill -KILL $$", GeneratorRun::End::kKilled}, Case{"kill -SEGV $$", GeneratorRun::End::kCrashed},
        Case{"echo 'terminate: std::bad_alloc' >&2; kill -ABRT $$", GeneratorRun::End::kCrashed},
        Case{"echo 'FATAL ERROR: JavaScript heap out of memory' >&2; exit 1", GeneratorRun::End::kCrashed},
        Case{"exit 0", GeneratorRun::End::kOk}}) {
    GeneratorRun run = generate(script(tmp.path(), c.body), input);
    EXPECT_EQ(run.end, c.end) << c.body << ": " << run.describe();
    if (run.witness_fd >= 0) ::close(run.witness_fd);
  }
}

TEST(WitnessGen, ItWritesOnlyIntoMemfdsAndItsOutputIsBounded) {
  TempDir tmp;
  // Where its two file arguments lead, and 100000 lines of noise before.
  GeneratorRun run = generate(script(tmp.path(), "seq 100000 >&2; readlink \"$1\" \"$2\" >&2; exit 1"),
                              multi_io() / "inputs/w00.json");
  EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure);
  EXPECT_NE(run.output.find("/memfd:proofpipe-input"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("/memfd:proofpipe-witness"), std::string::npos) << run.output;
  EXPECT_LT(run.output.size(), 2000u);
  EXPECT_EQ(run.output.find("99990"), std::string::npos) << "at most the last 6 lines: " << run.output;
}

TEST(WitnessGen, ResolveRefusesWhatCannotRun) {
  TempDir tmp;
  EXPECT_NE(witness_gen::resolve_generator("wasm").status().message().find("expected wasm:"), std::string::npos);
  EXPECT_NE(witness_gen::resolve_generator("python:x").status().message().find("unknown kind 'python'"),
            std::string::npos);
  // A folder without circom's scripts, and a native generator that is not executable.
  fs::create_directories(tmp / "js");
  std::ofstream(tmp / "js/c.wasm") << "x";
  EXPECT_NE(
      witness_gen::resolve_generator("wasm:" + (tmp / "js").string()).status().message().find("generate_witness.js"),
      std::string::npos);
  std::ofstream(tmp / "gen") << "x";
  EXPECT_NE(
      witness_gen::resolve_generator("native:" + (tmp / "gen").string()).status().message().find("not executable"),
      std::string::npos);
  ASSERT_EQ(::mkfifo((tmp / "in.json").c_str(), 0600), 0);
  EXPECT_NE(witness_gen::list_inputs({(tmp / "in.json").string()}).status().message().find("FIFO"), std::string::npos);
  EXPECT_NE(witness_gen::list_inputs({(tmp / "js").string()}).status().message().find("no .json"), std::string::npos);
}

// What circom's wasm reports about its circuit, read without generating:
// the fixtures' primes (one per curve) and nVars (351 for multi_io, as its
// zkey says).
TEST(WitnessGen, ProbeReadsTheWasmsPrimeAndWitnessSize) {
  for (const char* circuit : {"multi_io", "multi_io_bn128"}) {
    auto cmd = witness_gen::resolve_generator("wasm:" + (data_dir() / circuit / "circuit_js").string());
    ASSERT_TRUE(cmd.is_ok()) << cmd.status().message();
    auto facts = witness_gen::probe_wasm((*cmd)[0], (*cmd)[2]);
    ASSERT_TRUE(facts.is_ok()) << facts.status().message();
    EXPECT_EQ(facts->field_words, 8u);
    EXPECT_EQ(facts->witness_size, 351u);
    EXPECT_EQ(witness_gen::curve_of_prime(facts->prime_hex),
              std::string_view(circuit) == "multi_io" ? "bls12381" : "bn128");
  }
}

TEST(WitnessGen, CheckRefusesTheOtherCurveAnotherCircuitAndNonWasm) {
  const auto cmd = wasm_command();
  EXPECT_TRUE(witness_gen::check_generator(cmd, {"bls12381", 351, "zkey 'k'"}).is_ok());
  const Status curve = witness_gen::check_generator(cmd, {"bn128", 351, "zkey 'k'"});
  EXPECT_EQ(curve.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(curve.message().find("makes bls12381 witnesses, zkey 'k' is for bn128"), std::string::npos)
      << curve.message();
  const Status size = witness_gen::check_generator(cmd, {"bls12381", 350, "zkey 'k'"});
  EXPECT_NE(size.message().find("witnesses of 351 values, zkey 'k' expects nVars = 350"), std::string::npos)
      << size.message();
  // A .wasm that is not WebAssembly is named by its magic, before node.
  TempDir tmp;
  std::ofstream(tmp / "c.wasm") << "not a module";
  const Status magic = witness_gen::check_generator({cmd[0], cmd[1], (tmp / "c.wasm").string()}, {"bn128", 1, "k"});
  EXPECT_NE(magic.message().find("is not a WebAssembly module"), std::string::npos) << magic.message();
  // A native generator reports nothing without running: resolve's checks stand.
  EXPECT_TRUE(witness_gen::check_generator({"/bin/true"}, {"bn128", 1, "k"}).is_ok());
}

// circom's own words, once, without node's file:line and the JavaScript
// source line that threw: a missing input (circom counts, it does not name
// it) and too many values (circom names the signal).
TEST(WitnessGen, AGeneratorErrorIsCircomsMessageWithoutTheJavaScriptSource) {
  TempDir tmp;
  struct Case {
    const char* input;
    const char* says;
  };
  for (const Case& c : {
           Case{R"({"a": "1"})", "exited with code 1: Not all inputs have been set. Only 1 out of 8"},
           Case{R"({"a": "1", "b": "2", "c": "3", "s": ["1", "2", "3", "4", "5"], "small": "1"})",
                "exited with code 1: Too many values for input signal s"},
       }) {
    std::ofstream(tmp / "in.json") << c.input;
    const GeneratorRun run = generate(wasm_command(), tmp / "in.json");
    EXPECT_EQ(run.end, GeneratorRun::End::kInputFailure);
    const std::string said = run.describe();
    EXPECT_NE(said.find(c.says), std::string::npos) << said;
    EXPECT_EQ(said.find("witness_calculator.js"), std::string::npos) << said;
    EXPECT_EQ(said.find("throw new Error"), std::string::npos) << said;
  }
}

}  // namespace
}  // namespace proofpipe::test
