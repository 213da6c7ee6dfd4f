// The clients' HTTP calls and the formatting they share (client.hpp), and
// the two short commands: `proofpipe jobs` (a table, one job's partitions,
// or the server's JSON) and `proofpipe cancel`. `submit` is cmd_submit.cpp.
#include "client.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>
#include <httplib.h>

#include "cli_error.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/service/job_json.hpp"
#include "proofpipe/service/serve.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

// Connecting is quick or not at all; an answer may wait on the journal's
// fsync or on a large upload being checked.
constexpr time_t kConnectTimeoutS = 5;
constexpr time_t kReadTimeoutS = 120;
constexpr time_t kWriteTimeoutS = 120;

std::string transport_error(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "cannot connect (is `proofpipe serve` running there?)";
    case httplib::Error::ConnectionTimeout: return "connecting timed out";
    case httplib::Error::Read: return "no answer (the connection closed or timed out)";
    case httplib::Error::Write: return "the request could not be sent (the connection closed)";
    default: return "request failed: " + httplib::to_string(e);
  }
}

}  // namespace

ApiClient::ApiClient(std::string server, std::unique_ptr<httplib::Client> client)
    : server_(std::move(server)), client_(std::move(client)) {}
ApiClient::~ApiClient() = default;

Result<std::unique_ptr<ApiClient>> ApiClient::connect(const cli::ClientArgs& args) {
  std::string url = args.server;
  if (url.empty()) {
    const char* env = std::getenv("PROOFPIPE_SERVER");
    url = env && *env ? env : kDefaultServer;
  }
  // http://HOST[:PORT][/]: an IPv4 address or a name, or [IPv6]. TLS is a
  // proxy's job: `serve` speaks plain HTTP.
  static const std::regex kUrl(R"(^(?:http://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?/?$)");
  std::smatch m;
  unsigned port = 80;
  if (!std::regex_match(url, m, kUrl) || (m[2].matched && (!parse_uint(m[2].str(), &port) || port > 65535)))
    return make_error(ErrorCode::kInvalidArgument, "--server '{}' is not http://HOST:PORT (e.g. {})", url,
                      kDefaultServer);
  std::string host = m[1].str();
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  auto client = std::make_unique<httplib::Client>(host, int(port));
  client->set_connection_timeout(kConnectTimeoutS);
  client->set_read_timeout(kReadTimeoutS);
  client->set_write_timeout(kWriteTimeoutS);
  client->set_url_encode(false);  // paths are encoded by url_segment()
  std::string token_file = args.token_file;
  if (token_file.empty()) {
    const char* env = std::getenv("PROOFPIPE_TOKEN_FILE");
    token_file = env ? env : "";
  }
  if (!token_file.empty()) {
    PP_ASSIGN_OR_RETURN(const std::string token, read_token_file(token_file));
    client->set_bearer_token_auth(token);
  }
  if (url.rfind("http://", 0) != 0) url = "http://" + url;
  if (url.back() == '/') url.pop_back();
  return std::unique_ptr<ApiClient>(new ApiClient(std::move(url), std::move(client)));
}

template <class Call>
Result<Answer> ApiClient::call(std::string_view what, const std::string& path, Call&& c) {
  const httplib::Result r = c();
  // kIo: the server could not be reached (submit --wait retries those).
  if (!r) return make_error(ErrorCode::kIo, "server {}: {} {}: {}", server_, what, path, transport_error(r.error()));
  if (r->status >= 200 && r->status < 300) return Answer{r->status, r->body};
  // The API's errors are {"error": "..."}; anything else is shown as it came.
  const json j = json::parse(r->body, nullptr, false);
  std::string said = j.is_object() && j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
                                                                                    : r->body.substr(0, 200);
  return make_error(r->status == 401 || r->status == 403 ? ErrorCode::kPermissionDenied : ErrorCode::kUnavailable,
                    "server {}: {} {}: HTTP {}{}", server_, what, path, r->status, said.empty() ? "" : ": " + said);
}

Result<Answer> ApiClient::get(const std::string& path) {
  return call("GET", path, [&] { return client_->Get(path); });
}
Result<Answer> ApiClient::del(const std::string& path) {
  return call("DELETE", path, [&] { return client_->Delete(path); });
}
Result<Answer> ApiClient::post_json(const std::string& path, const json& body) {
  return call("POST", path, [&] { return client_->Post(path, dump_json(body), "application/json"); });
}
Result<Answer> ApiClient::post_form(const std::string& path, const httplib::MultipartFormDataItems& items) {
  return call("POST", path, [&] { return client_->Post(path, items); });
}

Result<json> ApiClient::json_of(const Answer& a) const {
  json j = json::parse(a.body, nullptr, false);
  if (j.is_discarded()) return make_error(ErrorCode::kBadFormat, "server {}: the answer is not JSON", server_);
  return j;
}

Result<Job> ApiClient::job_of(const Answer& a) const {
  PP_ASSIGN_OR_RETURN(const json j, json_of(a));
  return parse_job(j);
}

