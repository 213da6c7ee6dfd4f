// The status JSON rendered from an EngineSnapshot (snapshot.hpp); its fields
// are documented in docs/metrics.md ("status").
#include "proofpipe/engine/snapshot.hpp"

#include <nlohmann/json.hpp>

#include "proofpipe/common/clock.hpp"

namespace proofpipe::engine {

nlohmann::json status_json(const EngineSnapshot& s) {
  using nlohmann::json;
  json workers = json::array();
  for (const WorkerSnapshot& w : s.workers) {
    json row = {{"worker", w.name},
                {"pid", w.pid},
                {"incarnation", w.incarnation},
                {"state", w.state},
                {"partition", w.partition ? int64_t(*w.partition) : int64_t{-1}},
                {"partition_name", w.partition_name},
                {"restarts", w.restarts},
                {"oom_kills", w.oom_kills},
                {"peak", w.peak}};
    if (w.backend) row["backend"] = *w.backend;
    if (w.devices) row["devices"] = *w.devices;
    if (w.rss) row["rss"] = *w.rss;
    workers.push_back(std::move(row));
  }
  json in_flight = json::array();
  for (const InFlightSnapshot& p : s.in_flight) {
    in_flight.push_back(
        {{"name", p.name}, {"state", part_state_name(p.state)}, {"times", times_json(p.times, p.generate_s)}});
  }
  json slots = json::object();
  for (const auto& [state, n] : s.slots) slots[state] = n;
  return {{"pid", s.pid},
          {"zkey", s.zkey},
          {"started", iso8601_utc(s.started)},
          {"elapsed_s", s.elapsed_s},
          {"eta_s", s.eta_s ? json(*s.eta_s) : json(nullptr)},
          {"in_flight", in_flight},
          {"workers", workers},
          {"slots", slots},
          {"slot_count", s.slot_count},
          {"slot_bytes", s.slot_bytes},
          {"ring_bytes", s.ring_bytes},
          {"partitions",
           {{"total", s.total},
            {"done", s.done},
            {"failed", s.failed},
            {"pending", s.pending},
            {"in_flight", s.in_flight_count}}},
          {"s_per_proof", s.s_per_proof},
          {"mode", s.mode},
          {"busy_s", s.busy_s},
          {"memory",
           {{"total_rss", s.memory.total_rss},
            {"max_total_rss", s.memory.max_total_rss},
            {"max_total_peak", s.memory.max_total_peak},
            {"mem_budget", s.memory.mem_budget},
            {"mem_max", s.memory.mem_max},
            {"cgroup_total", s.memory.cgroup_total},
            {"max_total_cgroup", s.memory.max_total_cgroup},
            {"cgroup_total_peak", s.memory.cgroup_total_peak}}}};
}

}  // namespace proofpipe::engine
