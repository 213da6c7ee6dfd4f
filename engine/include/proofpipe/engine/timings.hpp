// Per-partition timings as an operator reads them (docs/metrics.md
// "Timings"): where a partition's time went, split so the parts add up to
// its total. Also the run's ETA from those stage times and the h:mm:ss
// format the progress line, the per-proof lines and `status` share.
//
//   queued --wait--> grant --synthesis--> sealed --prover wait--> claimed --prover--> commit
//                    (of the attempt that succeeded)             |<------- proving ------->|
//
// `prover` is the proving worker's whole turn (claim to commit); its own
// intake, H step and MSMs are what the PROOF message carries (stages).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofpipe/engine/ledger.hpp"

namespace proofpipe::engine {

struct PartitionTimes {
  double wait_s = 0;         // queued -> grant of the last attempt (earlier failed attempts included)
  double synth_s = 0;        // grant -> sealed
  double prover_wait_s = 0;  // sealed -> claimed by a proving worker
  double prover_s = 0;       // claimed -> commit (intake, H, MSMs, the proof's check and write)
  double prove_s = 0;        // sealed -> commit: prover_wait_s + prover_s
  double total_s = 0;        // queued -> commit: wait + synthesis + proving
  ipc::ProveStages stages;   // the proving worker's own split of prover_s (intake, H, MSMs)
};

// The figures of a committed partition; for one still open or failed, the
// stages it reached, up to `now` (run clock).
PartitionTimes partition_times(const Partition& p, double now);

// {"wait_s", "synth_s", "prove_s", "prover_wait_s", "prover_s", "total_s",
//  "stages": {"intake_s", "h_s", "msms_s"}} and, for a --inputs partition,
//  "generate_s" (part of synth_s): summary.json, --metrics, status.
nlohmann::json times_json(const Partition& p, double now);
nlohmann::json times_json(const PartitionTimes& t, std::optional<double> generate_s);

// "wait 0.10 s, synthesis 1.52 s, proving 2.31 s (prover wait 0.40 s; intake
// 0.10 s, H 0.50 s, MSMs 1.20 s), total 3.93 s": the per-proof line.
std::string times_line(const Partition& p);

// The median (the upper one of an even count); 0 for none.
double median(std::vector<double> v);

// Seconds as h:mm:ss (whole seconds, rounded down; negative is 0:00:00).
std::string hms(double seconds);

// The run's remaining time, from the median stage times of the committed
// partitions, or (before the first commit) from the stages the open ones
// have finished: pending partitions need a synthesis and a proving each,
// run `synth_workers` and `gpu_workers` at a time, and the slower side sets
// the pace. nullopt until at least one synthesis and one proving (or one
// commit) have been seen: "ETA unknown".
std::optional<double> estimate_eta(const Ledger& ledger, double now, unsigned synth_workers, unsigned gpu_workers);

}  // namespace proofpipe::engine
