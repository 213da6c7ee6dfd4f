// The operator's view of `proofpipe run` (issue 23): per-partition timings
// that add up (wait, synthesis, proving, total), the plain progress line
// without a terminal, `--backend cuda` without a device refused before any
// grant, `--resume`, and the provenance fields of summary.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }

std::string witnesses(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += " --witness " + quote(multi_io() / fmt::format("w{:02}.wtns", i));
  return s;
}

std::string run_flags(const fs::path& out, int count) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + witnesses(count) + " --out " + quote(out) +
         " --backend cpu";
}

// A slow synthesis (600 ms per partition, a delay fault) through one
// synthesis worker: each partition's parts add up to its total, the
// synthesis figure holds the delay, and the last commit's total is the
// run's wall time less the start-up of nothing and the shutdown.
TEST(OperatorTimings, StageTimesAddUpToTheWallTime) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  constexpr double kDelayS = 0.6;
  auto r = pp_run(run_flags(out, 3) + " --synth-workers 1 --gpu-workers 1 --slots 1",
                  "PROOFPIPE_NO_PROGRESS=1 PROOFPIPE_FAULTS=synth.mid_write:delay=600");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = read_json(out / "summary.json");
  const double wall = summary["wall_s"];
  double last_total = 0, synth_sum = 0;
  for (const auto& p : summary["per_partition"]) {
    SCOPED_TRACE(p.dump());
    const double wait = p["wait_s"], synth = p["synth_s"], prove = p["prove_s"], total = p["total_s"];
    const double pwait = p["prover_wait_s"], prover = p["prover_s"];
    const auto& st = p["stages"];
    EXPECT_NEAR(wait + synth + prove, total, 1e-6);
    EXPECT_NEAR(pwait + prover, prove, 1e-6);
    EXPECT_GE(wait, 0);
    EXPECT_GE(pwait, 0);
    EXPECT_GE(synth, kDelayS);
    // The worker's own stages lie inside its turn, which the queue does not pad.
    EXPECT_LE(st["intake_s"].get<double>() + st["h_s"].get<double>() + st["msms_s"].get<double>(), prover + 1e-3);
    EXPECT_LT(prover, kDelayS) << "the prover's figure holds the slow synthesis";
    last_total = std::max(last_total, total);
    synth_sum += synth;
  }
  // One synthesis worker: its three slow syntheses fit in the run, one after another.
  EXPECT_GE(synth_sum, 3 * kDelayS);
  EXPECT_LE(synth_sum, wall);
  // The run ends at its last commit plus the workers' shutdown (under 1.5 s).
  EXPECT_LE(last_total, wall);
  EXPECT_NEAR(last_total, wall, 1.5);
  // The per-proof lines and the end table say the same.
  EXPECT_NE(r.output.find("proved (attempt 1): wait "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", synthesis 0.6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pwait s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("total s"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
