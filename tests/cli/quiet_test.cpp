// Quiet by default, as snarkjs and rapidsnark are: a `prove`, `fullprove` or
// `verify` that succeeds writes nothing on stderr (verify prints only its
// verdict on stdout); `--verbose` and PROOFPIPE_LOG=info bring the info
// lines back. Each command runs with PROOFPIPE_LOG removed from its
// environment, stdout and stderr caught apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

struct Streams {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `proofpipe <args>` with a clean log environment; `env` is prepended
// (e.g. "PROOFPIPE_LOG=info").
Streams run_apart(const TempDir& tmp, const std::string& args, const std::string& env = "") {
  const fs::path out = tmp / "stdout.txt", err = tmp / "stderr.txt";
  const auto r = run_command("(env -u PROOFPIPE_LOG " + env + " " + proofpipe() + " " + args + " >" + quote(out) +
                             " 2>" + quote(err) + ")");
  return {r.exit_code, slurp(out), slurp(err)};
}

class Quiet : public ::testing::Test {
 protected:
  fs::path dir_ = data_dir() / "multi_io_bn128";
  TempDir tmp_;
  std::string prove_args() const {
    return "prove " + quote(dir_ / "circuit.zkey") + " " + quote(dir_ / "w00.wtns") + " " + quote(tmp_ / "proof.json") +
           " " + quote(tmp_ / "public.json");
  }
};

TEST_F(Quiet, ProveAndVerifySayNothingOnStderr) {
  const Streams p = run_apart(tmp_, prove_args());
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, "");
  EXPECT_EQ(p.err, "") << "prove succeeded: nothing on stderr";
  const Streams v = run_apart(tmp_, "verify " + quote(dir_ / "verification_key.json") + " " +
                                        quote(tmp_ / "public.json") + " " + quote(tmp_ / "proof.json"));
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out, "OK\n");
  EXPECT_EQ(v.err, "");
}

TEST_F(Quiet, FullproveSaysNothingOnStderr) {
  const Streams f = run_apart(tmp_, "fullprove " + quote(dir_ / "inputs" / "w00.json") + " " +
                                        quote(dir_ / "circuit_js") + " " + quote(dir_ / "circuit.zkey") + " " +
                                        quote(tmp_ / "proof.json") + " " + quote(tmp_ / "public.json"));
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(f.err, "") << "fullprove succeeded: nothing on stderr";
  EXPECT_TRUE(fs::exists(tmp_ / "proof.json"));
}

TEST_F(Quiet, VerboseAndTheEnvironmentBringTheInfoLinesBack) {
  const Streams v = run_apart(tmp_, prove_args() + " --verbose");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("info proved curve=bn128"), std::string::npos) << v.err;
  const Streams e = run_apart(tmp_, prove_args(), "PROOFPIPE_LOG=info");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.err.find("info proved curve=bn128"), std::string::npos) << e.err;
}

TEST_F(Quiet, FailuresStillSayWhy) {
  const Streams p = run_apart(tmp_, "prove " + quote(dir_ / "circuit.zkey") + " " + quote(tmp_ / "missing.wtns") + " " +
                                        quote(tmp_ / "proof.json") + " " + quote(tmp_ / "public.json"));
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("proofpipe: error: "), std::string::npos) << p.err;
}

}  // namespace
}  // namespace proofpipe::test
