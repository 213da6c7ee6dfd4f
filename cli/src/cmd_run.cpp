// `proofpipe run` and `proofpipe demo` (docs/pipeline.md): check the inputs, run
// the pipeline, write summary.json, report, and choose the exit code. What
// --out may hold before and after: docs/operations.md, "Files proofpipe writes".
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "proofpipe/common/own_exe.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/batch.hpp"
#include "proofpipe/engine/engine.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/outputs.hpp"
#include "proofpipe/engine/provenance.hpp"
#include "proofpipe/engine/resume.hpp"
#include "proofpipe/engine/timings.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::cli {
namespace {

// The backends and intakes the proving workers said HELLO with: "cuda, take
// intake", "cpu, copy intake", or several ("; "-separated: an auto seat
// restarted where the device was lost); "none" if none did.
std::string seat_backends(const engine::RunReport& r) {
  std::vector<std::string> names;
  for (const auto& s : r.seats) {
    if (s.backend.empty()) continue;
    std::string name = s.intake.empty() ? s.backend : fmt::format("{}, {} intake", s.backend, s.intake);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, "; "));
}

// A partition's state at the end: "interrupted" for one a signal stopped
// before it was proved (it did not fail; `run --resume` does it next time).
const char* end_state_name(const engine::Partition& p) {
  return engine::was_interrupted(p) ? "interrupted" : engine::part_state_name(p.state);
}

// The end-of-run table on stdout (the same figures are in summary.json;
// timings.hpp says what each column covers): wait in the queue, synthesis,
// proving (seal to commit) of which `prover wait` was the wait for a proving
// worker, that worker's own intake, H and MSMs, and the total.
void print_summary_table(const engine::Ledger& ledger, const engine::RunReport& r, const engine::PipelineConfig& cfg) {
  std::printf("%-16s %-11s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "partition", "state", "attempts", "wait s",
              "synth s", "prove s", "pwait s", "intake s", "H s", "MSMs s", "total s");
  std::vector<double> intake, h, msms;
  for (const auto& p : ledger.all()) {
    const engine::PartitionTimes t = engine::partition_times(p, r.wall_s);
    std::printf("%-16s %-11s %8u %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", p.stem.c_str(), end_state_name(p),
                p.attempt, t.wait_s, t.synth_s, t.prove_s, t.prover_wait_s, p.stages.intake_s, p.stages.h_s,
                p.stages.msms_s, t.total_s);
    if (p.state != engine::PartState::kDone) continue;
    intake.push_back(p.stages.intake_s);
    h.push_back(p.stages.h_s);
    msms.push_back(p.stages.msms_s);
  }
  const size_t proved = ledger.count(engine::PartState::kDone);
  uint64_t peak_sum = r.coordinator_peak_rss_bytes;
  uint64_t ooms = 0;
  std::printf("%-16s %12s %12s %6s\n", "process", "peak RSS", "cgroup peak", "OOMs");
  std::printf("%-16s %12s %12s %6s\n", "coordinator", format_size(r.coordinator_peak_rss_bytes).c_str(),
              r.coordinator_cgroup_peak_bytes ? format_size(r.coordinator_cgroup_peak_bytes).c_str() : "-", "-");
  for (const auto& s : r.seats) {
    std::string name = fmt::format("{}.{}", ipc::role_name(s.role), s.seat);
    if (!s.backend.empty()) name += " (" + ipc::describe(ipc::GpuHello{s.backend, s.devices, s.intake}) + ")";
    std::printf("%-16s %12s %12s %6lu\n", name.c_str(), format_size(s.peak_rss_bytes).c_str(),
                s.cgroup_peak_bytes ? format_size(s.cgroup_peak_bytes).c_str() : "-",
                static_cast<unsigned long>(s.oom_kills));
    peak_sum += s.peak_rss_bytes;
    ooms += s.oom_kills;
  }
  std::printf("proved %zu/%zu in %.2f s: %.3f s/proof, %.0f proofs/hour; restarts %lu, OOM kills %lu\n", proved,
              ledger.size(), r.wall_s, proved ? r.wall_s / double(proved) : 0.0,
              r.wall_s > 0 ? 3600.0 * double(proved) / r.wall_s : 0.0, static_cast<unsigned long>(r.restarts),
              static_cast<unsigned long>(ooms));
  if (!intake.empty()) {
    std::printf("proving stages, median of %zu proofs (%s): intake %.3f s, H step %.3f s, MSMs %.3f s\n", intake.size(),
                seat_backends(r).c_str(), engine::median(intake), engine::median(h), engine::median(msms));
  }
  std::printf("memory: sum of per-process peaks %s, most at one sample %s; ring %s (%u x %s)%s\n",
              format_size(peak_sum).c_str(), format_size(r.max_total_peak_bytes).c_str(),
              format_size(r.ring_bytes).c_str(), r.slots, format_size(r.slot_size).c_str(),
              cfg.mem_budget ? fmt::format("; budget {}", format_size(cfg.mem_budget)).c_str() : "");
  if (r.mem_max != 0) {
    std::printf("memory: total peak %s of --mem-max %s (parent cgroup peak %s)\n",
                format_size(r.max_total_cgroup_bytes).c_str(), format_size(r.mem_max).c_str(),
                format_size(r.parent_cgroup_peak_bytes).c_str());
  }
}

