// pp_device_bench: the GPU figures, in one run, each next
// to a CPU reference measured in the same run on the same machine
// (docs/design/overview.md §9: ratios, never absolute times from another day).
//   field   device Fr/Fq multiplications per second (PTX and portable paths)
//   ntt     forward NTT 2^20..2^24 and the H step (6 NTTs + product) 2^20..2^24
//   msm     G1 2^20..2^24, G2 2^20, random scalars; G1 at the largest size
//           with witness-like scalars (kBits: 50% 0, 40% +-1, 10% random);
//           the phases of G1 at the largest size (both mixes) and of G2 at
//           2^20 (split, digits, sort, runs, accumulate, reduce, combine);
//           a sweep of the plan (c, L) for G1 at the largest size; the
//           device memory the context kept after them (local memory)
//   cpu     the CPU backend's H step and G1 MSM at 2^20 (all host threads)
// Device times are kernel time with the data resident (cudaEvents, median of
// --reps); the CPU times are wall time, median of --reps.
// Output: one JSON object per line on --json (default stdout), then a table.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../bench_data.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/cuda/field_ops.hpp"
#include "proofpipe/cuda/msm.hpp"
#include "proofpipe/cuda/ntt.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace {

using namespace proofpipe;  // NOLINT: benchmark file

struct Row {
  std::string what;
  unsigned log_n = 0;
  double value = 0;  // ms, or Gmul/s for the field rows
  std::string unit;
  std::string note;
};

