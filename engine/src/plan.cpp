// The memory plan for --mem-max (plan.hpp) and the model it is made from.
//
// The model was measured, not guessed: `proofpipe gen` workloads of 2^14,
// 2^16 and 2^18 constraints (domains 2^15, 2^17, 2^19; slots of 3.43, 13.70
// and 54.81 MiB), 4 partitions each, 2 synthesis workers and 1 proving
// worker on the CPU backend, PROOFPIPE_THREADS = 1, 2, 4, 8, on the 2-core
// cgroup v1 build machine. Figures are the workers' leaf cgroup
// peaks in summary.json (seats[].cgroup_peak_bytes), in MiB, with the key
// and witness files already in the page cache (charged elsewhere), so they
// are each process's private memory:
//
//                     threads:    1       2       4       8
//   synthesis   2^14             1.54    1.75    1.82    2.00
//               2^16             3.00    3.04    3.04    3.26
//               2^18             8.28    8.25    8.44    8.47
//   proving     2^14            15.84   18.16   22.37   20.59
//               2^16            36.85   42.06   43.15   67.13
//               2^18           140.98  148.22  160.20  191.68
//
// With the files evicted first (posix_fadvise DONTNEED), the proving
// worker's peak at 2^18 rose from 152 to 256 MiB: the key's point pages it
// read first were charged to it. The key's pages are therefore counted too,
// once in the total and in the cap of each role that maps them.
//
// The coordinator's figures (its leaf's peak less the ring it allocates):
// see kCoordinatorBase.
#include "proofpipe/engine/plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/shm/layout.hpp"

