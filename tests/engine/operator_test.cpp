// The operator's view of `proofpipe run`: per-partition timings
// that add up (wait, synthesis, proving, total), the plain progress line
// without a terminal, `--backend cuda` without a device refused before any
// grant, `--resume`, and the provenance fields of summary.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

fs::path multi_io() { return data_dir() / "multi_io"; }

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string witnesses(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += " --witness " + quote(multi_io() / fmt::format("w{:02}.wtns", i));
  return s;
}

std::string run_flags(const fs::path& out, int count) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + witnesses(count) + " --out " + quote(out) + " --backend cpu";
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
    // The worker's own stages lie inside the seal -> commit leg, and inside
    // the coordinator's claim -> commit figure but for the CLAIMED message's
    // trip: the worker starts its clock as it claims, the coordinator its
    // own as it reads that message (1.07 ms later once, on a loaded 2-core
    // host, which a 1 ms allowance failed).
    const double stages = st["intake_s"].get<double>() + st["h_s"].get<double>() + st["msms_s"].get<double>();
    EXPECT_LE(stages, prove);
    EXPECT_LE(stages, prover + 0.05);
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

// Without a terminal (the test reads a pipe) a long partition still shows
// life: the plain progress line, here every 0.5 s instead of 30 s
// (PROOFPIPE_PROGRESS_INTERVAL_S, docs/operations.md), during a 2.5 s proving.
TEST(OperatorProgress, PlainLineWithoutATerminalDuringALongPartition) {
  TempDir tmp;
  auto r = pp_run(run_flags(tmp / "out", 1) + " --synth-workers 1 --gpu-workers 1",
                  "PROOFPIPE_PROGRESS_INTERVAL_S=0.5 PROOFPIPE_FAULTS=gpu.mid_compute:delay=2500");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t lines = 0, during = 0;
  for (size_t at = r.output.find("proofpipe: progress: "); at != std::string::npos;
       at = r.output.find("proofpipe: progress: ", at + 1)) {
    ++lines;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    during += line.find("0/1 proved, 0 failed, 1 in flight, elapsed 0:00:0") != std::string::npos;
  }
  EXPECT_GE(during, 3u) << r.output;
  EXPECT_GE(lines, during);
  EXPECT_NE(r.output.find("ETA unknown"), std::string::npos) << "nothing could be estimated before the proof\n"
                                                             << r.output;
  EXPECT_EQ(r.output.find("\r"), std::string::npos) << "a bar was drawn into a pipe";
}

// On a terminal (a pseudo-terminal from script(1)) the bar is drawn in
// place, and every log line, the coordinator's and the workers' (a proving
// worker killed once: death, reclaim, restart), clears the bar's line first
// instead of landing on it; the bar is drawn again below.
TEST(OperatorProgress, LogLinesLandAboveTheBar) {
  if (run_command("command -v script").exit_code != 0) GTEST_SKIP() << "no script(1) for a pseudo-terminal";
  TempDir tmp;
  const std::string cmd = proofpipe() + " run " + run_flags(tmp / "out", 6) + " --synth-workers 1 --gpu-workers 1";
  auto r = run_command("PROOFPIPE_FAULTS=gpu.mid_compute:delay=150,gpu.after_claim:kill@2 script -qec " + quote(cmd) +
                       " " + quote(tmp / "typescript") + " >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string tty = file_text(tmp / "typescript");
  ASSERT_NE(tty.find("\r[######"), std::string::npos) << "no bar drawn:\n" << tty;
  const std::regex log_line(R"(\d\d:\d\d:\d\d\.\d{3} [a-z.0-9]+\[\d+\] )");
  size_t after_bar = 0;
  bool bar_seen = false;
  std::istringstream lines(tty);
  for (std::string line; std::getline(lines, line);) {
    if (line.ends_with('\r')) line.pop_back();  // the terminal's newline is "\r\n"
    if (line.find("] 0/6 proved") != std::string::npos) bar_seen = true;
    if (!bar_seen || !std::regex_search(line, log_line)) continue;
    ++after_bar;
    const std::string last = line.substr(line.rfind('\r') + 1);  // what is left on the terminal
    EXPECT_EQ(last.rfind("\033[K", 0), 0u) << "a log line landed on the bar: " << line;
  }
  EXPECT_GE(after_bar, 3u) << "the kill's log lines (death, reclaim, restart) are missing:\n" << tty;
}

// `--resume` keeps what verifies and redoes the rest: w00 and w03 are
// right; w01's proof is tampered with (one digit), w02 lost its public
// file, and w04 holds w05's pair (a valid proof, but not of this witness).
// Then a second --resume finds nothing to do.
TEST(OperatorResume, SkipsValidProofsAndRedoesTamperedOnes) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  const std::string flags = run_flags(out, 6) + " --synth-workers 1 --gpu-workers 1";
  auto first = pp_run(flags, "PROOFPIPE_NO_PROGRESS=1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string tampered_before = file_text(out / "w01.proof.json");
  std::string tampered = tampered_before;
  const size_t digit = tampered.find_first_of("123456789", tampered.find("pi_a"));
  ASSERT_NE(digit, std::string::npos);
  tampered[digit] = tampered[digit] == '9' ? '1' : char(tampered[digit] + 1);
  std::ofstream(out / "w01.proof.json", std::ios::trunc) << tampered;
  fs::remove(out / "w02.public.json");
  fs::copy_file(out / "w05.proof.json", out / "w04.proof.json", fs::copy_options::overwrite_existing);
  fs::copy_file(out / "w05.public.json", out / "w04.public.json", fs::copy_options::overwrite_existing);
  const auto w00_time = fs::last_write_time(out / "w00.proof.json");

  // Refused with --overwrite: they say opposite things.
  auto both = pp_run(flags + " --resume --overwrite");
  EXPECT_EQ(both.exit_code, 2) << both.output;

  auto again = pp_run(flags + " --resume", "PROOFPIPE_NO_PROGRESS=1");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("--resume: 3 of 6 partitions already proved in --out and verified: skipped; 3 to prove"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("3/3 partitions proved (3 more skipped: --resume)"), std::string::npos) << again.output;
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["resume"]["skipped"], nlohmann::json({"w00", "w03", "w05"})) << summary.dump(2);
  ASSERT_EQ(summary["resume"]["redone"].size(), 3u) << summary.dump(2);
  EXPECT_EQ(summary["resume"]["redone"][0]["partition"], "w01");
  EXPECT_EQ(summary["resume"]["redone"][1]["partition"], "w02");
  EXPECT_EQ(summary["resume"]["redone"][2]["partition"], "w04");
  EXPECT_NE(summary["resume"]["redone"][2]["why"].get<std::string>().find("not this witness's"), std::string::npos);
  EXPECT_EQ(fs::last_write_time(out / "w00.proof.json"), w00_time) << "a kept proof was written again";
  for (int i = 0; i < 6; ++i) {
    const std::string stem = fmt::format("w{:02}", i);
    auto v =
        pp_verify(multi_io() / "verification_key.json", out / (stem + ".public.json"), out / (stem + ".proof.json"));
    EXPECT_EQ(v.exit_code, 0) << stem << ": " << v.output;
  }
  auto third = pp_run(flags + " --resume");
  EXPECT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("every partition is already proved"), std::string::npos) << third.output;
}

