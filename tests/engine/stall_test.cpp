// A stalled worker: the `stall` fault blocks the worker's main
// thread for good while its other threads (heartbeat, pool, ZeroMQ) run on,
// as a deadlock or a kernel that never returns would. Liveness is progress,
// so the coordinator must see it within --hang-timeout, kill it and recover
// the partition: every proof made and verified, exit 0. One run per kind of
// site (fault_point, fault_status, fault_damage), on both workers. Each run
// is bounded (SIGTERM after 60 s): a stall nobody sees would otherwise never
// end. The bound is the test's own, not a `timeout` process: the run is then
// the test's child, and its pid names the ring the leftover check looks for.
#include <regex>

#include "support/fault_support.hpp"

namespace proofpipe::test {
namespace {

constexpr double kHangTimeoutS = 3;
// The beat is published within 100 ms of progress and the coordinator's
// loop checks every 100 ms; the rest is room for a loaded machine.
constexpr double kMarginS = 1.5;

class FaultStall : public ::testing::TestWithParam<const char*> {};

TEST_P(FaultStall, StalledWorkerIsKilledWithinTheHangTimeoutAndTheRunCompletes) {
  TempDir tmp;
  const int count = 6;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  const auto rings_before = shm_rings();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = pp_run(run_flags(wdir, out, tmp / "run") +
                      fmt::format(" --synth-workers 2 --gpu-workers 1 --slots 2 --hang-timeout {}", kHangTimeoutS),
                  fmt::format("PROOFPIPE_FAULTS={}", GetParam()), std::chrono::seconds(60));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("run took %.2f s\n", secs);
  ASSERT_EQ(r.exit_code, 0) << "(124 or 130: the stall was never detected and the 60 s bound stopped the run)\n"
                            << r.output;
  EXPECT_NE(r.output.find("firing"), std::string::npos) << "the fault never fired:\n" << r.output;
  // Each stalled worker was killed for its silence (the coordinator's one
  // line per kill), no later than the timeout plus the margin after its
  // last progress.
  const std::regex killed(R"(sent no heartbeat for ([0-9.]+) s: killing it)");
  int kills = 0;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), killed); it != std::sregex_iterator(); ++it) {
    const double age = std::stod((*it)[1].str());
    EXPECT_GE(age, kHangTimeoutS - 0.05);
    EXPECT_LE(age, kHangTimeoutS + kMarginS) << r.output;
    ++kills;
  }
  EXPECT_GE(kills, 1) << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["workers"]["restarts"].get<int>(), kills) << summary.dump(2);
  EXPECT_FALSE(summary["interrupted"].get<bool>());
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
  EXPECT_TRUE(new_rings(rings_before).empty());
  EXPECT_FALSE(std::filesystem::exists(tmp / "run"));
}

INSTANTIATE_TEST_SUITE_P(Sites, FaultStall,
                         ::testing::Values("gpu.after_claim:stall@2",     // slot held: CONSUMING -> READY
                                           "synth.mid_write:stall@2",     // WRITING -> FREE
                                           "gpu.mid_compute:stall@2",     // a fault_status site
                                           "synth.before_seal:stall@2"),  // a fault_damage site
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string name = p.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The other side of the progress rule: a proof that takes longer than
// --hang-timeout is not a hang, because its CPU work counts progress task by
// task (parallel_for). One thread per worker makes each proof of a 2^16
// `gen` circuit last seconds against a 1 s timeout.
TEST(Liveness, AProofLongerThanTheHangTimeoutIsNotKilled) {
  TempDir tmp;
  const auto gen = tmp / "gen";
  auto g = run_command(proofpipe() + " gen --constraints 65528 --partitions 2 --seed 5 --out " + quote(gen));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  const auto out = tmp / "out";
  auto r = pp_run("--zkey " + quote(gen / "circuit.zkey") + " --witness-dir " + quote(gen) + " --out " + quote(out) +
                      " --run-dir " + quote(tmp / "run") + " --synth-workers 1 --gpu-workers 1 --hang-timeout 1",
                  "PROOFPIPE_THREADS=1 timeout -s TERM 120");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("no heartbeat"), std::string::npos) << r.output;
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["workers"]["restarts"].get<int>(), 0);
  double longest_proof = 0;
  for (const auto& p : summary["per_partition"]) {
    longest_proof = std::max(longest_proof, p["stages"]["h_s"].get<double>() + p["stages"]["msms_s"].get<double>());
  }
  std::printf("longest proof %.2f s against --hang-timeout 1\n", longest_proof);
  if (longest_proof <= 1.0) GTEST_SKIP() << "the proofs were too quick on this machine to show anything";
}

}  // namespace
}  // namespace proofpipe::test