double median_ms(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"proofpipe device benchmarks (needs a CUDA device)"};
  int reps = 5;
  unsigned max_log = 24;
  std::string json_path;
  app.add_option("--reps", reps, "timed repetitions per figure (median)")->check(CLI::Range(1, 100));
  app.add_option("--max-log", max_log, "largest NTT/MSM size 2^k")->check(CLI::Range(16, 26));
  app.add_option("--json", json_path, "write the JSON lines here instead of stdout");
  CLI11_PARSE(app, argc, argv);

  auto info = cuda::device_info();
  if (!info) {
    std::fprintf(stderr, "pp_device_bench: %s\n", info.status().message().c_str());
    return 2;
  }
  std::FILE* json = json_path.empty() ? stdout : std::fopen(json_path.c_str(), "w");
  if (json == nullptr) {
    std::perror(json_path.c_str());
    return 2;
  }
  std::vector<Row> rows;
  int failures = 0;
  auto record = [&](Row row) {
    std::fprintf(json, "{\"what\":\"%s\",\"log_n\":%u,\"value\":%.4f,\"unit\":\"%s\",\"device\":\"%s\"}\n",
                 row.what.c_str(), row.log_n, row.value, row.unit.c_str(), info->name.c_str());
    std::fflush(json);
    rows.push_back(std::move(row));
  };
  auto device_row = [&](const std::string& what, unsigned log_n, Result<double> ms) {
    if (!ms) {
      std::fprintf(stderr, "%s 2^%u: %s\n", what.c_str(), log_n, ms.status().message().c_str());
      ++failures;
      return;
    }
    record({what, log_n, *ms, "ms", ""});
  };

  for (auto kind : {cuda::FieldKind::kFr, cuda::FieldKind::kFq}) {
    for (bool portable : {false, true}) {
      auto rate = cuda::time_mul_rate(kind, portable ? cuda::MulPath::kPortable : cuda::MulPath::kPtx);
      const std::string what =
          std::string(kind == cuda::FieldKind::kFr ? "fr" : "fq") + "_mul" + (portable ? "_portable" : "_ptx");
      if (!rate) {
        std::fprintf(stderr, "%s: %s\n", what.c_str(), rate.status().message().c_str());
        ++failures;
        continue;
      }
      record({what, 0, *rate / 1e9, "Gmul/s", ""});
    }
  }
  for (unsigned k = 20; k <= max_log; k += 2)
    device_row("ntt_forward", k, cuda::time_ntt_ms(k, cuda::NttOp::kForward, reps));
  for (unsigned k = 20; k <= max_log; k += 2) device_row("h_step", k, cuda::time_compute_h_ms(k, reps));
  // What the context holds before the MSMs (the NTT tables stay cached
  // for the process; each MSM bench frees its own buffers).
  const Result<size_t> in_use_before = cuda::device_memory_in_use();
  for (unsigned k = 20; k <= max_log; k += 2) device_row("msm_g1", k, cuda::time_msm_g1_ms(k, reps));
  // A witness is mostly bits and flags; the MSM's split drops the zeros and
  // sorts one pair per +-1 (cuda/include/proofpipe/cuda/msm_kernels.hpp).
  // The share in real PoRep witnesses is unpublished (docs/design/numbers.md §1).
  const cuda::ScalarMix kBits{50, 40};
  device_row("msm_g1_bits", max_log, cuda::time_msm_g1_ms(max_log, reps, kBits));
  device_row("msm_g2", 20, cuda::time_msm_g2_ms(20, reps));
  // Where the MSM's time goes (one run after a warm-up): the largest G1 with
  // both mixes and the G2 size, each phase also a JSON line
  // ("msm_g1_phase_sort", ...).
  std::vector<std::string> phase_lines;
  struct Profiled {
    const char* what;
    unsigned k;
    cuda::ScalarMix mix;
  };
  const Profiled profiled[] = {{"msm_g1", max_log, {}}, {"msm_g1_bits", max_log, kBits}, {"msm_g2", 20, {}}};
  for (const auto& [what, k, mix] : profiled) {
    auto ph = std::string(what) == "msm_g2" ? cuda::msm_phases_g2(k, mix) : cuda::msm_phases_g1(k, mix);
    if (!ph) {  // a diagnostic: said, but it does not fail the figures above
      phase_lines.push_back(fmt::format("{} 2^{} phases: not measured ({})", what, k, ph.status().message()));
      continue;
    }
    const std::pair<const char*, double> parts[] = {
        {"split", ph->split},           {"digits", ph->digits}, {"sort", ph->sort},      {"runs", ph->runs},
        {"accumulate", ph->accumulate}, {"reduce", ph->reduce}, {"combine", ph->combine}};
    std::string line = fmt::format("{} 2^{} phases (ms; {} windowed, {} +-1; c = {}, {} groups, {} levels):", what, k,
                                   ph->others, ph->ones, ph->window_bits, ph->groups, ph->levels);
    for (const auto& [name, ms] : parts) {
      std::fprintf(json, "{\"what\":\"%s_phase_%s\",\"log_n\":%u,\"value\":%.4f,\"unit\":\"ms\",\"device\":\"%s\"}\n",
                   what, name, k, ms, info->name.c_str());
      line += fmt::format(" {} {:.2f}", name, ms);
    }
    phase_lines.push_back(std::move(line));
  }

  // Device memory the context kept after the MSMs freed their buffers: the
  // local memory the driver reserves for the spilling G2 kernels (the
  // largest frame, 1,912 bytes, for every resident thread: ~0.5 GB on an
  // H200, docs/gpu.md), and the loaded modules. Not in a backend's
  // device_bytes(), so measured here.
  if (const Result<size_t> after = cuda::device_memory_in_use(); in_use_before && after) {
    const double mib = (double(*after) - double(*in_use_before)) / double(1u << 20);
    std::fprintf(json, "{\"what\":\"context_kept\",\"log_n\":0,\"value\":%.1f,\"unit\":\"MiB\",\"device\":\"%s\"}\n",
                 mib, info->name.c_str());
    phase_lines.push_back(fmt::format("device memory the context kept after the MSM benches: {:.0f} MiB", mib));
  }

  // CPU references at 2^20, same run, same inputs' sizes.
  {
    const size_t n = size_t(1) << 20;
    auto a = bench::make_scalars(n, 1), b = bench::make_scalars(n, 2), c = bench::make_scalars(n, 3);
    ntt::DomainT<bls12_381::Fr>::get(20);
    record({"cpu_h_step", 20, median_ms(reps, [&] { ntt::compute_h_odd_coset<bls12_381::Fr>(a, b, c); }), "ms",
            fmt::format("{} threads", worker_count())});
    auto pts = bench::make_points<bls12_381::G1Cfg>(n, bls12_381::g1_generator(), 4);
    record({"cpu_msm_g1", 20, median_ms(reps, [&] { (void)msm::msm_g1(pts, a); }), "ms",
            fmt::format("{} threads", worker_count())});
  }

  auto find = [&](const std::string& what, unsigned k) -> const Row* {
    for (const Row& r : rows)
      if (r.what == what && r.log_n == k) return &r;
    return nullptr;
  };
  std::printf("\n%s (sm_%d%d, %d SMs, %.0f GiB)\n", info->name.c_str(), info->sm_major, info->sm_minor,
              info->multiprocessors, double(info->global_memory) / double(1u << 30));
  std::printf("%-16s %6s %12s %8s  %s\n", "figure", "size", "value", "unit", "vs CPU at 2^20 (same run)");
  for (const Row& r : rows) {
    std::string ratio;
    if (r.log_n == 20 && (r.what == "h_step" || r.what == "msm_g1")) {
      if (const Row* cpu = find("cpu_" + r.what, 20)) ratio = fmt::format("{:.1f}x faster", cpu->value / r.value);
    }
    const std::string size = r.log_n ? fmt::format("2^{}", r.log_n) : "-";
    std::printf("%-16s %6s %12.3f %8s  %s%s\n", r.what.c_str(), size.c_str(), r.value, r.unit.c_str(), ratio.c_str(),
                r.note.c_str());
  }
  for (const std::string& line : phase_lines) std::printf("%s\n", line.c_str());
  std::printf("anchors: G1 MSM 2^24 ZPrize'23 109 ms, H200 floor ~83 ms, first-version aim < 150 ms\n");
  std::fflush(stdout);

  // The plan's defaults (c = 18, L = 64 at 2^24) are a cost model's, not a
  // device's: one sweep of c and L at the largest size, so the first lent
  // device's figures can set them (JSON "msm_g1_plan_c18_L64", ...). Last,
  // after the table: a slow sweep cut by the caller's timeout loses only itself.
  {
    std::vector<cuda::MsmTuning> plans;
    for (unsigned c : {16u, 18u, 20u})
      for (unsigned l : {32u, 64u, 128u}) plans.push_back({c, l, 0});
    plans.push_back({17, 64, 0});
    plans.push_back({19, 64, 0});
    std::string line = fmt::format("msm_g1 2^{} plan sweep (ms, random scalars):", max_log);
    auto swept = cuda::sweep_msm_g1_ms(max_log, 3, plans);
    if (!swept) {
      line += fmt::format(" not measured ({})", swept.status().message());
    } else {
      for (size_t i = 0; i < plans.size(); ++i) {
        const Result<double>& ms = (*swept)[i];
        const std::string name = fmt::format("c{}_L{}", plans[i].window_bits, plans[i].task_len);
        if (!ms) {
          line += fmt::format(" {} failed ({});", name, ms.status().message());
          continue;
        }
        std::fprintf(json,
                     "{\"what\":\"msm_g1_plan_%s\",\"log_n\":%u,\"value\":%.4f,\"unit\":\"ms\",\"device\":\"%s\"}\n",
                     name.c_str(), max_log, *ms, info->name.c_str());
        std::fflush(json);
        line += fmt::format(" {} {:.1f}", name, *ms);
      }
    }
    std::printf("%s\n", line.c_str());
  }

  if (json != stdout) std::fclose(json);
  return failures == 0 ? 0 : 1;
}
