// prepare_run (batch.hpp) and the worker flags' checks and plan (plan.hpp).
#include "proofpipe/engine/batch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/own_exe.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/outputs.hpp"
#include "proofpipe/engine/plan.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/ipc/partition_layout.hpp"
#include "proofpipe/shm/layout.hpp"
#include "proofpipe/witness_gen/check.hpp"
#include "proofpipe/witness_gen/resolve.hpp"

namespace proofpipe::engine {
namespace {

Result<std::vector<std::filesystem::path>> list_witnesses(const BatchRequest& args) {
  std::vector<std::filesystem::path> paths(args.witnesses.begin(), args.witnesses.end());
  if (!args.witness_dir.empty()) {
    std::error_code ec;
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(args.witness_dir, ec)) {
      if (e.path().extension() == ".wtns") found.push_back(e.path());
    }
    if (ec) return make_error(ErrorCode::kNotFound, "--witness-dir '{}': {}", args.witness_dir, ec.message());
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  if (paths.empty())
    return make_error(ErrorCode::kInvalidArgument, "no witnesses: give --witness FILE... or --witness-dir DIR");
  return paths;
}

// Creates --out if needed (cmd_run takes it back on an exit 2), proves it
// writable with a probe file, and refuses old outputs without --overwrite
// (outputs.hpp).
Status check_out_dir(const std::filesystem::path& out, std::span<const Partition> parts, bool overwrite) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return make_error(ErrorCode::kIo, "--out '{}': cannot create: {}", out.string(), ec.message());
  std::string probe = (out / ".proofpipe-write-test-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return make_error(ErrorCode::kIo, "--out '{}' is not writable: {}", out.string(), std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return check_old_outputs(out, parts, overwrite);
}

// --gpus: comma-separated CUDA device ordinals or UUIDs (GPU-..., MIG-...),
// as CUDA_VISIBLE_DEVICES takes them; no empty or repeated entry (two
// workers on one device: --gpus 0 --gpu-workers 2). Ordinals are written
// back without leading zeros, so 0 and 00 are one device. Under a scheduler
// that already set CUDA_VISIBLE_DEVICES (`inherited`, say 4,5), ordinals
// count within that list (--gpus 1 is device 5), so the workers stay inside
// the job's allocation.
Result<std::vector<std::string>> parse_gpus(std::string_view text, std::string_view inherited) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  const std::vector<std::string_view> allowed =
      inherited.empty() ? std::vector<std::string_view>{} : split_list(inherited);
  for (std::string_view item : split_list(text)) {
    unsigned k = 0;
    const bool ordinal = parse_uint(item, &k);
    const bool uuid = (item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0) && item.size() > 4 &&
                      std::all_of(item.begin(), item.end(),
                                  [](char c) { return std::isalnum((unsigned char)c) || c == '-' || c == '/'; });
    if (!ordinal && !uuid)
      return make_error(ErrorCode::kInvalidArgument, "--gpus '{}': '{}' is not a device number or GPU-/MIG- UUID", text,
                        item);
    std::string device(item);
    if (ordinal) {
      device = std::to_string(k);
      if (!allowed.empty()) {
        if (k >= allowed.size())
          return make_error(ErrorCode::kInvalidArgument,
                            "--gpus '{}': device {} is not among the {} of CUDA_VISIBLE_DEVICES={}", text, k,
                            allowed.size(), inherited);
        device = std::string(allowed[k]);
      }
    }
    if (std::find(out.begin(), out.end(), device) != out.end())
      return make_error(ErrorCode::kInvalidArgument,
                        "--gpus '{}': device {} is listed twice (more workers per device: --gpu-workers)", text,
                        device);
    out.push_back(std::move(device));
  }
  return out;
}

// A size flag's value; the error names the flag.
Result<uint64_t> flag_size(const char* flag, const std::string& text) {
  auto bytes = parse_size(text);
  if (!bytes) return make_error(ErrorCode::kInvalidArgument, "{}: {}", flag, bytes.status().message());
  return *bytes;
}

// The counts and the timeout, before anything is read: each error names its
// flag. main.cpp's validators refuse the same values at parse time; these
// cover every other caller (demo).
Status check_counts(const WorkerFlags& args) {
  if (args.synth_workers < 1) return make_error(ErrorCode::kInvalidArgument, "--synth-workers must be at least 1");
  if (args.gpu_workers < 1) return make_error(ErrorCode::kInvalidArgument, "--gpu-workers must be at least 1");
  if (args.synth_workers + args.gpu_workers > shm::kMaxSeats) {
    return make_error(ErrorCode::kInvalidArgument, "--synth-workers {} + --gpu-workers {}: at most {} workers in all",
                      args.synth_workers, args.gpu_workers, shm::kMaxSeats);
  }
  if (args.max_attempts < 1) return make_error(ErrorCode::kInvalidArgument, "--max-attempts must be at least 1");
  if (std::string why = hang_timeout_problem(args.hang_timeout_s); !why.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "--hang-timeout: {}", why);
  }
  return Status::ok();
}