Result<Job> ApiClient::parse_job(const json& j) const {
  auto job = job_from_json(j);
  if (!job)
    return make_error(ErrorCode::kBadFormat, "server {}: a job in the answer: {}", server_, job.status().message());
  return job;
}

std::string url_segment(std::string_view s) {
  std::string out;
  for (const unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string format_hms(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

std::string progress_text(const Job& job, double elapsed_s, uint32_t finished_at_start, bool bar) {
  const uint32_t finished = job.done + job.failed + job.cancelled;
  std::string eta = "ETA unknown";
  if (finished > finished_at_start && elapsed_s > 0) {
    const double rate = (finished - finished_at_start) / elapsed_s;
    eta = "ETA " + format_hms((job.total - finished) / rate);
  }
  std::string text;
  if (bar) {
    constexpr uint32_t kWidth = 30;
    const uint32_t filled = job.total ? uint32_t(uint64_t(finished) * kWidth / job.total) : 0;
    text = fmt::format("[{}{}] ", std::string(filled, '#'), std::string(kWidth - filled, '.'));
  }
  text += fmt::format("{} {}: {}/{} done", job.id, job_state_name(job.state), job.done, job.total);
  if (job.failed) text += fmt::format(", {} failed", job.failed);
  if (job.cancelled) text += fmt::format(", {} cancelled", job.cancelled);
  return text + fmt::format(", elapsed {}, {}", format_hms(elapsed_s), eta);
}

int exit_code_of(const Job& job) { return job.done == job.total ? cli::kExitOk : cli::kExitPartial; }

}  // namespace proofpipe::service

namespace proofpipe::cli {

using service::ApiClient;
using service::Job;
using service::url_segment;

namespace {

std::string when(double t) {
  const auto j = service::time_to_json(t);
  return j.is_null() ? "-" : j.get<std::string>();
}

void print_job(const Job& j) {
  std::printf("job %s: %s, key %s, priority %lld, %u/%u done, %u failed, %u cancelled\n", j.id.c_str(),
              service::job_state_name(j.state), j.key.c_str(), static_cast<long long>(j.priority), j.done, j.total,
              j.failed, j.cancelled);
  std::printf("submitted %s, started %s, finished %s\n", when(j.submitted_at).c_str(), when(j.started_at).c_str(),
              when(j.finished_at).c_str());
  std::printf("%-24s %-10s %8s  %s\n", "partition", "state", "attempts", "last error");
  for (const auto& p : j.partitions)
    std::printf("%-24s %-10s %8u  %s\n", p.name.c_str(), service::part_status_name(p.status), p.attempts,
                p.last_error.empty() ? "-" : p.last_error.c_str());
}

}  // namespace

int cmd_jobs(const JobsArgs& args) {
  auto client = ApiClient::connect(args);
  if (!client) return fail(client.status());
  auto& c = **client;
  if (!args.id.empty()) {
    const auto a = c.get("/v1/jobs/" + url_segment(args.id));
    if (!a) return fail(a.status());
    if (args.json) {
      const auto j = c.json_of(*a);
      if (!j) return fail(j.status());
      std::printf("%s\n", j->dump(2).c_str());
      return kExitOk;
    }
    const auto job = c.job_of(*a);
    if (!job) return fail(job.status());
    print_job(*job);
    return kExitOk;
  }
  const auto a = c.get("/v1/jobs" + (args.state.empty() ? "" : "?state=" + url_segment(args.state)));
  if (!a) return fail(a.status());
  const auto j = c.json_of(*a);
  if (!j) return fail(j.status());
  if (args.json) {
    std::printf("%s\n", j->dump(2).c_str());
    return kExitOk;
  }
  if (!j->contains("jobs") || !(*j)["jobs"].is_array())
    return fail(fmt::format("server {}: the answer has no list of jobs", c.server()));
  std::printf("%-24s %-12s %-10s %9s %11s  %s\n", "id", "key", "state", "priority", "done/total", "submitted");
  for (const auto& item : (*j)["jobs"]) {
    const auto job = c.parse_job(item);
    if (!job) return fail(job.status());
    std::printf("%-24s %-12s %-10s %9lld %11s  %s\n", job->id.c_str(), job->key.c_str(),
                service::job_state_name(job->state), static_cast<long long>(job->priority),
                fmt::format("{}/{}", job->done, job->total).c_str(), when(job->submitted_at).c_str());
  }
  return kExitOk;
}

int cmd_cancel(const CancelArgs& args) {
  auto client = ApiClient::connect(args);
  if (!client) return fail(client.status());
  const auto a = (*client)->del("/v1/jobs/" + url_segment(args.id));
  if (!a) return fail(a.status());
  const auto job = (*client)->job_of(*a);
  if (!job) return fail(job.status());
  const bool ended_before = job->state != service::JobState::kCancelled;
  std::printf("job %s: %s, %u/%u done%s\n", job->id.c_str(), service::job_state_name(job->state), job->done, job->total,
              ended_before ? " (it had ended: nothing to cancel)" : "");
  return kExitOk;
}

}  // namespace proofpipe::cli
