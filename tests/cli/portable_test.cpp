// The default build is baseline x86-64: under qemu-user's Nehalem (SSE4.2;
// no AVX, no BMI2/ADX, no AVX-512) this very binary must prove both curves'
// fixtures, taking the portable field arithmetic, and its proofs verify.
// A -march=native build would die of SIGILL there (a PP_NATIVE=ON build
// stops with one line instead: scripts/check_portable.sh). Skips without
// qemu-x86_64 or in a PP_NATIVE=ON build.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "proofpipe/cpu/features.hpp"
#include "support/cli.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

class Portable : public ::testing::TestWithParam<std::string> {};

TEST_P(Portable, ProvesUnderAnOlderCpu) {
  if (cpu::kBuildFeatures != 0) GTEST_SKIP() << "a -DPP_NATIVE=ON build: it is for this CPU only";
  if (run_command("command -v qemu-x86_64").exit_code != 0) GTEST_SKIP() << "qemu-user is not installed";
  TempDir tmp;
  const fs::path dir = data_dir() / GetParam(), proof = tmp / "proof.json", pub = tmp / "public.json";
  const auto r = run_command("qemu-x86_64 -cpu Nehalem " + proofpipe() + " prove " + quote(dir / "circuit.zkey") + " " +
                             quote(dir / "w00.wtns") + " " + quote(proof) + " " + quote(pub));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto v = run_command(proofpipe() + " verify " + quote(dir / "verification_key.json") + " " + quote(pub) + " " +
                             quote(proof));
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_EQ(v.output, "OK\n");
}

INSTANTIATE_TEST_SUITE_P(BothCurves, Portable, ::testing::Values("multi_io", "multi_io_bn128"));

}  // namespace
}  // namespace proofpipe::test
