// `proofpipe doctor` on this machine: its exit code agrees with
// its FAIL lines, text and --json say the same, --zkey sizes the ring from the
// key, and a bad --zkey is one error line and exit 2. What the checks report
// on other hosts is tests/engine/doctor_test.cpp's.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"

namespace proofpipe::test {
namespace {

TEST(DoctorCli, ExitCodeAgreesWithItsFailLines) {
  const std::string key = quote(data_dir() / "multi_io/circuit.zkey");
  auto j = run_command(proofpipe() + " doctor --json --zkey " + key + " 2>/dev/null");
  const auto doc = nlohmann::json::parse(j.output, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << j.output;
  bool any_fail = false;
  for (const auto& c : doc["checks"]) any_fail = any_fail || c["level"] == "FAIL";
  EXPECT_EQ(j.exit_code, any_fail ? 1 : 0) << j.output;
  EXPECT_EQ(doc["exit_code"], j.exit_code);
  for (const char* check : {"cgroup", "shm", "hugepages", "overcommit", "nofile", "memlock", "cuda", "cpu"}) {
    bool seen = false;
    for (const auto& c : doc["checks"]) seen = seen || c["check"] == check;
    EXPECT_TRUE(seen) << check << " missing:\n" << j.output;
  }
  // The ring of the bundled key at the default K (2 synth + 1 gpu worker).
  EXPECT_NE(j.output.find("K=3 slots of"), std::string::npos) << j.output;

  auto t = run_command(proofpipe() + " doctor --zkey " + key);
  EXPECT_EQ(t.exit_code, j.exit_code) << t.output;
  for (const auto& c : doc["checks"]) {
    EXPECT_NE(t.output.find(c["detail"].get<std::string>()), std::string::npos) << c.dump() << "\n" << t.output;
  }
}

TEST(DoctorCli, BadKeyIsOneErrorLine) {
  TempDir tmp;
  auto r = run_command(proofpipe() + " doctor --zkey " + quote(tmp / "missing.zkey"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("missing.zkey"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