// summary.json says what made the proofs: version, command line, times,
// host, the key (path, size, BLAKE2b-256 as b2sum computes it), the curve,
// the witnesses and the outputs.
TEST(OperatorProvenance, SummaryCarriesTheProvenanceFields) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  auto r = pp_run(run_flags(out, 2), "PROOFPIPE_NO_PROGRESS=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = read_json(out / "summary.json");
  ASSERT_TRUE(summary.contains("provenance")) << summary.dump(2);
  const auto& p = summary["provenance"];
  auto version = run_command(proofpipe() + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.output, "proofpipe " + p["version"].get<std::string>() + "\n");
  EXPECT_TRUE(std::regex_match(p["version"].get<std::string>(), std::regex(R"(\d+\.\d+\.\d+ \((git \S+|unknown)\))")))
      << p["version"];
  EXPECT_NE(p["command_line"].get<std::string>().find(" run --zkey "), std::string::npos) << p;
  const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  EXPECT_TRUE(std::regex_match(p["started_at"].get<std::string>(), iso)) << p;
  EXPECT_TRUE(std::regex_match(p["ended_at"].get<std::string>(), iso)) << p;
  EXPECT_LE(p["started_at"].get<std::string>(), p["ended_at"].get<std::string>());
  EXPECT_FALSE(p["hostname"].get<std::string>().empty());
  EXPECT_EQ(p["curve"], "bls12381");
  const fs::path zkey = multi_io() / "circuit.zkey";
  EXPECT_EQ(p["zkey"]["path"], fs::absolute(zkey).lexically_normal().string());
  EXPECT_EQ(p["zkey"]["size_bytes"].get<uint64_t>(), fs::file_size(zkey));
  auto b2 = run_command("b2sum -l 256 " + quote(zkey));
  if (b2.exit_code == 0) {
    EXPECT_EQ(b2.output.substr(0, 64), p["zkey"]["blake2b_256"].get<std::string>());
  }
  EXPECT_EQ(p["zkey"]["blake2b_256"].get<std::string>().size(), 64u);
  ASSERT_EQ(p["witnesses"].size(), 2u);
  EXPECT_EQ(p["witnesses"][1], (multi_io() / "w01.wtns").lexically_normal().string());
  EXPECT_EQ(p["outputs"]["out"], out.string());
  ASSERT_EQ(p["outputs"]["proofs"].size(), 2u);
  EXPECT_EQ(p["outputs"]["proofs"][0]["proof"], (out / "w00.proof.json").string());
  EXPECT_EQ(p["outputs"]["proofs"][1]["public"], (out / "w01.public.json").string());
}

}  // namespace
}  // namespace proofpipe::test
