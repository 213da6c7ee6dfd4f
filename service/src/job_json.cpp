// Job, PartitionInfo and KeyInfo to and from the API's JSON (job_json.hpp;
// the shapes are documented in docs/api.md). The server and the clients
// share these functions, so the two sides cannot drift apart.
#include "proofpipe/service/job_json.hpp"
#include "proofpipe/common/clock.hpp"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

namespace proofpipe::service {
namespace {

using nlohmann::json;

Status bad(std::string_view what, std::string_view problem) {
  return make_error(ErrorCode::kBadFormat, "'{}' {}", what, problem);
}

// Typed field readers: each names the field it could not read.
Result<std::string> get_string(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_string()) return bad(name, "is missing or not a string");
  return it->get<std::string>();
}
template <class T>
Result<T> get_uint(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_number_unsigned() || it->get<uint64_t>() > uint64_t(T(-1)))
    return bad(name, "is missing or not a whole number in range");
  return it->get<T>();
}
Result<int64_t> get_int(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX))
    return bad(name, "is missing or not an integer");
  return it->get<int64_t>();
}
Result<double> get_seconds(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_number()) return bad(name, "is missing or not a number");
  return it->get<double>();
}
Result<double> get_time(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) return bad(name, "is missing");
  return time_from_json(*it);
}

// The stage seconds of a done partition (PartTimes), by their API names.
json times_to_json(const PartTimes& t) {
  return {{"wait", t.wait_s},  {"synth", t.synth_s},     {"prove", t.prove_s}, {"intake", t.stages.intake_s},
          {"h", t.stages.h_s}, {"msms", t.stages.msms_s}};
}
Result<PartTimes> times_from_json(const json& j) {
  if (!j.is_object()) return bad("seconds", "is not an object");
  PartTimes t;
  PP_ASSIGN_OR_RETURN(t.wait_s, get_seconds(j, "wait"));
  PP_ASSIGN_OR_RETURN(t.synth_s, get_seconds(j, "synth"));
  PP_ASSIGN_OR_RETURN(t.prove_s, get_seconds(j, "prove"));
  PP_ASSIGN_OR_RETURN(t.stages.intake_s, get_seconds(j, "intake"));
  PP_ASSIGN_OR_RETURN(t.stages.h_s, get_seconds(j, "h"));
  PP_ASSIGN_OR_RETURN(t.stages.msms_s, get_seconds(j, "msms"));
  return t;
}

json partition_to_json(const PartitionInfo& p) {
  json j = {{"index", p.index},
            {"name", p.name},
            {"state", part_status_name(p.status)},
            {"attempts", p.attempts},
            {"last_error", p.last_error},
            {"started_at", time_to_json(p.started_at)},
            {"finished_at", time_to_json(p.finished_at)}};
  j["seconds"] = p.status == PartStatus::kDone ? times_to_json(p.times) : json(nullptr);
  return j;
}

Result<PartitionInfo> partition_from_json(const json& j) {
  if (!j.is_object()) return bad("partitions[]", "is not an object");
  PartitionInfo p;
  PP_ASSIGN_OR_RETURN(p.index, get_uint<uint32_t>(j, "index"));
  PP_ASSIGN_OR_RETURN(p.name, get_string(j, "name"));
  PP_ASSIGN_OR_RETURN(const std::string state, get_string(j, "state"));
  const auto s = parse_job_state(state);  // the partition states have the same five names
  if (!s) return bad("state", fmt::format("'{}' is not a partition state", state));
  p.status = PartStatus(*s);
  PP_ASSIGN_OR_RETURN(p.attempts, get_uint<uint32_t>(j, "attempts"));
  PP_ASSIGN_OR_RETURN(p.last_error, get_string(j, "last_error"));
  PP_ASSIGN_OR_RETURN(p.started_at, get_time(j, "started_at"));
  PP_ASSIGN_OR_RETURN(p.finished_at, get_time(j, "finished_at"));
  const auto sec = j.find("seconds");
  if (sec != j.end() && !sec->is_null()) {
    PP_ASSIGN_OR_RETURN(p.times, times_from_json(*sec));
  }
  return p;
}

}  // namespace

json time_to_json(double unix_seconds) {
  if (unix_seconds <= 0 || !std::isfinite(unix_seconds)) return nullptr;
  return iso8601_utc(unix_seconds, /*millis=*/true);
}

Result<double> time_from_json(const json& j) {
  if (j.is_null()) return 0.0;
  if (!j.is_string()) return make_error(ErrorCode::kBadFormat, "a time {} is not a string", dump_json(j));
  const std::string s = j.get<std::string>();
  // Exactly the form time_to_json writes: 24 characters, digits where digits go.
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd.dddZ";
  bool ok = s.size() == kShape.size();
  for (size_t i = 0; ok && i < s.size(); ++i) ok = kShape[i] == 'd' ? (s[i] >= '0' && s[i] <= '9') : s[i] == kShape[i];
  if (!ok) return make_error(ErrorCode::kBadFormat, "time '{}' is not YYYY-MM-DDThh:mm:ss.mmmZ", s);
  const auto num = [&](size_t at, size_t n) { return std::stoi(s.substr(at, n)); };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  const int ms = num(20, 3);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59)
    return make_error(ErrorCode::kBadFormat, "time '{}' is not a valid date and time", s);
  return double(timegm(&tm)) + ms / 1000.0;
}

