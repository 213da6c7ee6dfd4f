// `proofpipe run` with the real processes: 10 partitions through 3
// synthesis workers, 1 proving worker and 2 slots; every proof checked by
// snarkjs and by `proofpipe verify` and compared with single `prove` calls;
// the take intake (the CUDA backend's) forced on the CPU backend; then
// backpressure with one slot and a slow consumer, sampled from the ring
// itself while the run goes on.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "proofpipe/shm/ring.hpp"
#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/run_watch.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }

std::string witness_args(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += " --witness " + quote(multi_io() / fmt::format("w{:02}.wtns", i));
  return s;
}

TEST(PipelineRun, TenPartitionsThreeSynthOneGpuTwoSlotsAllVerify) {
  TempDir tmp;
  const auto rings_before = shm_rings();
  const fs::path out = tmp / "out";
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + witness_args(10) + " --out " + quote(out) +
                  " --synth-workers 3 --gpu-workers 1 --slots 2 --backend cpu --run-dir " + quote(tmp / "run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ring 2 slots"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("10/10 partitions proved"), std::string::npos) << r.output;

  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["partitions"], 10);
  EXPECT_EQ(summary["proved"], 10);
  EXPECT_TRUE(summary["failed"].empty());
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
  EXPECT_LE(summary["backpressure"]["max_slots_filled"].get<int>(), 2);
  // The proving worker says what it proves with and times each proof's
  // stages; they lie inside the coordinator's seal -> commit window.
  EXPECT_EQ(summary["seats"].back()["worker"], "gpu.3");
  EXPECT_EQ(summary["seats"].back()["backend"], "cpu");
  EXPECT_NE(r.output.find("gpu.3 (cpu)"), std::string::npos) << r.output;  // no devices on the cpu backend
  EXPECT_EQ(summary["seats"].back()["intake"], "copy");                    // the CPU backend's intake
  EXPECT_NE(r.output.find("proving stages, median of 10 proofs (cpu, copy intake): intake "), std::string::npos)
      << r.output;
  for (const auto& p : summary["per_partition"]) {
    SCOPED_TRACE(p.dump());
    const auto& st = p["stages"];
    const double intake = st["intake_s"], h = st["h_s"], msms = st["msms_s"];
    EXPECT_GT(intake, 0);
    EXPECT_GT(h, 0);
    EXPECT_GT(msms, 0);
    EXPECT_LE(intake + h + msms, p["prove_s"].get<double>());
  }

  const fs::path vk = multi_io() / "verification_key.json";
  for (int i = 0; i < 10; ++i) {
    const std::string stem = fmt::format("w{:02}", i);
    SCOPED_TRACE(stem);
    const fs::path proof = out / (stem + ".proof.json"), pub = out / (stem + ".public.json");
    auto theirs = snarkjs_verify(vk, pub, proof);
    EXPECT_EQ(theirs.exit_code, 0) << theirs.output;
    EXPECT_NE(theirs.output.find("OK"), std::string::npos) << theirs.output;
    auto ours = pp_verify(vk, pub, proof);
    EXPECT_EQ(ours.exit_code, 0) << ours.output;
    // The same witness through the single-process prover: also valid, and
    // the same public signals (proofs differ: r and s are random).
    const fs::path single_proof = tmp / (stem + ".single.proof.json"),
                   single_pub = tmp / (stem + ".single.public.json");
    ASSERT_EQ(pp_prove(multi_io() / "circuit.zkey", multi_io() / (stem + ".wtns"), single_proof, single_pub).exit_code,
              0);
    EXPECT_EQ(pp_verify(vk, single_pub, single_proof).exit_code, 0);
    EXPECT_EQ(read_json(pub), read_json(single_pub));
  }
  EXPECT_FALSE(fs::exists(tmp / "run")) << "run directory left behind";
  EXPECT_TRUE(new_rings(rings_before).empty()) << "shared-memory segments left behind";
  // Only the outputs: no temporaries.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(out)) files += e.is_regular_file();
  EXPECT_EQ(files, 21u);
}

// The take intake (the CUDA backend's: the record goes from the slot into
// the backend, checksummed meanwhile, and the worker keeps no copy),
// forced on the CPU backend: every proof verifies, with stage times.
TEST(PipelineRun, TakeIntakeProofsVerify) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + witness_args(4) + " --out " + quote(out) +
                      " --synth-workers 2 --gpu-workers 1 --slots 2 --backend cpu",
                  "PP_GPU_INTAKE=take");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("backend cpu, take intake"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(cpu, take intake): intake "), std::string::npos) << r.output;
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["seats"].back()["intake"], "take");
  EXPECT_EQ(summary["proved"], 4);
  for (const auto& p : summary["per_partition"]) EXPECT_GT(p["stages"]["msms_s"].get<double>(), 0) << p.dump();
  const fs::path vk = multi_io() / "verification_key.json";
  for (int i = 0; i < 4; ++i) {
    const std::string stem = fmt::format("w{:02}", i);
    auto theirs = snarkjs_verify(vk, out / (stem + ".public.json"), out / (stem + ".proof.json"));
    EXPECT_EQ(theirs.exit_code, 0) << stem << ": " << theirs.output;
  }
}

// K = 1 and a proving worker slowed to 150 ms per claim: the ring never holds
// more than one synthesized partition, and the three synthesis workers wait
// for grants rather than running ahead.
TEST(PipelineRun, BackpressureOneSlotSlowConsumer) {
  TempDir tmp;
  const fs::path out = tmp / "out", run_dir = tmp / "run";
  std::atomic<bool> done{false};
  std::atomic<uint32_t> max_filled{0}, samples{0};
  std::thread sampler([&] {
    auto run = watch_run(run_dir, [&] { return done.load(); });
    shm::Ring* ring = run ? &run->ring : nullptr;
    while (!done && ring) {
      uint32_t filled = 0, occupied = 0;
      for (uint32_t s = 0; s < ring->slot_count(); ++s) {
        const auto st = ring->slots().load(s).state;
        filled += st == shm::SlotState::kWriting || st == shm::SlotState::kReady;
        occupied += st != shm::SlotState::kFree;
      }
      EXPECT_LE(occupied, ring->slot_count());
      max_filled = std::max<uint32_t>(max_filled, filled);
      ++samples;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + witness_args(6) + " --out " + quote(out) +
                      " --synth-workers 3 --gpu-workers 1 --slots 1 --run-dir " + quote(run_dir),
                  "PROOFPIPE_FAULTS=gpu.after_claim:delay=150");
  done = true;
  sampler.join();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(samples.load(), 100u) << "the sampler never saw the ring";
  EXPECT_LE(max_filled.load(), 1u);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["proved"], 6);
  EXPECT_EQ(summary["ring"]["slots"], 1);
  EXPECT_LE(summary["backpressure"]["max_slots_filled"].get<int>(), 1);
  // With one slot and a slow consumer, at least two of the three synthesis
  // workers were seen idle, waiting for a grant.
  EXPECT_GE(summary["backpressure"]["max_waiting_for_grant"].get<int>(), 2);
}

}  // namespace
}  // namespace proofpipe::test
