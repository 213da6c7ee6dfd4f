// The engine's Reporter (engine/src/reporter.hpp) without
// processes: the terminal progress line, and the status JSON that `proofpipe
// status` gets, from a ledger, a ring and the Scheduler's seats.
#include <gtest/gtest.h>

#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "proofpipe/engine/timings.hpp"
#include "reporter.hpp"

namespace proofpipe::engine {
namespace {

ProgressFigures figures(size_t done, size_t failed, size_t total, double elapsed_s, std::optional<double> eta_s) {
  ProgressFigures f;
  f.done = done;
  f.failed = failed;
  f.total = total;
  f.elapsed_s = elapsed_s;
  f.eta_s = eta_s;
  return f;
}

TEST(ProgressLine, ShowsTheBarElapsedEtaAndPeak) {
  // 3 of 12 done after 6 s, 2 in flight; ETA from the stage times (timings.hpp): 3725 s.
  ProgressFigures f = figures(3, 0, 12, 6.0, 3725.4);
  f.in_flight = 2;
  EXPECT_EQ(progress_line(f),
            "[#######                       ] 3/12 proved, 2 in flight, 0.50 proofs/s, elapsed 0:00:06, ETA 1:02:05, "
            "peak 0 B   ");
  // Failed partitions fill the bar and are named, but count for no rate.
  const std::string failed = progress_line(figures(2, 1, 4, 4.0, 2.0));
  EXPECT_NE(failed.find("[######################        ] 2/4 proved (1 failed), 0 in flight, 0.50 proofs/s, "
                        "elapsed 0:00:04, ETA 0:00:02"),
            std::string::npos)
      << failed;
  // Before anything can be estimated: "ETA unknown", never "ETA 0".
  const std::string early = progress_line(figures(0, 0, 5, 0.0, std::nullopt));
  EXPECT_NE(early.find("0/5 proved, 0 in flight, 0.00 proofs/s, elapsed 0:00:00, ETA unknown"), std::string::npos)
      << early;
  // An empty batch: a full bar.
  EXPECT_EQ(progress_line(figures(0, 0, 0, 1.0, 0.0)).substr(0, 32), "[" + std::string(30, '#') + "]");
  // Without a terminal: one plain line, no bar.
  EXPECT_EQ(plain_progress_line(figures(3, 1, 12, 3661.0, std::nullopt)),
            "proofpipe: progress: 3/12 proved, 1 failed, 0 in flight, elapsed 1:01:01, ETA unknown");
}

TEST(ProgressLine, HmsFormatsWholeSeconds) {
  EXPECT_EQ(hms(0), "0:00:00");
  EXPECT_EQ(hms(59.99), "0:00:59");
  EXPECT_EQ(hms(3600 * 27 + 61), "27:01:01");
  EXPECT_EQ(hms(-3), "0:00:00");
}

// The ETA comes from stage times: unknown until a synthesis and a proving
// have been timed, then the slower side's work left over its workers.
TEST(ProgressLine, EtaFromStageTimes) {
  std::vector<Partition> parts(4);
  for (uint32_t i = 0; i < 4; ++i) parts[i].index = i;
  Ledger ledger(std::move(parts), 3);
  EXPECT_FALSE(estimate_eta(ledger, 0.0, 1, 1).has_value());
  ledger.start_write(0, 0, 0, 1, 0.0);
  ledger.sealed(0, 2, 2.0);  // synthesis 2 s
  EXPECT_FALSE(estimate_eta(ledger, 2.0, 1, 1).has_value()) << "no proving timed yet";
  ledger.proving(0, 1, 2.0);
  ledger.commit(0, 3.0, {});  // prover 1 s
  // 3 pending: 3 x 2 s of synthesis on one worker, then the last one's 1 s proving.
  const auto eta = estimate_eta(ledger, 3.0, 1, 1);
  ASSERT_TRUE(eta.has_value());
  EXPECT_DOUBLE_EQ(*eta, 7.0);
  // Three synthesis workers: the prover (3 x 1 s) and a synthesis + proving (3 s) tie.
  EXPECT_DOUBLE_EQ(*estimate_eta(ledger, 3.0, 3, 1), 3.0);
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
  Scheduler scheduler(ledger, ring->slots(), 1, 1, {sizeof(groth16::ProofT<curves::Bls12_381>)});
  PipelineConfig cfg;
  cfg.slots = 2;
  Reporter reporter(cfg, ledger, std::chrono::steady_clock::now());
  std::vector<SeatView> seats = {{ipc::Role::kSynth, 0, 1, ::getpid(), nullptr, false},
                                 {ipc::Role::kProver, 1, 2, 0, nullptr, true}};
  ASSERT_TRUE(reporter.open(*ring, scheduler, seats, ProgressMode::kNone));
  scheduler.seat_started(0, 1);
  reporter.seat_started(0);
  reporter.seat_started(1);
  reporter.seat_started(1);  // restarted once
  reporter.sample(seats, "start");
  const nlohmann::json s = status_json(reporter.snapshot(seats));
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
}  // namespace proofpipe::engine
