// Per-partition timings and the ETA (timings.hpp).
#include "proofpipe/engine/timings.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace proofpipe::engine {
namespace {

bool reached_seal(const Partition& p) {
  return p.state == PartState::kReady || p.state == PartState::kProving || p.state == PartState::kDone;
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

PartitionTimes partition_times(const Partition& p, double now) {
  PartitionTimes t;
  t.stages = p.stages;
  if (p.attempt == 0) {  // never granted: all of it is waiting
    t.wait_s = p.state == PartState::kPending ? std::max(0.0, now - p.queued_s) : 0;
    t.total_s = t.wait_s;
    return t;
  }
  const double end = p.state == PartState::kDone ? p.done_s : now;
  t.wait_s = p.write_started_s - p.queued_s;
  if (!reached_seal(p)) {
    t.synth_s = p.state == PartState::kWriting ? end - p.write_started_s : p.synth_s;
  } else {
    t.synth_s = p.sealed_s - p.write_started_s;
    if (p.state == PartState::kReady) {
      t.prover_wait_s = end - p.sealed_s;
    } else {
      t.prover_wait_s = p.claimed_s - p.sealed_s;
      t.prover_s = end - p.claimed_s;
    }
  }
  t.prove_s = t.prover_wait_s + t.prover_s;
  t.total_s = t.wait_s + t.synth_s + t.prove_s;
  return t;
}

nlohmann::json times_json(const PartitionTimes& t, std::optional<double> generate_s) {
  nlohmann::json j = {
      {"wait_s", t.wait_s},
      {"synth_s", t.synth_s},
      {"prove_s", t.prove_s},
      {"prover_wait_s", t.prover_wait_s},
      {"prover_s", t.prover_s},
      {"total_s", t.total_s},
      {"stages", {{"intake_s", t.stages.intake_s}, {"h_s", t.stages.h_s}, {"msms_s", t.stages.msms_s}}}};
  if (generate_s) j["generate_s"] = *generate_s;  // --inputs: the part of synth_s spent generating
  return j;
}

nlohmann::json times_json(const Partition& p, double now) {
  return times_json(partition_times(p, now), p.input.empty() ? std::nullopt : std::optional<double>(p.generate_s));
}

std::string times_line(const Partition& p) {
  const PartitionTimes t = partition_times(p, p.done_s);
  return fmt::format(
      "wait {:.2f} s, synthesis {:.2f} s{}, proving {:.2f} s (prover wait {:.2f} s; intake {:.2f} s, H {:.2f} s, "
      "MSMs {:.2f} s), total {:.2f} s",
      t.wait_s, t.synth_s, p.input.empty() ? "" : fmt::format(" (witness generation {:.2f} s)", p.generate_s),
      t.prove_s, t.prover_wait_s, p.stages.intake_s, p.stages.h_s, p.stages.msms_s, t.total_s);
}

std::string hms(double seconds) {
  const auto s = uint64_t(std::max(0.0, std::floor(seconds)));
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

std::optional<double> estimate_eta(const Ledger& ledger, double now, unsigned synth_workers, unsigned gpu_workers) {
  std::vector<double> synth, prover;
  for (uint32_t i = ledger.first_held(); i < ledger.size(); ++i) {
    const Partition& p = ledger.at(i);
    if (reached_seal(p)) synth.push_back(p.sealed_s - p.write_started_s);
    if (p.state == PartState::kDone) prover.push_back(p.done_s - p.claimed_s);
  }
  if (synth.empty() || prover.empty()) return std::nullopt;
  const double synth_med = median(std::move(synth)), prover_med = median(std::move(prover));
  // Work left on each side, in seconds of one worker; an open stage counts
  // what the median says is left of it (at least nothing).
  double synth_left = 0, prover_left = 0;
  for (uint32_t i = ledger.open_begin(); i < ledger.size(); ++i) {
    const Partition& p = ledger.at(i);
    switch (p.state) {
      case PartState::kPending:
        synth_left += synth_med;
        prover_left += prover_med;
        break;
      case PartState::kWriting:
        synth_left += std::max(0.0, synth_med - (now - p.write_started_s));
        prover_left += prover_med;
        break;
      case PartState::kReady: prover_left += prover_med; break;
      case PartState::kProving: prover_left += std::max(0.0, prover_med - (now - p.claimed_s)); break;
      case PartState::kDone:
      case PartState::kFailed: break;
    }
  }
  if (synth_left == 0 && prover_left == 0) return 0.0;
  // The slower side sets the pace; the last synthesis still needs its proving.
  const double synth_side = synth_left / std::max(1u, synth_workers) + (synth_left > 0 ? prover_med : 0);
  return std::max(synth_side, prover_left / std::max(1u, gpu_workers));
}

}  // namespace proofpipe::engine
