// `proofpipe status` as an operator reads it: partition names
// rather than run indices, the ETA and each partition's stage times in
// --json, incarnations counted as summary.json counts them, and with several
// live runs a table of them (pid, zkey, started, progress) instead of an
// error listing bare paths. Runs of others live on the host are ignored:
// the test looks only at runs whose coordinator is its own descendant.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "support/cli.hpp"
#include "support/descendant.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path multi_io() { return data_dir() / "multi_io"; }

// A run of the 12 multi_io partitions, each proof held 400 ms.
std::future<CommandResult> slow_run(const fs::path& out) {
  return std::async(std::launch::async, [out] {
    return pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness-dir " + quote(multi_io()) + " --out " +
                      quote(out) + " --synth-workers 1 --gpu-workers 1 --backend cpu",
                  "PROOFPIPE_FAULTS=gpu.mid_compute:delay=400 PROOFPIPE_NO_PROGRESS=1");
  });
}

TEST(Status, SeveralLiveRunsAreATableAndOneRunNamesItsPartitions) {
  TempDir tmp;
  auto a = slow_run(tmp / "a");
  auto b = slow_run(tmp / "b");
  // Both live, and the prover of each holds a partition.
  json both;
  CommandResult table;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto st = run_command(proofpipe() + " status --json 2>/dev/null");
    if (st.exit_code != 0) continue;
    const json all = json::parse(st.output, nullptr, false);
    if (!all.is_array()) continue;
    // The test's own runs: their coordinators are its descendants.
    json j = json::array();
    for (const auto& r : all)
      if (r.contains("pid") && r["pid"].is_number_integer() && is_descendant(pid_t(r["pid"].get<long>())))
        j.push_back(r);
    if (j.size() < 2) continue;
    bool proving = true;
    for (const auto& r : j) proving = proving && r["workers"][1].value("partition_name", "") != "";
    if (!proving) continue;
    both = j;
    table = run_command(proofpipe() + " status 2>/dev/null");
    break;
  }
  const auto ra = a.get(), rb = b.get();
  ASSERT_EQ(ra.exit_code, 0) << ra.output;
  ASSERT_EQ(rb.exit_code, 0) << rb.output;
  ASSERT_TRUE(both.is_array() && both.size() >= 2) << "never saw both runs live";
  // The table: one row per run with its pid, progress and zkey.
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const auto& r : both) {
    EXPECT_NE(table.output.find(std::to_string(r["pid"].get<long>())), std::string::npos) << table.output;
    EXPECT_NE(table.output.find(r["run_dir"].get<std::string>()), std::string::npos) << table.output;
  }
  EXPECT_NE(table.output.find("circuit.zkey"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("started"), std::string::npos) << table.output;
  // One run's JSON: names, the ETA field, the in-flight partitions' times.
  const json& s = both[0];
  const std::string name = s["workers"][1]["partition_name"];
  EXPECT_EQ(name.rfind("w", 0), 0u) << "a partition name is its witness's stem: " << name;
  EXPECT_TRUE(s.contains("eta_s")) << s.dump();
  ASSERT_FALSE(s["in_flight"].empty()) << s.dump();
  for (const auto& p : s["in_flight"]) {
    EXPECT_EQ(p["name"].get<std::string>().rfind("w", 0), 0u) << p.dump();
    EXPECT_TRUE(p["times"].is_object()) << p.dump();
  }
  // Incarnations as summary.json counts them (no restarts: 1 each).
  const json summary = read_json(tmp / "a" / "summary.json");
  for (size_t seat = 0; seat < 2; ++seat) {
    EXPECT_EQ(s["workers"][seat]["incarnation"], summary["seats"][seat]["incarnations"]) << s["workers"][seat].dump();
  }
}

}  // namespace
}  // namespace proofpipe::test
