// Output files of a run (outputs.hpp).
#include "outputs.hpp"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proofpipe/formats/proof_json.hpp"

namespace proofpipe::coord {
namespace {

// JSON to a temporary name in the same directory, then rename(2).
Status write_json_atomically(const std::filesystem::path& file, const nlohmann::json& j) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) return make_error(ErrorCode::kIo, "cannot write '{}'", tmp.string());
    f << j.dump(2) << '\n';
    if (!f.flush()) return make_error(ErrorCode::kIo, "cannot write '{}'", tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) return make_error(ErrorCode::kIo, "cannot rename '{}' to '{}': {}", tmp.string(), file.string(), ec.message());
  return Status::ok();
}

}  // namespace

Status write_partition_outputs(const std::filesystem::path& out, const std::string& stem, const groth16::Proof& proof,
                               std::span<const ff::Fr> public_signals) {
  // public.json first: a proof.json on disk then always has its inputs beside it.
  PP_RETURN_IF_ERROR(formats::write_public_json(out / (stem + ".public.json"), public_signals));
  return formats::write_proof_json(out / (stem + ".proof.json"), proof);
}

Status write_run_info(const std::filesystem::path& file, pid_t pid, const std::string& ring_prefix,
                      const std::string& endpoint, const shm::Ring& ring, const std::filesystem::path& out) {
  nlohmann::json j = {{"pid", pid},
                      {"ring", ring_prefix},
                      {"endpoint", endpoint},
                      {"slots", ring.slot_count()},
                      {"slot_bytes", ring.slot_size()},
                      {"seats", ring.seat_count()},
                      {"out", out.string()}};
  return write_json_atomically(file, j);
}

Status write_summary(const std::filesystem::path& file, const Ledger& ledger, const RunReport& r,
                     const PipelineConfig& cfg) {
  nlohmann::json failed = nlohmann::json::array();
  nlohmann::json retried = nlohmann::json::array();
  for (const auto& p : ledger.all()) {
    if (p.state == PartState::kFailed) failed.push_back({{"partition", p.stem}, {"attempts", p.attempt}, {"causes", p.causes}});
    if (p.state == PartState::kDone && !p.causes.empty()) {
      retried.push_back({{"partition", p.stem}, {"attempts", p.attempt}, {"causes", p.causes}});
    }
  }
  nlohmann::json per_partition = nlohmann::json::array();
  for (const auto& p : ledger.all()) {
    per_partition.push_back({{"partition", p.stem},
                             {"state", part_state_name(p.state)},
                             {"attempts", p.attempt},
                             {"synth_s", p.synth_s},
                             {"prove_s", p.prove_s},
                             {"stages", {{"intake_s", p.stages.intake_s}, {"h_s", p.stages.h_s}, {"msms_s", p.stages.msms_s}}},
                             {"done_at_s", p.done_s}});
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
    if (s.role == ipc::Role::kGpu) {
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
      {"ring", {{"slots", r.slots}, {"slot_bytes", r.slot_size}, {"ring_bytes", r.ring_bytes}, {"slots_from", cfg.slots_reason}}},
      {"workers", {{"synth", cfg.synth_workers}, {"gpu", cfg.gpu_workers}, {"restarts", r.restarts}}},
      {"memory",
       {{"coordinator_peak_rss_bytes", r.coordinator_peak_rss_bytes},
        {"sum_of_peak_rss_bytes", peak_sum},
        {"max_total_rss_bytes", r.max_total_rss_bytes},
        {"max_total_peak_bytes", r.max_total_peak_bytes},
        {"mem_budget_bytes", cfg.mem_budget},
        {"samples", r.samples},
        {"caps", r.memory_caps},
        {"synth_mem_max_bytes", cfg.synth_mem_max},
        {"gpu_mem_max_bytes", cfg.gpu_mem_max},
        {"note", "peak RSS per process (ru_maxrss); worker figures include the ring pages they touched"}}},
      {"seats", seats},
      {"per_partition", per_partition},
      {"proofs_per_hour", r.wall_s > 0 ? 3600.0 * double(proved) / r.wall_s : 0.0},
      {"backpressure", {{"max_slots_filled", r.max_slots_filled}, {"max_waiting_for_grant", r.max_waiting_for_grant}}},
      {"stale_messages_dropped", r.stale_messages},
      {"duplicate_proofs_dropped", r.duplicate_proofs},
      {"interrupted", r.interrupted},
      {"abort_reason", r.abort_reason},
  };
  return write_json_atomically(file, j);
}

}  // namespace proofpipe::coord
