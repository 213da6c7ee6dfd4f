// A real OOM kill under a per-worker memory cap. One partition
// (index 3) makes its synthesis worker allocate without bound (the `oom`
// fault, armed in every incarnation), so the kernel kills that worker inside
// its capped cgroup on every attempt: the death must be classified as OOM,
// the partition retried up to --max-attempts and then failed with cause OOM,
// every other partition proved, the coordinator and the proving worker never
// die, exit 3 with a message naming the partition. The same run without the
// fault passes under the same cap, with each worker's cgroup peak below it.
// Skips (saying so) only where no writable memory cgroup exists.
#include "support/fault_support.hpp"

namespace proofpipe::test {
namespace {

constexpr const char* kCap = "64M";
constexpr uint64_t kCapBytes = 64ull << 20;

TEST(FaultOom, OomKilledPartitionFailsOthersProved) {
  TempDir tmp;
  const int count = 8;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  auto r = pp_run(
      run_flags(wdir, out, tmp / "run") + " --synth-workers 2 --gpu-workers 1 --max-attempts 3 --synth-mem-max " + kCap,
      "PROOFPIPE_FAULTS=synth.mid_write~3:oom");
  if (!has_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  std::printf("memory caps enforced by: %s\n",
              r.output.find("(cgroup v1)") != std::string::npos ? "cgroup v1" : "cgroup v2");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("FAILED p03 after 3 attempts"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("OOM-killed by its cgroup (memory cap 64.00 MiB)"), std::string::npos) << r.output;

  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["proved"], count - 1);
  ASSERT_EQ(summary["failed"].size(), 1u);
  EXPECT_EQ(summary["failed"][0]["partition"], "p03");
  ASSERT_EQ(summary["failed"][0]["causes"].size(), 3u);
  for (const auto& cause : summary["failed"][0]["causes"]) {
    EXPECT_NE(cause.get<std::string>().find("OOM-killed"), std::string::npos) << cause;
  }
  uint64_t ooms = 0;
  for (const auto& seat : summary["seats"]) {
    ooms += seat["oom_kills"].get<uint64_t>();
    if (seat["worker"].get<std::string>().rfind("gpu", 0) == 0) {
      EXPECT_EQ(seat["incarnations"], 1) << "the proving worker died";
      EXPECT_TRUE(seat["deaths"].empty());
    }
  }
  EXPECT_EQ(ooms, 3u);
  EXPECT_FALSE(summary["interrupted"].get<bool>());  // the coordinator finished the batch itself
  for (int i = 0; i < count; ++i) {
    if (i == 3) {
      EXPECT_FALSE(std::filesystem::exists(out / "p03.proof.json"));
      continue;
    }
    const std::string stem = fmt::format("p{:02}", i);
    EXPECT_EQ(
        pp_verify(multi_io() / "verification_key.json", out / (stem + ".public.json"), out / (stem + ".proof.json"))
            .exit_code,
        0)
        << stem;
  }
}

TEST(FaultOom, SufficientCapPassesAndPeaksStayBelowIt) {
  TempDir tmp;
  const int count = 6;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  auto r = pp_run(run_flags(wdir, out, tmp / "run") + " --synth-workers 2 --gpu-workers 1 --synth-mem-max " + kCap +
                  " --gpu-mem-max " + kCap);
  if (!has_writable_cgroup(r.output)) GTEST_SKIP() << "no writable memory cgroup on this machine:\n" << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  for (const auto& seat : summary["seats"]) {
    const uint64_t peak = seat["cgroup_peak_bytes"];
    EXPECT_GT(peak, 0u) << seat.dump();
    EXPECT_LT(peak, kCapBytes) << seat.dump();
    EXPECT_EQ(seat["oom_kills"], 0);
    std::printf("%s: cgroup peak %.1f MiB of a %s cap\n", seat["worker"].get<std::string>().c_str(),
                double(peak) / (1 << 20), kCap);
  }
}

}  // namespace
}  // namespace proofpipe::test
