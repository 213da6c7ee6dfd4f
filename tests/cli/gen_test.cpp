// `proofpipe gen`: the synthetic circuit's witnesses satisfy their
// R1CS by snarkjs's own check (an evaluation independent of ours), have the
// shape of real witnesses (many zeros and ones), differ between partitions,
// and prove: our proofs with the dev key verify with snarkjs.
#include <gtest/gtest.h>

#include <set>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

TEST(Gen, WitnessesSatisfyTheR1csAndProve) {
  TempDir tmp;
  const fs::path dir = tmp / "w";
  auto g = run_command(proofpipe() + " gen --constraints 3000 --partitions 3 --seed 7 --out " + quote(dir));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  EXPECT_NE(g.output.find("TESTING ONLY"), std::string::npos);
  for (const char* f : {"circuit.r1cs", "circuit.zkey", "verification_key.json", "w00.wtns", "w01.wtns", "w02.wtns"}) {
    ASSERT_TRUE(fs::exists(dir / f)) << f;
  }
  auto info = run_command(snarkjs() + " r1cs info " + quote(dir / "circuit.r1cs"));
  EXPECT_NE(info.output.find("# of Constraints: 3000"), std::string::npos) << info.output;

  std::set<std::string> publics;
  for (const char* w : {"w00", "w01", "w02"}) {
    SCOPED_TRACE(w);
    const fs::path wtns = dir / (std::string(w) + ".wtns");
    auto check = run_command(snarkjs() + " wtns check " + quote(dir / "circuit.r1cs") + " " + quote(wtns));
    EXPECT_NE(check.output.find("WITNESS CHECKING FINISHED SUCCESSFULLY"), std::string::npos) << check.output;

    ASSERT_EQ(run_command(snarkjs() + " wtns export json " + quote(wtns) + " " + quote(tmp / "w.json")).exit_code, 0);
    const auto values = read_json(tmp / "w.json");
    size_t zeros = 0, ones = 0;
    for (const auto& v : values) {
      zeros += v == "0";
      ones += v == "1";
    }
    std::printf("%s: %zu values, %zu zeros, %zu ones\n", w, values.size(), zeros, ones);
    EXPECT_GT(zeros, values.size() / 20);
    EXPECT_GT(ones, values.size() / 100);

    const fs::path proof = tmp / "proof.json", pub = tmp / "public.json";
    auto p = pp_prove(dir / "circuit.zkey", wtns, proof, pub);
    ASSERT_EQ(p.exit_code, 0) << p.output;
    auto v = snarkjs_verify(dir / "verification_key.json", pub, proof);
    EXPECT_NE(v.output.find("OK"), std::string::npos) << v.output;
    publics.insert(read_json(pub).dump());
  }
  EXPECT_EQ(publics.size(), 3u) << "partitions should have different public signals";
}

// --curve bn128: a BN254 r1cs (snarkjs reads it as bn128), witnesses that
// satisfy it, a dev key whose proofs snarkjs accepts and whose vkey export
// equals snarkjs's.
TEST(Gen, Bn128Workload) {
  TempDir tmp;
  const fs::path dir = tmp / "bn";
  auto g =
      run_command(proofpipe() + " gen --curve bn128 --constraints 1500 --partitions 2 --seed 5 --out " + quote(dir));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  auto info = run_command(snarkjs() + " r1cs info " + quote(dir / "circuit.r1cs"));
  EXPECT_NE(info.output.find("Curve: bn-128"), std::string::npos) << info.output;
  auto vk = run_command(snarkjs() + " zkey export verificationkey " + quote(dir / "circuit.zkey") + " " +
                        quote(tmp / "snarkjs_vk.json"));
  ASSERT_EQ(vk.exit_code, 0) << vk.output;
  EXPECT_EQ(read_json(tmp / "snarkjs_vk.json"), read_json(dir / "verification_key.json"));
  for (const char* w : {"w00.wtns", "w01.wtns"}) {
    SCOPED_TRACE(w);
    auto check = run_command(snarkjs() + " wtns check " + quote(dir / "circuit.r1cs") + " " + quote(dir / w));
    EXPECT_NE(check.output.find("WITNESS CHECKING FINISHED SUCCESSFULLY"), std::string::npos) << check.output;
    const fs::path proof = tmp / "proof.json", pub = tmp / "public.json";
    auto p = pp_prove(dir / "circuit.zkey", dir / w, proof, pub);
    ASSERT_EQ(p.exit_code, 0) << p.output;
    auto v = snarkjs_verify(dir / "verification_key.json", pub, proof);
    EXPECT_NE(v.output.find("OK"), std::string::npos) << v.output;
  }
}

TEST(Gen, SameSeedSameCircuit) {
  TempDir tmp;
  for (const char* d : {"a", "b"}) {
    ASSERT_EQ(
        run_command(proofpipe() + " gen --constraints 500 --partitions 1 --seed 3 --out " + quote(tmp / d)).exit_code,
        0);
  }
  auto cmp = run_command("cmp " + quote(tmp / "a" / "circuit.r1cs") + " " + quote(tmp / "b" / "circuit.r1cs") +
                         " && cmp " + quote(tmp / "a" / "w00.wtns") + " " + quote(tmp / "b" / "w00.wtns"));
  EXPECT_EQ(cmp.exit_code, 0) << cmp.output;
}

}  // namespace
}  // namespace proofpipe::test