// " (2 redone: w01: the proof does not verify ...; w02: missing)", or "".
std::string redone_note(const engine::ResumeOutcome& r) {
  std::string s;
  for (const auto& [stem, why] : r.redone) s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", stem, why);
  return s.empty() ? s : fmt::format(" ({} redone: {})", r.redone.size(), s);
}

struct RunOutcome {
  int exit_code = kExitError;
  engine::RunReport report;
  size_t partitions = 0, proved = 0;
  std::shared_ptr<const engine::PipelineKey> key;
  std::vector<std::string> stems;  // of the proved partitions
};

RunOutcome run_batch(const RunArgs& args, bool table) {
  RunOutcome o;
  // An exit 2 takes back the --out folder it created (while still empty).
  const engine::CreatedDirs created(args.out);
  auto prepared = engine::prepare_run(args);
  if (prepared && args.overwrite) {
    if (Status st = engine::remove_old_outputs(prepared->config.out, prepared->partitions); !st) prepared = st;
  }
  nlohmann::json extra = nlohmann::json::object();
  std::optional<engine::Provenance> provenance;
  if (prepared) {
    std::vector<std::filesystem::path> witnesses;
    for (const auto& p : prepared->partitions) witnesses.push_back(p.input.empty() ? p.wtns : p.input);
    provenance.emplace(args.zkey, std::string(prepared->key->curve_name()), std::move(witnesses), prepared->config.out);
  }
  if (prepared && args.resume) {
    const size_t all = prepared->partitions.size();
    auto resumed = engine::resume_partitions(prepared->config.out, prepared->partitions, *prepared->key);
    if (!resumed) {
      prepared = resumed.status();
    } else {
      std::fprintf(stderr,
                   "proofpipe: --resume: %zu of %zu partitions already proved in --out and verified: skipped; "
                   "%zu to prove%s\n",
                   resumed->skipped.size(), all, prepared->partitions.size(), redone_note(*resumed).c_str());
      extra["resume"] = resumed->to_json();
    }
  }
  if (!prepared) {
    created.undo();
    o.exit_code = fail(prepared.status());
    return o;
  }
  if (args.resume && prepared->partitions.empty()) {
    // Nothing to start workers for; the earlier run's summary.json stays.
    std::fprintf(stderr, "proofpipe: --resume: every partition is already proved in '%s'\n", args.out.c_str());
    o.exit_code = kExitOk;
    return o;
  }
  engine::Ledger ledger(std::move(prepared->partitions), args.workers.max_attempts);
  auto report = engine::run(prepared->config, ledger, std::span(&prepared->key, 1));
  if (!report) {
    created.undo();
    o.exit_code = fail(report.status());
    return o;
  }
  o.report = *report;
  o.key = prepared->key;
  const std::filesystem::path summary = prepared->config.out / "summary.json";
  {
    std::vector<std::string> proved;
    for (const auto& p : ledger.all()) {
      if (p.state == engine::PartState::kDone) proved.push_back(p.stem);
    }
    extra["provenance"] = provenance->finish(proved);
  }
  // The proofs are written; a summary that cannot be is said on the last line.
  const Status summary_st = engine::write_summary(summary, ledger, *report, prepared->config, extra);
  o.partitions = ledger.size();
  o.proved = ledger.count(engine::PartState::kDone);
  size_t interrupted = 0;
  for (const auto& p : ledger.all()) {
    if (p.state == engine::PartState::kDone) o.stems.push_back(p.stem);
    if (p.state != engine::PartState::kFailed) continue;
    if (engine::was_interrupted(p)) {
      ++interrupted;
      continue;
    }
    std::string causes;
    for (const auto& c : p.causes) causes += (causes.empty() ? "" : "; ") + c;
    std::fprintf(stderr, "proofpipe: FAILED %s after %u attempt%s: %s\n", p.stem.c_str(), p.attempt,
                 p.attempt == 1 ? "" : "s", causes.c_str());
  }
  if (interrupted != 0) {
    std::fprintf(stderr, "proofpipe: interrupted: %zu partition%s not proved (run again with --resume to finish)\n",
                 interrupted, interrupted == 1 ? "" : "s");
  }
  if (table) print_summary_table(ledger, *report, prepared->config);
  const std::string summary_note =
      summary_st ? "summary: " + summary.string() : "the summary could not be written: " + summary_st.message();
  const std::string skipped =
      extra.contains("resume") ? fmt::format(" ({} more skipped: --resume)", extra["resume"]["skipped"].size()) : "";
  std::fprintf(stderr, "proofpipe: %zu/%zu partitions proved%s in %.2f s (%.3f s/proof); %s\n", o.proved, o.partitions,
               skipped.c_str(), report->wall_s, o.proved ? report->wall_s / double(o.proved) : 0.0,
               summary_note.c_str());
  if (!summary_st) {
    o.exit_code = kExitError;
  } else if (report->interrupted) {
    o.exit_code = kExitInterrupted;
  } else {
    o.exit_code = o.proved == o.partitions ? kExitOk : kExitPartial;
  }
  return o;
}

