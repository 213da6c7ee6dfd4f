// The coordinator's Reporter (coordinator/src/reporter.hpp) without
// processes: the terminal progress line, and the status JSON that `proofpipe
// status` gets, from a ledger, a ring and the Scheduler's seats.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "reporter.hpp"

namespace proofpipe::coord {
namespace {

TEST(ProgressLine, ShowsTheBarRateEtaAndPeak) {
  // 3 of 12 done in 6 s: 0.5 proofs/s, 9 left: 18 s.
  EXPECT_EQ(progress_line(3, 0, 12, 6.0, 0),
            "[#######                       ] 3/12 proved, 0.50 proofs/s, ETA 18 s, peak 0 B   ");
  // Failed partitions fill the bar and are named, but count for no rate.
  const std::string failed = progress_line(2, 1, 4, 4.0, 0);
  EXPECT_NE(failed.find("[######################        ] 2/4 proved (1 failed), 0.50 proofs/s, ETA 2 s"),
            std::string::npos)
      << failed;
  // Nothing done yet: no rate, no ETA (never a division by zero).
  EXPECT_NE(progress_line(0, 0, 5, 0.0, 0).find("0/5 proved, 0.00 proofs/s, ETA 0 s"), std::string::npos);
  // An empty batch: a full bar.
  EXPECT_EQ(progress_line(0, 0, 0, 1.0, 0).substr(0, 32), "[" + std::string(30, '#') + "]");
}

TEST(ReporterStatus, NamesEverySeatFromTheSchedulerAndTheLedger) {
  auto run_id = shm::make_run_id();
  ASSERT_TRUE(run_id);
  const std::string prefix = shm::ring_prefix(long(::getpid()), *run_id);
  auto ring = shm::Ring::create(prefix, 2, 4096, 2, *run_id);
  ASSERT_TRUE(ring) << ring.status().message();
  std::vector<Partition> parts(3);
  for (uint32_t i = 0; i < 3; ++i) {
    parts[i].index = i;
    parts[i].stem = "p" + std::to_string(i);
  }
  Ledger ledger(std::move(parts), 3);
  Scheduler scheduler(ledger, ring->slots(), 1, 1);
  PipelineConfig cfg;
  cfg.slots = 2;
  Reporter reporter(cfg, ledger, std::chrono::steady_clock::now());
  std::vector<SeatView> seats = {{ipc::Role::kSynth, 0, 1, ::getpid(), nullptr, false},
                                 {ipc::Role::kGpu, 1, 2, 0, nullptr, true}};
  ASSERT_TRUE(reporter.open(*ring, scheduler, seats, /*progress=*/false));
  scheduler.seat_started(0, 1);
  reporter.seat_started(0);
  reporter.seat_started(1);
  reporter.seat_started(1);  // restarted once
  reporter.sample(seats, "start");
  const nlohmann::json s = reporter.status_json(seats);
  EXPECT_EQ(s["pid"], ::getpid());
  ASSERT_EQ(s["workers"].size(), 2u);
  EXPECT_EQ(s["workers"][0]["worker"], "synth.0");
  EXPECT_EQ(s["workers"][0]["state"], "starting");  // running, no HELLO yet
  EXPECT_EQ(s["workers"][0]["pid"], ::getpid());
  EXPECT_TRUE(s["workers"][0].contains("rss"));  // from the sample
  EXPECT_EQ(s["workers"][1]["worker"], "gpu.1");
  EXPECT_EQ(s["workers"][1]["state"], "retired");
  EXPECT_EQ(s["workers"][1]["restarts"], 1);
  EXPECT_EQ(s["partitions"]["total"], 3);
  EXPECT_EQ(s["partitions"]["pending"], 3);
  EXPECT_EQ(s["slot_count"], 2);
  EXPECT_EQ(s["slots"]["free"], 2);
  const RunReport report = reporter.finish(5, false, "");
  EXPECT_EQ(report.stale_messages, 5u);  // the ROUTER's undecodable frames count as stale
  EXPECT_EQ(report.seats.size(), 2u);
  EXPECT_EQ(report.samples, 1u);
  (void)shm::Ring::unlink(prefix);
}

}  // namespace
}  // namespace proofpipe::coord
