// Bad input through `proofpipe run`: each case exits 2 with one
// line naming the problem, writes no output files, and leaves no shared
// memory or run directory behind (everything is checked before anything is
// created).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/cli.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }

void truncate_copy(const fs::path& from, const fs::path& to, uintmax_t keep) {
  fs::copy_file(from, to);
  fs::resize_file(to, keep);
}

struct Case {
  const char* name;
  std::string zkey, witness, out;
  const char* expect;      // part of the one error line
  std::string extra = {};  // more flags
};

class PipelineBadInput : public ::testing::Test {
 protected:
  void expect_rejected(const Case& c) {
    SCOPED_TRACE(c.name);
    const auto rings_before = shm_rings();
    const fs::path run_dir = tmp_ / (std::string("run-") + c.name);
    auto r = pp_run("--zkey " + quote(c.zkey) + " --witness " + quote(c.witness) + " --out " + quote(c.out) +
                    " --run-dir " + quote(run_dir) + c.extra);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(run_dir));
    EXPECT_TRUE(new_rings(rings_before).empty());
    if (fs::is_directory(c.out)) {
      EXPECT_TRUE(fs::is_empty(c.out)) << "partial output in " << c.out;
    }
  }
  TempDir tmp_;
};

TEST_F(PipelineBadInput, EachBadInputIsOneLineAndExitTwo) {
  const std::string zkey = (multi_io() / "circuit.zkey").string();
  const std::string wtns = (multi_io() / "w00.wtns").string();
  const fs::path out = tmp_ / "out";
  fs::create_directories(out);
  truncate_copy(zkey, tmp_ / "short.zkey", 1000);
  truncate_copy(wtns, tmp_ / "short.wtns", 100);
  std::ofstream(tmp_ / "not_a_dir") << "x";
  {
    std::ofstream bad(tmp_ / "magic.wtns");
    bad << "nope" << std::string(200, '\0');
  }

  const Case cases[] = {
      {"missing-zkey", (tmp_ / "nope.zkey").string(), wtns, out.string(), "nope.zkey"},
      {"truncated-zkey", (tmp_ / "short.zkey").string(), wtns, out.string(), "short.zkey"},
      {"missing-witness", zkey, (tmp_ / "nope.wtns").string(), out.string(), "nope.wtns"},
      {"truncated-witness", zkey, (tmp_ / "short.wtns").string(), out.string(), "short.wtns"},
      {"bad-magic-witness", zkey, (tmp_ / "magic.wtns").string(), out.string(), "magic.wtns"},
      {"witness-of-another-circuit", zkey, (data_dir() / "sparse_dense" / "w00.wtns").string(), out.string(),
       "expects nVars"},
      {"unwritable-out", zkey, wtns, (tmp_ / "not_a_dir" / "out").string(), "--out"},
  };
  for (const Case& c : cases) expect_rejected(c);
}

TEST_F(PipelineBadInput, MemoryBudgetBelowOneSlotIsAnError) {
  const auto rings_before = shm_rings();
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
                  " --out " + quote(tmp_ / "out") + " --mem-budget 4K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("too small for one slot"), std::string::npos) << r.output;
  EXPECT_TRUE(new_rings(rings_before).empty());
}

// `--backend cuda` where no GPU can be used: every proving worker fails its
// set-up the same way. The run must end promptly (each seat retried once,
// not five times with backoff) as a set-up error (exit 2, one error line)
// before any partition was granted, and clean up. Skipped where
// an NVIDIA driver is present (the run would prove).
TEST_F(PipelineBadInput, CudaBackendWithoutDeviceFailsFast) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/proc/driver/nvidia")) GTEST_SKIP() << "an NVIDIA driver is present";
  const auto rings_before = shm_rings();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
                  " --out " + quote(tmp_ / "out") + " --gpu-workers 2 --backend cuda --run-dir " + quote(tmp_ / "run"));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("proofpipe: error: --backend cuda: no proving worker could use a CUDA device: its set-up "
                          "failed 2 times in a row"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("CUDA"), std::string::npos) << "the worker's own reason is missing:\n" << r.output;
  // Before any grant: no synthesis worker was given a partition, nothing was written.
  EXPECT_EQ(r.output.find("w00"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp_ / "out")) << "the --out this run made is taken back";
  // 2 seats x 2 set-ups and one 100 ms backoff; the old rule (5 tries, 3.1 s
  // of backoff) took over 3 s. Logged, not asserted: a loaded CI machine can
  // be slow, and the message above is what proves the rule.
  std::printf("cuda-without-device run ended in %.2f s\n", secs);
  EXPECT_TRUE(new_rings(rings_before).empty());
  EXPECT_FALSE(fs::exists(tmp_ / "out" / "w00.proof.json"));
}

