// `proofpipe setup-dev` end to end: a key made from our own (test-only) toxic
// waste must be a zkey that the pinned snarkjs accepts (export
// verificationkey, groth16 prove, groth16 verify), that our prover/verifier
// accept, and whose proofs each side verifies for the other. Structural checks
// against the committed snarkjs key of the same r1cs: sections 1..10 in order,
// identical sizes, identical header numbers and coefficient section, the same
// point-at-infinity pattern in A/B1/B2.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/json_file.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

CommandResult setup_dev(const fs::path& r1cs, const fs::path& zkey) {
  return run_command(proofpipe() + " setup-dev " + quote(r1cs) + " " + quote(zkey));
}
CommandResult snarkjs_verify(const fs::path& vk, const fs::path& pub, const fs::path& proof) {
  return run_command(snarkjs() + " groth16 verify " + quote(vk) + " " + quote(pub) + " " + quote(proof));
}
CommandResult pp_verify(const fs::path& vk, const fs::path& pub, const fs::path& proof) {
  return run_command(proofpipe() + " verify " + quote(vk) + " " + quote(pub) + " " + quote(proof));
}

// A binfile read whole: sections in file order, with their bytes.
struct Bin {
  std::string magic;
  uint32_t version = 0;
  std::vector<uint32_t> order;
  std::map<uint32_t, std::vector<uint8_t>> sections;
};

uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

Bin read_bin(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bin b;
  if (all.size() < 12) return b;
  b.magic.assign(all.begin(), all.begin() + 4);
  b.version = le32(&all[4]);
  const uint32_t n = le32(&all[8]);
  size_t pos = 12;
  for (uint32_t i = 0; i < n && pos + 12 <= all.size(); ++i) {
    const uint32_t type = le32(&all[pos]);
    const uint64_t size = le64(&all[pos + 4]);
    pos += 12;
    if (pos + size > all.size()) break;
    b.order.push_back(type);
    b.sections[type].assign(all.begin() + long(pos), all.begin() + long(pos + size));
    pos += size;
  }
  return b;
}

// Which points of a section are the identity (all-zero bytes).
std::vector<bool> identity_pattern(const std::vector<uint8_t>& sec, size_t point_bytes) {
  std::vector<bool> out;
  for (size_t off = 0; off + point_bytes <= sec.size(); off += point_bytes) {
    bool zero = true;
    for (size_t i = 0; i < point_bytes && zero; ++i) zero = sec[off + i] == 0;
    out.push_back(zero);
  }
  return out;
}

class SetupDev : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path dir() const { return data_dir() / GetParam(); }
  TempDir tmp_;
};