namespace proofpipe::engine {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

// Synthesis worker: ~1.5 MiB of its own, the standard-form copy of the
// witness synthesize() makes (32 B per variable: 6.8 MiB of the 8.3 at
// 2^18), the witness file's pages when it reads them first (32 B per
// variable again), and 64 KiB per thread (2^14: 1.54 MiB on 1 thread, 2.00
// on 8). Fits every row above from below: 2^18 on 8 threads, 15.6 against
// 8.47 measured (the witness pages were cached there).
constexpr uint64_t kSynthBase = 3 * kMiB / 2;
constexpr uint64_t kSynthPerVar = 64;
constexpr uint64_t kSynthPerThread = 64 * kKiB;

// Proving worker (CPU backend, copy intake): 8 MiB of its own, one slot's
// record (the copy intake's a, b, c, w), 160 B per domain element for the
// H step (its coset NTT buffers, twiddles, the h scalars: T=1 less the
// record is 12.4, 23.2 and 86.2 MiB at 2^15, 2^17, 2^19), and per thread
// its MSM buckets, 40 B per domain element between 1 and 24 MiB (the widest
// window, 2^17 buckets, is 24 MB of G2 buckets; measured 0.7, 4.3 and 7.2
// MiB per thread at 2^15, 2^17, 2^19). Fits every row above from below:
// 2^18 on 8 threads, 302.8 against 191.68 measured. The CUDA backend (take
// intake) keeps no record copy but holds a CUDA context on the host; it was
// not measured here (no device on the build machine).
constexpr uint64_t kGpuBase = 8 * kMiB;
// Plus the MSM terms: the CPU backend runs C, H and r * B1 as one MSM
// (groth16/src/backend_cpu.cpp), 40 B of terms per scalar for ~3 domain
// elements' worth of scalars and 32 B per wire of r * w: 152 B per domain
// element, added after the rows above were measured (their gen witnesses,
// mostly 0 and 1, had few terms; a witness of random values has all).
constexpr uint64_t kGpuPerDomain = 160 + 152;
constexpr uint64_t kGpuMsmPerDomain = 40;
constexpr uint64_t kGpuMsmMin = 1 * kMiB, kGpuMsmMax = 24 * kMiB;

// The coordinator: inside the parent it is charged the ring and what it
// allocates after it joins (ZeroMQ, the ledger, the sampler, proof checks):
// its leaf's peak less the ring was 1.04, 1.39 and 1.46 MiB on the 2^14,
// 2^16 and 2^18 runs (--mem-max 2G). What it allocated before it joined
// (checking the key and the witnesses) stays charged where it was; its whole
// peak RSS was 11.4 to 17.8 MiB. The allowance is that whole peak with the
// margin (22.3 MiB), rounded up, so it also holds for a coordinator that
// joins before it reads anything.
constexpr uint64_t kCoordinatorBase = 24 * kMiB;

// Every figure gets 25 % on top: allocator slack and circuit shapes the
// synthetic workloads do not have.
uint64_t with_margin(uint64_t bytes) { return bytes + bytes / 4; }

uint64_t round_up_mib(uint64_t bytes) { return (bytes + kMiB - 1) / kMiB * kMiB; }
uint64_t round_down_mib(uint64_t bytes) { return bytes / kMiB * kMiB; }

std::string plural(uint64_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

template <class C>
KeySizes key_sizes_of(const formats::ZkeyT<C>& zkey) {
  const formats::ZkeyHeaderT<C>& h = zkey.header();
  constexpr uint64_t g1 = 2 * formats::ZkeyHeaderT<C>::kN8q, g2 = 4 * formats::ZkeyHeaderT<C>::kN8q;
  KeySizes k;
  k.domain_size = h.domain_size;
  k.n_vars = h.n_vars;
  k.coef_bytes = uint64_t(zkey.coefs().size()) * sizeof(formats::ZkeyCoefT<C>);
  // A, B1: n_vars each; C: the private wires; H: domain_size (G1); B2: n_vars (G2).
  const uint64_t c_points = uint64_t(h.n_vars) - h.n_public - 1;
  k.point_bytes = g1 * (2 * uint64_t(h.n_vars) + c_points + h.domain_size) + g2 * uint64_t(h.n_vars);
  return k;
}
template KeySizes key_sizes_of(const formats::ZkeyT<curves::Bls12_381>& zkey);
template KeySizes key_sizes_of(const formats::ZkeyT<curves::Bn254>& zkey);

KeySizes merge_key_sizes(const KeySizes& a, const KeySizes& b) {
  return {std::max(a.domain_size, b.domain_size), std::max(a.n_vars, b.n_vars), a.coef_bytes + b.coef_bytes,
          a.point_bytes + b.point_bytes};
}

uint64_t coordinator_need(const MemPlanInputs& in) { return round_up_mib(kCoordinatorBase + in.coordinator_extra); }

uint64_t synth_private_need(const MemPlanInputs& in) {
  return round_up_mib(
      with_margin(kSynthBase + kSynthPerVar * in.key.n_vars + kSynthPerThread * std::max(1u, in.threads)));
}

uint64_t gpu_private_need(const MemPlanInputs& in) {
  const uint64_t msm = std::clamp<uint64_t>(kGpuMsmPerDomain * in.key.domain_size, kGpuMsmMin, kGpuMsmMax);
  return round_up_mib(
      with_margin(kGpuBase + in.slot_size + kGpuPerDomain * in.key.domain_size + msm * std::max(1u, in.threads)));
}

Result<MemPlan> make_mem_plan(uint64_t total, const MemPlanInputs& in) {
  PP_ASSERT(in.slot_size > 0 && in.synth_workers > 0 && in.gpu_workers > 0, "mem plan without a ring or workers");
  const uint64_t S = in.synth_workers, G = in.gpu_workers;
  MemPlan plan;
  plan.total = total;
  plan.slot_size = in.slot_size;
  plan.synth_workers = in.synth_workers;
  plan.gpu_workers = in.gpu_workers;
  plan.coordinator = coordinator_need(in);
  const uint64_t synth_priv = synth_private_need(in), gpu_priv = gpu_private_need(in);
  // An explicit cap stands for all of that role's memory, its key pages too.
  const uint64_t synth_min = in.synth_cap ? in.synth_cap : synth_priv;
  const uint64_t gpu_min = in.gpu_cap ? in.gpu_cap : gpu_priv;
  const uint64_t coef_pages = round_up_mib(in.key.coef_bytes), point_pages = round_up_mib(in.key.point_bytes);
  plan.key_pages = (in.synth_cap ? 0 : coef_pages) + (in.gpu_cap ? 0 : point_pages);
  // Sizes come from flags and keys, so the sums are checked against overflow
  // by doing them in long double first (2^64 bytes is far beyond any TOTAL).
  const long double base_ld = (long double)plan.coordinator + (long double)plan.key_pages +
                              (long double)S * (long double)synth_min + (long double)G * (long double)gpu_min;
  const uint32_t k_min = in.slots ? in.slots : 1;
  const long double need_ld = base_ld + (long double)k_min * (long double)in.slot_size;
  if (need_ld > (long double)total) {
    const uint64_t need = need_ld >= 18446744073709551615.0L ? UINT64_MAX : uint64_t(need_ld);
    const auto role = [](uint64_t bytes, uint64_t n, const char* flag, bool given) {
      return fmt::format("{} x{}{}", format_size(bytes), n, given ? fmt::format(" ({})", flag) : "");
    };
    return make_error(ErrorCode::kInvalidArgument,
                      "--mem-max {} cannot hold the coordinator, {}{} and {} + {}: needs at least {} "
                      "(coordinator ~{}, {} of {}, key pages {}, synth {}, gpu {})",
                      format_size(total), plural(k_min, "slot"), in.slots ? " (" + in.slots_reason + ")" : "",
                      plural(S, "synth worker"), plural(G, "proving worker"), format_size(need),
                      format_size(plan.coordinator), plural(k_min, "slot"), format_size(in.slot_size),
                      format_size(plan.key_pages), role(synth_min, S, "--synth-mem-max", in.synth_cap != 0),
                      role(gpu_min, G, "--gpu-mem-max", in.gpu_cap != 0));
  }
  const uint64_t base = uint64_t(base_ld);
  if (in.slots) {
    plan.slots = in.slots;
    plan.slots_reason = in.slots_reason;
  } else {
    // As many slots as fit, up to synth + 2 x gpu workers: more never helps
    // (plan.hpp, choose_slot_count).
    const uint64_t useful = std::min<uint64_t>(S + 2 * G, shm::kMaxSlots);
    const uint64_t fit = (total - base) / in.slot_size;
    plan.slots = uint32_t(std::min(fit, useful));
    plan.slots_reason = fmt::format("--mem-max {} holds {}, using {}", format_size(total), fit, plan.slots);
  }
  // What is left goes to the derived caps, in proportion to private needs.
  const uint64_t left = total - base - uint64_t(plan.slots) * in.slot_size;
  const long double weights =
      (in.synth_cap ? 0.0L : (long double)S * synth_priv) + (in.gpu_cap ? 0.0L : (long double)G * gpu_priv);
  const auto share = [&](uint64_t priv) {
    return weights > 0 ? round_down_mib(uint64_t((long double)left * (long double)priv / weights)) : 0;
  };
  plan.synth_cap = in.synth_cap ? in.synth_cap : synth_priv + coef_pages + share(synth_priv);
  plan.gpu_cap = in.gpu_cap ? in.gpu_cap : gpu_priv + point_pages + share(gpu_priv);
  return plan;
}

std::string describe_mem_plan(const MemPlan& p) {
  return fmt::format("--mem-max {}: K={} of {}, synth cap {} x{}, gpu cap {} x{}, coordinator ~{}, key pages {}",
                     format_size(p.total), plural(p.slots, "slot"), format_size(p.slot_size), format_size(p.synth_cap),
                     p.synth_workers, format_size(p.gpu_cap), p.gpu_workers, format_size(p.coordinator),
                     format_size(p.key_pages));
}

MemPlanInputs mem_plan_inputs(const PipelineConfig& cfg, const KeySizes& key, uint32_t explicit_slots,
                              const std::string& slots_reason) {
  MemPlanInputs in;
  in.slot_size = cfg.slot_size;
  in.key = key;
  in.synth_workers = cfg.synth_workers;
  in.gpu_workers = cfg.gpu_workers;
  in.threads = worker_count();  // the workers' own count: same environment, same CPUs
  in.slots = explicit_slots;
  in.slots_reason = slots_reason;
  in.synth_cap = cfg.synth_mem_max;
  in.gpu_cap = cfg.gpu_mem_max;
  return in;
}

void apply_mem_plan(const MemPlan& plan, PipelineConfig& cfg) {
  cfg.slots = plan.slots;
  cfg.slots_reason = plan.slots_reason;
  cfg.synth_mem_max = plan.synth_cap;
  cfg.gpu_mem_max = plan.gpu_cap;
  cfg.mem_max = plan.total;
  cfg.mem_plan = describe_mem_plan(plan);
}

Status apply_mem_max(uint64_t total, const KeySizes& key, uint32_t explicit_slots, const std::string& slots_reason,
                     PipelineConfig& cfg) {
  PP_ASSIGN_OR_RETURN(const MemPlan plan,
                      make_mem_plan(total, mem_plan_inputs(cfg, key, explicit_slots, slots_reason)));
  apply_mem_plan(plan, cfg);
  return Status::ok();
}

}  // namespace proofpipe::engine