// Where the demo's circuit for `curve` is, relative to this executable
// (never a path built in, so an installed or moved tree works):
// <prefix>/share/proofpipe (bls12381) or <prefix>/share/proofpipe/bn128
// beside <prefix>/bin, or the source tree above a build folder
// (<source>/<build>/bin/proofpipe -> <source>/tests/data/multi_io, multi_io_bn128).
std::optional<std::filesystem::path> find_demo_dir(curves::CurveId curve, std::vector<std::filesystem::path>* tried) {
  const std::optional<std::filesystem::path> bin = own_bin_dir();
  if (!bin) return std::nullopt;
  const bool bn = curve == curves::CurveId::kBn254;
  const std::filesystem::path share = *bin / ".." / "share" / "proofpipe";
  const std::filesystem::path source = *bin / ".." / ".." / "tests" / "data";
  for (const std::filesystem::path& dir :
       {bn ? share / "bn128" : share, source / (bn ? "multi_io_bn128" : "multi_io")}) {
    const std::filesystem::path d = dir.lexically_normal();
    tried->push_back(d);
    std::error_code ec;
    if (std::filesystem::is_regular_file(d / "circuit.zkey", ec)) return d;
  }
  return std::nullopt;
}

// One curve's demo, into `out`.
int demo_curve(const DemoArgs& demo, curves::CurveId curve, const std::string& out) {
  std::vector<std::filesystem::path> tried;
  const auto found = find_demo_dir(curve, &tried);
  if (!found) {
    std::string where;
    for (const auto& t : tried) where += (where.empty() ? "'" : ", '") + t.string() + "'";
    return fail(make_error(ErrorCode::kNotFound,
                           "demo circuit (circuit.zkey) not found in {} (install proofpipe, or "
                           "run it from a build folder inside the source tree)",
                           where.empty() ? "'?'" : where));
  }
  const std::filesystem::path dir = *found;
  RunArgs args;
  args.zkey = (dir / "circuit.zkey").string();
  if (demo.from_inputs) {  // the same partitions, from their input JSON (docs/witness-gen.md)
    args.inputs = {(dir / "inputs").string()};
    args.witness_gen = "wasm:" + (dir / "circuit_js").string();
  } else {
    args.witness_dir = dir.string();
  }
  args.out = out;
  args.workers.synth_workers = demo.synth_workers;
  args.workers.gpu_workers = demo.gpu_workers;
  args.overwrite = demo.overwrite;
  std::fprintf(stderr, "proofpipe demo: proving the bundled circuit '%s' (%s) through the full pipeline\n", dir.c_str(),
               std::string(curves::curve_name(curve)).c_str());
  RunOutcome o = run_batch(args, /*table=*/false);
  if (o.partitions == 0) return o.exit_code;

  // End to end: read every written proof back and check it with the
  // built-in verifier, as a user of the files would.
  size_t ok = 0;
  for (const auto& stem : o.stems) {
    const std::filesystem::path base = std::filesystem::path(out) / stem;
    auto pub = o.key->read_public_json(base.string() + ".public.json");
    if (!pub) continue;
    auto verdict = o.key->verify_proof_file(base.string() + ".proof.json", *pub);
    ok += verdict && verdict->valid;
  }
  uint64_t peak_sum = o.report.coordinator_peak_rss_bytes;
  for (const auto& s : o.report.seats) peak_sum += s.peak_rss_bytes;
  std::printf("proofpipe demo (%s)\n", std::string(curves::curve_name(curve)).c_str());
  std::printf("  partitions      %zu proved of %zu, %zu verified from disk (built-in verifier)\n", o.proved,
              o.partitions, ok);
  std::printf("  time            %.2f s wall, %.3f s/proof\n", o.report.wall_s,
              o.proved ? o.report.wall_s / double(o.proved) : 0.0);
  std::printf("  workers         %u synth, %u proving (backend: %s), %lu restarts\n", demo.synth_workers,
              demo.gpu_workers, seat_backends(o.report).c_str(), static_cast<unsigned long>(o.report.restarts));
  std::printf("  ring            %u slots x %s = %s\n", o.report.slots, format_size(o.report.slot_size).c_str(),
              format_size(o.report.ring_bytes).c_str());
  std::printf("  peak memory     %s (sum of per-process peak RSS)\n", format_size(peak_sum).c_str());
  std::printf("  outputs         %s/\n", out.c_str());
  if (o.exit_code == kExitOk && ok != o.proved) return kExitPartial;
  return o.exit_code;
}

}  // namespace

int cmd_run(const RunArgs& args) { return run_batch(args, /*table=*/true).exit_code; }

int cmd_demo(const DemoArgs& demo) {
  if (demo.curve == curves::Bls12_381::kName) return demo_curve(demo, curves::CurveId::kBls12_381, demo.out);
  if (demo.curve == curves::Bn254::kName) return demo_curve(demo, curves::CurveId::kBn254, demo.out);
  if (demo.curve != "both") {
    return fail(
        make_error(ErrorCode::kInvalidArgument, "demo --curve '{}': expected bls12381, bn128 or both", demo.curve));
  }
  // Both: each curve into its own folder of --out; the worse exit code wins.
  int worst = kExitOk;
  for (const curves::CurveId c : {curves::CurveId::kBls12_381, curves::CurveId::kBn254}) {
    const int rc = demo_curve(demo, c, (std::filesystem::path(demo.out) / curves::curve_name(c)).string());
    if (rc != kExitOk && (worst == kExitOk || rc == kExitError)) worst = rc;
  }
  return worst;
}

}  // namespace proofpipe::cli
