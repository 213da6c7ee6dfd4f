// The answers of the API's routes (http_api.hpp): each turns a request into
// one ServiceCore call and its result into JSON and a status.
#include <optional>

#include "http_server.hpp"
#include "http_submit.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/service/job_json.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

constexpr size_t kDefaultListLimit = 100;
constexpr size_t kMaxListLimit = 10000;
// The ServiceCore error codes as HTTP statuses (proofpipe/service/core.hpp).
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

void reply_status(Res& res, const Status& st) {
  const int status = http_status(st.code());
  // Every 503 is "try again later" (draining, the queue unreachable, the
  // state disk full): docs/api.md promises Retry-After with it.
  if (status == 503) res.set_header("Retry-After", "1");
  reply_error(res, status, st.message());
}

void ApiServer::State::submit(Req& req, Res& res) {
  // The connection checked the framing, the size and the Content-Type and
  // holds this body's large-body place until the answer is out.
  Result<SubmitRequest> parsed = Status(ErrorCode::kInternal, "not parsed");
  const std::string boundary = form_boundary(req.header("Content-Type"));
  if (req.header("Content-Type").rfind("multipart/form-data", 0) == 0) {
    auto parts = parse_form(req.body, boundary);
    if (!parts) return reply_status(res, parts.status());
    parsed = submit_from_form(std::move(*parts), &req.body);
  } else {
    // A known key without a generator refuses inputs before they are
    // parsed; an unknown key is the core's to name (with the loaded ones).
    SubmitLimits limits;
    limits.inputs_allowed = [this](const std::string& key) {
      for (const KeyInfo& k : core.keys())
        if (k.name == key) return k.inputs;
      return true;
    };
    parsed = submit_from_json(req.body, limits);
  }
  req.body = std::string();  // the request holds the uploads now
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
    if (req.param_count(name) > 1) return reply_error(res, 400, fmt::format("'{}' is given twice", name));
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
  // One job's tree at a time, straight into the answer's text: the whole
  // list's tree (about 10x its text; 10,000 jobs every 5 s from a
  // dashboard) left the handler threads' heaps fragmented and growing.
  std::string body = "{\"jobs\":[";
  for (size_t i = 0; i < jobs->size(); ++i) {
    if (i != 0) body += ',';
    body += dump_json(job_to_json((*jobs)[i], false));
  }
  body += "]}\n";
  res.status = 200;
  res.set_content(std::move(body), "application/json");
}

void ApiServer::State::get_job(const Req& req, Res& res) { reply_job(res, req.matches[1], core.job(req.matches[1])); }

void ApiServer::State::cancel(const Req& req, Res& res) { reply_job(res, req.matches[1], core.cancel(req.matches[1])); }

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
  // Depth-capped: a shared queue's rows are other nodes' writing.
  auto proof = formats::parse_ordered_json_bounded((*files)->proof_json);
  auto pub = formats::parse_ordered_json_bounded((*files)->public_json);
  if (!proof || !pub)
    return reply_error(res, 500, fmt::format("the stored proof '{}' of job '{}' is not valid JSON", name, id));
  const OJson body = {{"proof", std::move(*proof)}, {"public", std::move(*pub)}};
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
