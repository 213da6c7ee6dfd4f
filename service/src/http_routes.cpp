// The answers of the API's routes (http_api.hpp): each turns a request into
// one ServiceCore call and its result into JSON and a status.
#include <optional>

#include "http_server.hpp"
#include "http_submit.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/service/job_json.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

constexpr size_t kDefaultListLimit = 100;
constexpr size_t kMaxListLimit = 10000;
// Parts in one multipart form (httplib's own cap is 1024 files).
constexpr size_t kMaxFormParts = 1024;

// The ServiceCore error codes as HTTP statuses (service_core.hpp).
int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kBadFormat:
    case ErrorCode::kNotFound: return 400;
    case ErrorCode::kPermissionDenied: return 403;
    case ErrorCode::kUnavailable: return 503;
    case ErrorCode::kResourceExhausted: return 413;
    default: return 500;
  }
}

// One of cfg.max_large_bodies places, for a body over kLargeBodyBytes while
// it is in memory (read, parsed, handed to the core).
class LargeBodyPlace {
 public:
  LargeBodyPlace(std::atomic<unsigned>& taken, unsigned max, uint64_t length) : taken_(taken) {
    if (length <= kLargeBodyBytes) return;
    held_ = true;
    if (taken_.fetch_add(1) >= max) {
      release();
      refused_ = true;
    }
  }
  ~LargeBodyPlace() { release(); }
  LargeBodyPlace(const LargeBodyPlace&) = delete;
  LargeBodyPlace& operator=(const LargeBodyPlace&) = delete;
  bool refused() const { return refused_; }

 private:
  void release() {
    if (held_) taken_.fetch_sub(1);
    held_ = false;
  }
  std::atomic<unsigned>& taken_;
  bool held_ = false, refused_ = false;
};

// GET and DELETE of one job answer alike: the job, or 404.
void reply_job(Res& res, const std::string& id, const Result<std::optional<Job>>& job) {
  if (!job) return reply_status(res, job.status());
  if (!*job) return reply_error(res, 404, fmt::format("no job '{}'", id));
  reply(res, 200, job_to_json(**job, true));
}

}  // namespace

void reply(Res& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump_json(body) + "\n", "application/json");
}
void reply_error(Res& res, int status, std::string message) {
  for (char& c : message) c = (c == '\n' || c == '\r') ? ' ' : c;
  reply(res, status, {{"error", message}});
}

void reply_status(Res& res, const Status& st) { reply_error(res, http_status(st.code()), st.message()); }

void ApiServer::State::submit(const Req& req, Res& res, const httplib::ContentReader& read) {
  const LargeBodyPlace place(large_bodies, cfg.max_large_bodies, req.get_header_value<uint64_t>("Content-Length"));
  const bool form = req.is_multipart_form_data();
  const bool json_body = req.get_header_value("Content-Type").rfind("application/json", 0) == 0;
  if (place.refused() || (!form && !json_body)) {
    // httplib answers a body it could not read (413, 400) itself.
    const auto drop = [](const char*, size_t) { return true; };
    if (!(form ? read([](const httplib::MultipartFormData&) { return true; }, drop) : read(drop))) return;
    if (!form && !json_body) return reply_error(res, 415, "send application/json or multipart/form-data");
    return reply_busy(res);
  }
  Result<SubmitRequest> parsed = Status(ErrorCode::kInternal, "not parsed");
  if (form) {
    httplib::MultipartFormDataMap parts;
    auto cur = parts.end();
    const bool ok = read(
        [&](const httplib::MultipartFormData& part) {
          cur = parts.emplace(part.name, part);
          return parts.size() <= kMaxFormParts;
        },
        [&](const char* data, size_t n) {
          cur->second.content.append(data, n);
          return true;
        });
    if (!ok) return;
    parsed = submit_from_form(parts);
  } else {
    std::string body;
    if (!read([&](const char* data, size_t n) {
          body.append(data, n);
          return true;
        }))
      return;
    parsed = submit_from_json(body);
  }
  if (!parsed) return reply_status(res, parsed.status());
  const auto result = core.submit(*parsed);
  if (!result) return reply_status(res, result.status());
  const Job& job = result->job;
  switch (result->outcome) {
    case SubmitOutcome::kCreated:
      res.set_header("Location", "/v1/jobs/" + job.id);
      return reply(res, 201, job_to_json(job, true));
    case SubmitOutcome::kExisting: return reply(res, 200, job_to_json(job, true));
    case SubmitOutcome::kConflict:
      return reply(
          res, 409,
          {{"error", fmt::format("job '{}' already exists with other content (key, priority or witnesses)", job.id)},
           {"id", job.id}});
  }
}