TEST_P(SetupDev, KeyWorksWithSnarkjsAndProofpipe) {
  const fs::path zkey = tmp_ / "k.zkey", vk = tmp_ / "vk.json";
  auto r = setup_dev(dir() / "circuit.r1cs", zkey);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("TESTING ONLY"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(zkey));

  // snarkjs reads the key.
  r = run_command(snarkjs() + " zkey export verificationkey " + quote(zkey) + " " + quote(vk));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json vkj = read_json(vk);
  EXPECT_EQ(vkj["curve"], "bls12381");
  EXPECT_EQ(vkj["vk_gamma_2"], read_json(dir() / "verification_key.json")["vk_gamma_2"]);  // the G2 generator
  EXPECT_NE(vkj["vk_delta_2"], read_json(dir() / "verification_key.json")["vk_delta_2"]);

  // Our export-vkey gives the same JSON.
  r = run_command(proofpipe() + " export-vkey " + quote(zkey) + " " + quote(tmp_ / "vk_pp.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(tmp_ / "vk_pp.json"), vkj);

  // snarkjs proves with it; both verifiers accept.
  r = run_command(snarkjs() + " groth16 prove " + quote(zkey) + " " + quote(dir() / "w00.wtns") + " " +
                  quote(tmp_ / "sp.json") + " " + quote(tmp_ / "spub.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = snarkjs_verify(vk, tmp_ / "spub.json", tmp_ / "sp.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
  r = pp_verify(vk, tmp_ / "spub.json", tmp_ / "sp.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(tmp_ / "spub.json"), read_json(dir() / "snarkjs_public.json"));

  // We prove with it; both verifiers accept, for two witnesses.
  for (const char* w : {"w00.wtns", "w01.wtns"}) {
    SCOPED_TRACE(w);
    const fs::path proof = tmp_ / "pp.json", pub = tmp_ / "ppub.json";
    r = run_command(proofpipe() + " prove " + quote(zkey) + " " + quote(dir() / w) + " " + quote(proof) + " " +
                    quote(pub));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = pp_verify(vk, pub, proof);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
    r = snarkjs_verify(vk, pub, proof);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
  }

  // A proof under this key does not verify under the ceremony key (different secrets).
  r = pp_verify(dir() / "verification_key.json", tmp_ / "spub.json", tmp_ / "sp.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

TEST_P(SetupDev, LayoutMatchesTheSnarkjsKeyOfTheSameCircuit) {
  const fs::path zkey = tmp_ / "k.zkey";
  auto r = setup_dev(dir() / "circuit.r1cs", zkey);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Bin ours = read_bin(zkey), ref = read_bin(dir() / "circuit.zkey");
  EXPECT_EQ(ours.magic, "zkey");
  EXPECT_EQ(ours.version, 1u);
  EXPECT_EQ(ours.order, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  ASSERT_EQ(ours.sections.size(), 10u);
  for (uint32_t s = 1; s <= 9; ++s) {
    SCOPED_TRACE(s);
    ASSERT_TRUE(ref.sections.count(s));
    EXPECT_EQ(ours.sections.at(s).size(), ref.sections.at(s).size());
  }
  EXPECT_EQ(ours.sections.at(1), ref.sections.at(1));  // protocol 1
  // Section 2: n8q, q, n8r, r, nVars, nPublic, domainSize (100 bytes), then
  // the points; gamma_2 (offset 484, 192 bytes) is the G2 generator in both.
  const auto& h = ours.sections.at(2);
  const auto& hr = ref.sections.at(2);
  ASSERT_EQ(h.size(), 964u);
  EXPECT_TRUE(std::equal(h.begin(), h.begin() + 100, hr.begin()));
  EXPECT_TRUE(std::equal(h.begin() + 484, h.begin() + 676, hr.begin() + 484));
  EXPECT_FALSE(std::equal(h.begin() + 100, h.begin() + 196, hr.begin() + 100));  // alpha_1 differs
  // Coefficients depend on the r1cs only: byte-identical.
  EXPECT_EQ(ours.sections.at(4), ref.sections.at(4));
  // Zero QAP polynomials give the identity in both keys.
  EXPECT_EQ(identity_pattern(ours.sections.at(5), 96), identity_pattern(ref.sections.at(5), 96));
  EXPECT_EQ(identity_pattern(ours.sections.at(6), 96), identity_pattern(ref.sections.at(6), 96));
  EXPECT_EQ(identity_pattern(ours.sections.at(7), 192), identity_pattern(ref.sections.at(7), 192));
  // Section 10: csHash (64 zero bytes) and nContrib = 0.
  EXPECT_EQ(ours.sections.at(10), std::vector<uint8_t>(68, 0));

  // Fresh toxic waste each run.
  ASSERT_EQ(setup_dev(dir() / "circuit.r1cs", tmp_ / "k2.zkey").exit_code, 0);
  EXPECT_NE(read_bin(tmp_ / "k2.zkey").sections.at(2), h);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SetupDev, ::testing::Values("multi_io", "sparse_dense"));

TEST(SetupDevErrors, MissingR1csIsExit2WithNoOutput) {
  TempDir tmp;
  auto r = setup_dev(tmp / "nope.r1cs", tmp / "k.zkey");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("nope.r1cs"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp / "k.zkey"));
}

TEST(SetupDevErrors, NotAnR1csIsExit2) {
  TempDir tmp;
  auto r = setup_dev(data_dir() / "multi_io" / "w00.wtns", tmp / "k.zkey");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("w00.wtns"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp / "k.zkey"));
}

TEST(SetupDevErrors, UnwritableOutputIsExit2) {
  TempDir tmp;
  auto r = setup_dev(data_dir() / "multi_io" / "circuit.r1cs", tmp / "no/such/dir/k.zkey");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no/such/dir"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