// --inputs with --witness-gen: one partition per input JSON, its witness
// generated by a synthesis worker, so only the names are checked here; the
// public signals arrive with the partition's SEALED (signals_known).
Result<std::vector<Partition>> input_partitions(const BatchRequest& args, const PipelineKey& key) {
  const uint32_t n_public = key.n_public();
  if (args.inputs.empty()) return make_error(ErrorCode::kInvalidArgument, "--witness-gen needs --inputs");
  if (args.witness_gen.empty()) {
    return make_error(ErrorCode::kInvalidArgument,
                      "--inputs needs --witness-gen wasm:<circuit_js folder or .wasm> or native:<executable>");
  }
  if (!args.witnesses.empty() || !args.witness_dir.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "give --inputs or --witness/--witness-dir, not both");
  }
  // Resuming checks old public files against the witnesses' signals, which
  // --inputs learns only by generating them.
  if (args.resume)
    return make_error(ErrorCode::kInvalidArgument, "--resume needs witnesses; it cannot go with --inputs");
  PP_ASSIGN_OR_RETURN(const std::vector<std::string> generator, witness_gen::resolve_generator(args.witness_gen));
  // The generator's curve and witness size against the key's, before any
  // worker starts: a generator of the other curve or another circuit would
  // fail every partition.
  const std::string key_what = fmt::format("zkey '{}'", args.zkey);
  PP_RETURN_IF_ERROR(witness_gen::check_generator(generator, {key.curve_name(), key.n_vars(), key_what}));
  PP_ASSIGN_OR_RETURN(const auto paths, witness_gen::list_inputs(args.inputs));
  std::vector<Partition> parts;
  std::set<std::string> stems;
  for (const auto& path : paths) {
    Partition p;
    p.index = uint32_t(parts.size());
    p.stem = path.stem().string();
    p.input = std::filesystem::absolute(path);
    p.generator = generator;
    p.public_signals.resize(n_public);
    p.signals_known = false;
    if (!stems.insert(p.stem).second) {
      return make_error(ErrorCode::kInvalidArgument, "two inputs named '{}': outputs would collide", p.stem);
    }
    parts.push_back(std::move(p));
  }
  return parts;
}

}  // namespace

uint64_t slot_size_for(const KeySizes& keys) {
  const ipc::PartitionLayout layout{keys.domain_size, keys.n_vars};
  return (layout.payload_len() + shm::kSlotAlign - 1) / shm::kSlotAlign * shm::kSlotAlign;
}

Result<uint32_t> choose_slot_count(const WorkerFlags& args, uint64_t slot_size, std::string* reason) {
  const uint32_t useful = args.synth_workers + 2 * args.gpu_workers;
  if (args.slots != 0 && !args.mem_budget.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "give --slots or --mem-budget, not both");
  }
  if (args.slots != 0) {
    if (args.slots > shm::kMaxSlots) {
      return make_error(ErrorCode::kInvalidArgument, "--slots {} is above the limit of {}", args.slots, shm::kMaxSlots);
    }
    *reason = fmt::format("--slots {}", args.slots);
    return args.slots;
  }
  if (!args.mem_budget.empty()) {
    PP_ASSIGN_OR_RETURN(const uint64_t budget, flag_size("--mem-budget", args.mem_budget));
    const uint64_t fit = budget / slot_size;
    if (fit == 0) {
      return make_error(ErrorCode::kInvalidArgument, "--mem-budget {} is too small for one slot of {}",
                        format_size(budget), format_size(slot_size));
    }
    const uint32_t k = uint32_t(std::min<uint64_t>(fit, useful));
    *reason = fmt::format("--mem-budget {} holds {}, using {}", format_size(budget), fit, k);
    return k;
  }
  *reason = "default: synth + proving workers";
  return args.synth_workers + args.gpu_workers;
}