// PP_GPU_INTAKE (a diagnostic override of the proving worker's intake)
// with a value it does not know: the worker's set-up fails saying so, and
// the run ends as for any set-up failure.
TEST_F(PipelineBadInput, UnknownGpuIntakeFailsTheWorkersSetUpByName) {
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
                      " --out " + quote(tmp_ / "out") + " --backend cpu --run-dir " + quote(tmp_ / "run"),
                  "PP_GPU_INTAKE=dma");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("PP_GPU_INTAKE=dma: expected copy or take"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no proving worker left"), std::string::npos) << r.output;
}

// --gpus is checked like every other input: before anything is created.
TEST_F(PipelineBadInput, GpusListIsChecked) {
  const std::string zkey = (multi_io() / "circuit.zkey").string();
  const std::string wtns = (multi_io() / "w00.wtns").string();
  const std::string out = (tmp_ / "out").string();
  const Case cases[] = {
      {"gpus_with_cpu", zkey, wtns, out, "--gpus names CUDA devices; it cannot go with --backend cpu",
       " --gpus 0 --backend cpu"},
      {"gpus_empty_item", zkey, wtns, out, "--gpus '0,,1': '' is not a device number", " --gpus 0,,1"},
      {"gpus_word", zkey, wtns, out, "'first' is not a device number or GPU-/MIG- UUID", " --gpus first"},
      {"gpus_twice", zkey, wtns, out, "device 1 is listed twice", " --gpus 1,0,1"},
      {"gpus_same_number", zkey, wtns, out, "device 0 is listed twice", " --gpus 0,00"},
      {"gpu_workers_zero", zkey, wtns, out, "--gpu-workers", " --gpu-workers 0"},
  };
  for (const Case& c : cases) expect_rejected(c);
}

// Under a scheduler that set CUDA_VISIBLE_DEVICES=4,5, --gpus numbers count
// within that list: --gpus 1 is device 5, and --gpus 2 is outside the job.
TEST_F(PipelineBadInput, GpusCountWithinAnInheritedDeviceList) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/proc/driver/nvidia")) GTEST_SKIP() << "an NVIDIA driver is present";
  const std::string base = "--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " +
                           quote(multi_io() / "w00.wtns") + " --out " + quote(tmp_ / "out");
  auto outside = pp_run(base + " --gpus 2 --run-dir " + quote(tmp_ / "run1"), "CUDA_VISIBLE_DEVICES=4,5");
  EXPECT_EQ(outside.exit_code, 2) << outside.output;
  EXPECT_NE(outside.output.find("device 2 is not among the 2 of CUDA_VISIBLE_DEVICES=4,5"), std::string::npos)
      << outside.output;
  auto inside = pp_run(base + " --gpus 1 --run-dir " + quote(tmp_ / "run2"), "CUDA_VISIBLE_DEVICES=4,5");
  EXPECT_EQ(inside.exit_code, 2) << inside.output;
  EXPECT_NE(inside.output.find("set-up failed (CUDA_VISIBLE_DEVICES=5)"), std::string::npos) << inside.output;
  EXPECT_EQ(inside.output.find("CUDA_VISIBLE_DEVICES=1)"), std::string::npos) << inside.output;
}

// --gpus 3,5 without --gpu-workers: two proving workers, each seeing only
// its own device, and --backend cuda implied, so a missing device fails the
// worker's set-up and names the device (never a silent CPU fallback).
TEST_F(PipelineBadInput, GpusGiveEachProvingWorkerItsOwnDevice) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/proc/driver/nvidia")) GTEST_SKIP() << "an NVIDIA driver is present";
  auto r = pp_run("--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
                  " --out " + quote(tmp_ / "out") + " --gpus 3,5 --run-dir " + quote(tmp_ / "run"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("2 gpu workers on GPUs 3,5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("set-up failed (CUDA_VISIBLE_DEVICES=3)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("set-up failed (CUDA_VISIBLE_DEVICES=5)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no proving worker could use a CUDA device on GPUs 3,5"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp_ / "out" / "w00.proof.json"));
}

}  // namespace
}  // namespace proofpipe::test