void ApiServer::State::list(const Req& req, Res& res) {
  std::optional<JobState> state;
  size_t limit = kDefaultListLimit;
  for (const auto& [name, value] : req.params) {
    if (req.get_param_value_count(name) > 1) return reply_error(res, 400, fmt::format("'{}' is given twice", name));
    if (name == "state") {
      state = parse_job_state(value);
      if (!state)
        return reply_error(res, 400,
                           fmt::format("state '{}' is not queued, running, done, failed or cancelled", value));
    } else if (name == "limit") {
      unsigned n = 0;
      if (!parse_uint(value, &n) || n < 1 || n > kMaxListLimit)
        return reply_error(res, 400,
                           fmt::format("limit '{}' is not a whole number from 1 to {}", value, kMaxListLimit));
      limit = n;
    } else {
      return reply_error(res, 400, fmt::format("unknown query parameter '{}' (expected state, limit)", name));
    }
  }
  const auto jobs = core.jobs(state, limit);
  if (!jobs) return reply_status(res, jobs.status());
  json out = json::array();
  for (const auto& j : *jobs) out.push_back(job_to_json(j, false));
  reply(res, 200, {{"jobs", std::move(out)}});
}

void ApiServer::State::get_job(const Req& req, Res& res) {
  reply_job(res, req.matches[1], core.job(req.matches[1].str()));
}

void ApiServer::State::cancel(const Req& req, Res& res) {
  reply_job(res, req.matches[1], core.cancel(req.matches[1].str()));
}

void ApiServer::State::get_proof(const Req& req, Res& res) {
  const std::string id = req.matches[1], name = req.matches[2];
  const auto files = core.proof(id, name);
  if (!files) return reply_status(res, files.status());
  if (!*files) {
    // Say which: the job, the partition, or a partition not proved (yet).
    const auto job = core.job(id);
    if (job && !*job) return reply_error(res, 404, fmt::format("no job '{}'", id));
    return reply_error(res, 404,
                       fmt::format("job '{}' has no proof '{}' (no such partition, or not proved)", id, name));
  }
  // ordered_json keeps snarkjs's key order, so a client that writes them
  // back gets the stored files byte for byte.
  using OJson = nlohmann::ordered_json;
  const OJson proof = OJson::parse((*files)->proof_json, nullptr, false);
  const OJson pub = OJson::parse((*files)->public_json, nullptr, false);
  if (proof.is_discarded() || pub.is_discarded())
    return reply_error(res, 500, fmt::format("the stored proof '{}' of job '{}' is not valid JSON", name, id));
  const OJson body = {{"proof", proof}, {"public", pub}};
  res.status = 200;
  res.set_content(body.dump(-1, ' ', false, OJson::error_handler_t::replace) + "\n", "application/json");
}

void ApiServer::State::readyz(Res& res) {
  const Health h = core.health();
  if (h.ready) return reply(res, 200, {{"ready", true}});
  reply(res, 503,
        {{"ready", false}, {"draining", h.draining}, {"why_not", h.why_not}, {"error", "not ready: " + h.why_not}});
}

}  // namespace proofpipe::service