std::string hang_timeout_problem(double seconds) {
  if (std::isfinite(seconds) && seconds >= kMinHangTimeoutS && seconds <= kMaxHangTimeoutS) return {};
  return fmt::format("{} is not a number of seconds from {} to {} (one week)", seconds, kMinHangTimeoutS,
                     kMaxHangTimeoutS);
}

Result<uint64_t> parse_witness_gen_timeout_ms(std::string_view text) {
  const std::optional<double> s = parse_duration_s(text);
  if (!s || !(*s >= 1 && *s <= kMaxHangTimeoutS)) {
    return make_error(ErrorCode::kInvalidArgument,
                      "--witness-gen-timeout '{}': expected a duration such as 90s or 10m, from 1s to 168h", text);
  }
  return uint64_t(std::llround(*s * 1000));
}

Result<WorkerSetup> check_worker_flags(const WorkerFlags& given) {
  PP_RETURN_IF_ERROR(parse_witness_gen_timeout_ms(given.witness_gen_timeout).status());
  const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
  WorkerSetup f;
  PP_ASSIGN_OR_RETURN(f.gpus, parse_gpus(given.gpus, inherited != nullptr ? inherited : ""));
  WorkerFlags& args = f.given;
  args = given;
  if (args.gpu_workers == kGpuWorkersAuto) args.gpu_workers = std::max<unsigned>(1, unsigned(f.gpus.size()));
  PP_RETURN_IF_ERROR(check_counts(args));
  PP_ASSIGN_OR_RETURN(auto kind, groth16::parse_backend_kind(args.backend));
  // Named devices mean the GPU is wanted: a worker whose device is missing
  // fails its set-up (and says which device) instead of proving on the CPU.
  if (!f.gpus.empty()) {
    if (kind == groth16::BackendKind::kCpu)
      return make_error(ErrorCode::kInvalidArgument, "--gpus names CUDA devices; it cannot go with --backend cpu");
    args.backend = "cuda";
    if (args.gpu_workers < f.gpus.size()) {
      std::fprintf(stderr,
                   "proofpipe: warning: --gpus lists %zu devices for %u proving workers: the last %zu stay idle\n",
                   f.gpus.size(), args.gpu_workers, f.gpus.size() - args.gpu_workers);
    }
  }
  return f;
}

Result<PipelineConfig> pipeline_config(const WorkerSetup& f, const KeySizes& keys) {
  const WorkerFlags& args = f.given;
  PipelineConfig cfg;
  cfg.bin_dir = proofpipe::own_bin_dir().value_or(".");
  cfg.synth_workers = args.synth_workers;
  cfg.gpu_workers = args.gpu_workers;
  cfg.backend = args.backend;
  cfg.gpus = f.gpus;
  cfg.hang_timeout_s = args.hang_timeout_s;
  PP_ASSIGN_OR_RETURN(cfg.generate_timeout_ms, parse_witness_gen_timeout_ms(args.witness_gen_timeout));
  cfg.sample_ms = args.sample_ms;
  if (!args.mem_budget.empty()) {
    PP_ASSIGN_OR_RETURN(cfg.mem_budget, flag_size("--mem-budget", args.mem_budget));
  }
  for (auto [flag, text, dest] : {std::tuple{"--synth-mem-max", &args.synth_mem_max, &cfg.synth_mem_max},
                                  std::tuple{"--gpu-mem-max", &args.gpu_mem_max, &cfg.gpu_mem_max},
                                  std::tuple{"--mem-max", &args.mem_max, &cfg.mem_max}}) {
    if (text->empty()) continue;
    PP_ASSIGN_OR_RETURN(const uint64_t bytes, flag_size(flag, *text));
    // 0 would read as "no cap" (PipelineConfig): a cap of nothing is a mistake, not a request.
    if (bytes == 0)
      return make_error(ErrorCode::kInvalidArgument, "{} {}: a memory cap must be more than 0 bytes", flag, *text);
    *dest = bytes;
  }
  cfg.slot_size = slot_size_for(keys);
  if (cfg.mem_max == 0) {
    PP_ASSIGN_OR_RETURN(cfg.slots, choose_slot_count(args, cfg.slot_size, &cfg.slots_reason));
  } else {
    // --mem-max derives K and the caps (plan.hpp); --slots/--mem-budget
    // and the per-worker caps, where given, win if they fit inside it.
    uint32_t explicit_slots = 0;
    if (args.slots != 0 || !args.mem_budget.empty()) {
      PP_ASSIGN_OR_RETURN(explicit_slots, choose_slot_count(args, cfg.slot_size, &cfg.slots_reason));
    }
    PP_RETURN_IF_ERROR(apply_mem_max(cfg.mem_max, keys, explicit_slots, cfg.slots_reason, cfg));
  }
  return cfg;
}