json job_to_json(const Job& job, bool with_partitions) {
  json j = {{"id", job.id},
            {"key", job.key},
            {"priority", job.priority},
            {"state", job_state_name(job.state)},
            {"digest", job.digest},
            {"submitted_at", time_to_json(job.submitted_at)},
            {"started_at", time_to_json(job.started_at)},
            {"finished_at", time_to_json(job.finished_at)},
            {"partitions_total", job.total},
            {"partitions_done", job.done},
            {"partitions_failed", job.failed},
            {"partitions_cancelled", job.cancelled}};
  if (with_partitions) {
    json parts = json::array();
    for (const auto& p : job.partitions) parts.push_back(partition_to_json(p));
    j["partitions"] = std::move(parts);
  }
  return j;
}

Result<Job> job_from_json(const json& j) {
  if (!j.is_object()) return bad("job", "is not an object");
  Job job;
  PP_ASSIGN_OR_RETURN(job.id, get_string(j, "id"));
  PP_ASSIGN_OR_RETURN(job.key, get_string(j, "key"));
  PP_ASSIGN_OR_RETURN(job.priority, get_int(j, "priority"));
  PP_ASSIGN_OR_RETURN(const std::string state, get_string(j, "state"));
  const auto s = parse_job_state(state);
  if (!s) return bad("state", fmt::format("'{}' is not a job state", state));
  job.state = *s;
  PP_ASSIGN_OR_RETURN(job.digest, get_string(j, "digest"));
  PP_ASSIGN_OR_RETURN(job.submitted_at, get_time(j, "submitted_at"));
  PP_ASSIGN_OR_RETURN(job.started_at, get_time(j, "started_at"));
  PP_ASSIGN_OR_RETURN(job.finished_at, get_time(j, "finished_at"));
  PP_ASSIGN_OR_RETURN(job.total, get_uint<uint32_t>(j, "partitions_total"));
  PP_ASSIGN_OR_RETURN(job.done, get_uint<uint32_t>(j, "partitions_done"));
  PP_ASSIGN_OR_RETURN(job.failed, get_uint<uint32_t>(j, "partitions_failed"));
  PP_ASSIGN_OR_RETURN(job.cancelled, get_uint<uint32_t>(j, "partitions_cancelled"));
  const auto parts = j.find("partitions");
  if (parts != j.end()) {
    if (!parts->is_array()) return bad("partitions", "is not a list");
    for (const auto& p : *parts) {
      PP_ASSIGN_OR_RETURN(auto info, partition_from_json(p));
      job.partitions.push_back(std::move(info));
    }
  }
  return job;
}

json key_to_json(const KeyInfo& key) {
  return {{"name", key.name},
          {"path", key.path},
          {"curve", key.curve},
          {"constraints", key.constraints},
          {"n_vars", key.n_vars},
          {"n_public", key.n_public},
          {"domain_size", key.domain_size},
          {"file_bytes", key.file_bytes},
          {"slot_bytes", key.slot_bytes},
          {"inputs", key.inputs}};
}

Result<KeyInfo> key_from_json(const json& j) {
  if (!j.is_object()) return bad("key", "is not an object");
  KeyInfo k;
  PP_ASSIGN_OR_RETURN(k.name, get_string(j, "name"));
  PP_ASSIGN_OR_RETURN(k.path, get_string(j, "path"));
  PP_ASSIGN_OR_RETURN(k.curve, get_string(j, "curve"));
  PP_ASSIGN_OR_RETURN(k.constraints, get_uint<uint64_t>(j, "constraints"));
  PP_ASSIGN_OR_RETURN(k.n_vars, get_uint<uint64_t>(j, "n_vars"));
  PP_ASSIGN_OR_RETURN(k.n_public, get_uint<uint64_t>(j, "n_public"));
  PP_ASSIGN_OR_RETURN(k.domain_size, get_uint<uint64_t>(j, "domain_size"));
  PP_ASSIGN_OR_RETURN(k.file_bytes, get_uint<uint64_t>(j, "file_bytes"));
  PP_ASSIGN_OR_RETURN(k.slot_bytes, get_uint<uint64_t>(j, "slot_bytes"));
  // Absent from a server older than inputs: false.
  const auto inputs = j.find("inputs");
  if (inputs != j.end() && !inputs->is_boolean()) return bad("key", "'inputs' is not true or false");
  k.inputs = inputs != j.end() && inputs->get<bool>();
  return k;
}

std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace proofpipe::service
