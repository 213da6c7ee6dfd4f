// Output files of a run (outputs.hpp).
#include "proofpipe/engine/outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "procfs.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/engine/timings.hpp"

namespace proofpipe::engine {
namespace fs = std::filesystem;
namespace {

Status write_json_atomically(const fs::path& file, const nlohmann::json& j, std::string_view what) {
  return write_file_replace(file, j.dump(2) + "\n", what);
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Every name in --out this run writes: each partition's pair, summary.json.
std::vector<fs::path> names_written(const fs::path& out, std::span<const Partition> parts) {
  std::vector<fs::path> names;
  for (const auto& p : parts) {
    names.push_back(out / (p.stem + ".proof.json"));
    names.push_back(out / (p.stem + ".public.json"));
  }
  names.push_back(out / "summary.json");
  return names;
}

}  // namespace

Status check_old_outputs(const fs::path& out, std::span<const Partition> parts, bool overwrite) {
  if (overwrite) {
    for (const auto& name : names_written(out, parts)) PP_RETURN_IF_ERROR(check_output_target(name, "--out"));
    return Status::ok();
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "summary.json" || ends_with(name, ".proof.json") || ends_with(name, ".public.json")) {
      return make_error(ErrorCode::kInvalidArgument,
                        "--out '{}' already holds proofpipe outputs ({}): give --overwrite to replace them, or "
                        "another --out",
                        out.string(), name);
    }
  }
  if (ec) return make_error(ErrorCode::kIo, "--out '{}': {}", out.string(), ec.message());
  return Status::ok();
}

Status remove_old_outputs(const fs::path& out, std::span<const Partition> parts) {
  for (const auto& name : names_written(out, parts)) {
    // Only what check_old_outputs let through: a regular file or a link.
    PP_RETURN_IF_ERROR(check_output_target(name, "--out"));
    if (::unlink(name.c_str()) != 0 && errno != ENOENT) {
      return make_error(ErrorCode::kIo, "--overwrite: cannot remove '{}': {}", name.string(), std::strerror(errno));
    }
  }
  return Status::ok();
}

CreatedDirs::CreatedDirs(const fs::path& out) : out_(fs::absolute(out).lexically_normal()) {
  if (out_.filename().empty()) out_ = out_.parent_path();  // "out/" names out
  std::error_code ec;
  for (fs::path p = out_; !p.empty() && p != p.root_path() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    first_new_ = p;
  }
}

void CreatedDirs::undo() const {
  if (first_new_.empty()) return;
  std::error_code ec;
  for (fs::path p = out_;; p = p.parent_path()) {
    // fs::remove takes a folder only while it is empty.
    if (!fs::remove(p, ec) || p == first_new_) return;
  }
}

Status write_partition_outputs(const PipelineKey& key, const fs::path& out, const std::string& stem,
                               std::string_view proof, std::span<const FrWords> public_signals) {
  return key.write_outputs(out / (stem + ".proof.json"), out / (stem + ".public.json"), proof, public_signals);
}

Status write_run_info(const std::filesystem::path& file, pid_t pid, const std::string& ring_prefix,
                      const std::string& endpoint, const shm::Ring& ring, const std::filesystem::path& out) {
  // pid_start_ticks tells this coordinator from a later process given the
  // same pid, so a stale run is recognised (run_dir.hpp).
  nlohmann::json j = {{"pid", pid},
                      {"pid_start_ticks", read_proc_start_ticks(pid).value_or(0)},
                      {"ring", ring_prefix},
                      {"endpoint", endpoint},
                      {"slots", ring.slot_count()},
                      {"slot_bytes", ring.slot_size()},
                      {"seats", ring.seat_count()},
                      {"out", out.string()}};
  return write_json_atomically(file, j, "run info");
}

Status write_summary(const std::filesystem::path& file, const Ledger& ledger, const RunReport& r,
                     const PipelineConfig& cfg, const nlohmann::json& extra) {
  nlohmann::json failed = nlohmann::json::array();
  nlohmann::json retried = nlohmann::json::array();
  nlohmann::json interrupted = nlohmann::json::array();  // stopped by a signal: not failed, not reached
  for (const auto& p : ledger.all()) {
    if (was_interrupted(p)) {
      interrupted.push_back(p.stem);
      continue;
    }
    if (p.state == PartState::kFailed)
      failed.push_back({{"partition", p.stem}, {"attempts", p.attempt}, {"causes", p.causes}});
    if (p.state == PartState::kDone && !p.causes.empty()) {
      retried.push_back({{"partition", p.stem}, {"attempts", p.attempt}, {"causes", p.causes}});
    }
  }
  nlohmann::json per_partition = nlohmann::json::array();
  for (const auto& p : ledger.all()) {
    // wait_s, synth_s, prove_s (prover_wait_s + prover_s), total_s, stages: timings.hpp.
    nlohmann::json row = {{"partition", p.stem},
                          {"state", was_interrupted(p) ? "interrupted" : part_state_name(p.state)},
                          {"attempts", p.attempt}};
    row.update(times_json(p, r.wall_s));
    row["done_at_s"] = p.done_s;
    per_partition.push_back(std::move(row));
  }
  nlohmann::json seats = nlohmann::json::array();
  uint64_t peak_sum = r.coordinator_peak_rss_bytes;
  for (const auto& s : r.seats) {
    seats.push_back({{"worker", fmt::format("{}.{}", ipc::role_name(s.role), s.seat)},
                     {"incarnations", s.incarnations},
                     {"peak_rss_bytes", s.peak_rss_bytes},
                     {"cgroup_peak_bytes", s.cgroup_peak_bytes},
                     {"oom_kills", s.oom_kills},
                     {"deaths", s.deaths}});
    if (s.role == ipc::Role::kProver) {
      seats.back()["backend"] = s.backend;
      seats.back()["devices"] = s.devices;
      seats.back()["intake"] = s.intake;
    }
    peak_sum += s.peak_rss_bytes;
  }
  const size_t proved = ledger.count(PartState::kDone);
  nlohmann::json j = {
      {"partitions", ledger.size()},
      {"proved", proved},
      {"failed", failed},
      {"retried", retried},
      {"wall_s", r.wall_s},
      {"s_per_proof", proved ? r.wall_s / double(proved) : 0.0},
      {"ring",
       {{"slots", r.slots},
        {"slot_bytes", r.slot_size},
        {"ring_bytes", r.ring_bytes},
        {"slots_from", cfg.slots_reason}}},
      {"workers", {{"synth", cfg.synth_workers}, {"gpu", cfg.gpu_workers}, {"restarts", r.restarts}}},
      {"memory",
       {{"coordinator_peak_rss_bytes", r.coordinator_peak_rss_bytes},
        {"coordinator_cgroup_peak_bytes", r.coordinator_cgroup_peak_bytes},
        {"sum_of_peak_rss_bytes", peak_sum},
        {"max_total_rss_bytes", r.max_total_rss_bytes},
        {"max_total_peak_bytes", r.max_total_peak_bytes},
        {"mem_budget_bytes", cfg.mem_budget},
        {"samples", r.samples},
        {"caps", r.memory_caps},
        {"synth_mem_max_bytes", cfg.synth_mem_max},
        {"gpu_mem_max_bytes", cfg.gpu_mem_max},
        {"mem_max_bytes", r.mem_max},
        {"mem_plan", cfg.mem_plan},
        {"max_total_cgroup_bytes", r.max_total_cgroup_bytes},
        {"parent_cgroup_peak_bytes", r.parent_cgroup_peak_bytes},
        {"note", "peak RSS per process (ru_maxrss); worker figures include the ring pages they touched"}}},
      {"seats", seats},
      {"per_partition", per_partition},
      {"proofs_per_hour", r.wall_s > 0 ? 3600.0 * double(proved) / r.wall_s : 0.0},
      {"backpressure", {{"max_slots_filled", r.max_slots_filled}, {"max_waiting_for_grant", r.max_waiting_for_grant}}},
      {"stale_messages_dropped", r.stale_messages},
      {"malformed_messages_dropped", r.malformed_messages},
      {"duplicate_proofs_dropped", r.duplicate_proofs},
      {"interrupted", r.interrupted},
      {"interrupted_partitions", interrupted},
      {"abort_reason", r.abort_reason},
  };
  for (const auto& [key, value] : extra.items()) j[key] = value;
  return write_json_atomically(file, j, "summary");
}

}  // namespace proofpipe::engine