Status check_backend_curve(groth16::BackendKind kind, curves::CurveId curve, const std::filesystem::path& zkey) {
  if (kind != groth16::BackendKind::kCuda || curve == curves::CurveId::kBls12_381) return Status::ok();
  return make_error(ErrorCode::kInvalidArgument,
                    "--backend cuda: zkey '{}' is a {} key and the CUDA backend proves bls12381 keys only; "
                    "{} keys are proved on the CPU (--backend cpu or auto)",
                    zkey.string(), curves::curve_name(curve), curves::curve_name(curve));
}

Result<PreparedRun> prepare_run(const BatchRequest& args) {
  PP_ASSIGN_OR_RETURN(const WorkerSetup flags, check_worker_flags(args.workers));
  // Header, IC and a check of every coefficient, whose pages are released as
  // they are checked: the coordinator never reads them again.
  PreparedRun run;
  PP_ASSIGN_OR_RETURN(run.key, load_pipeline_key(args.zkey));
  const PipelineKey& key = *run.key;
  PP_ASSIGN_OR_RETURN(const groth16::BackendKind kind, groth16::parse_backend_kind(flags.given.backend));
  PP_RETURN_IF_ERROR(check_backend_curve(kind, key.curve(), args.zkey));
  std::set<std::string> stems;
  if (!args.inputs.empty() || !args.witness_gen.empty()) {
    PP_ASSIGN_OR_RETURN(run.partitions, input_partitions(args, key));
    for (const Partition& p : run.partitions) stems.insert(p.stem);
  }
  std::vector<std::filesystem::path> paths;
  if (run.partitions.empty()) {
    PP_ASSIGN_OR_RETURN(paths, list_witnesses(args));
  }
  for (const auto& path : paths) {
    // Every value is checked here, so a bad witness stops the run before any
    // output exists; workers read the file again straight into their slot.
    // Only the public signals are kept.
    Partition p;
    p.public_signals.resize(key.n_public());
    PP_RETURN_IF_ERROR(key.check_witness(path, p.public_signals));
    p.index = uint32_t(run.partitions.size());
    p.stem = path.stem().string();
    p.wtns = std::filesystem::absolute(path);
    if (!stems.insert(p.stem).second) {
      return make_error(ErrorCode::kInvalidArgument, "two witnesses named '{}': outputs would collide", p.stem);
    }
    run.partitions.push_back(std::move(p));
  }
  if (args.out.empty()) return make_error(ErrorCode::kInvalidArgument, "--out is required");
  PP_RETURN_IF_ERROR(check_out_dir(args.out, run.partitions, args.overwrite || args.resume));
  if (!args.metrics.empty()) PP_RETURN_IF_ERROR(check_output_target(args.metrics, "--metrics"));

  PP_ASSIGN_OR_RETURN(run.config, pipeline_config(flags, key.sizes()));
  run.config.run_dir = args.run_dir;
  run.config.keys = {std::filesystem::absolute(args.zkey)};
  run.config.out = args.out;
  run.config.metrics = args.metrics;
  return run;
}

}  // namespace proofpipe::engine
