// The clients' HTTP calls and the formatting they share (client.hpp), and
// the two short commands: `proofpipe jobs` (a table, one job's partitions,
// or the server's JSON) and `proofpipe cancel`. `submit` is cmd_submit.cpp.
#include "client.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "cli_error.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/service/job_json.hpp"
#include "proofpipe/service/serve.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// An answer's head (status line and headers) is small; more is refused.
constexpr size_t kMaxHeadBytes = 64 * 1024;

// A multipart/form-data body as the API takes it (docs/api.md): the
// boundary is random, so no file's bytes can end a part early.
std::string multipart_body(const httplib::MultipartFormDataItems& items, std::string* boundary) {
  std::random_device rd;
  *boundary = "proofpipe-";
  for (int i = 0; i < 4; ++i) *boundary += fmt::format("{:08x}", rd());
  std::string body;
  for (const auto& item : items) {
    body += "--" + *boundary + "\r\nContent-Disposition: form-data; name=\"" + item.name + "\"";
    if (!item.filename.empty()) body += "; filename=\"" + item.filename + "\"";
    body += "\r\n";
    if (!item.content_type.empty()) body += "Content-Type: " + item.content_type + "\r\n";
    body += "\r\n" + item.content + "\r\n";
  }
  return body + "--" + *boundary + "--\r\n";
}

}  // namespace

ApiClient::ApiClient(std::string server, std::string host, std::string port, std::string token, double timeout_s)
    : server_(std::move(server)),
      host_(std::move(host)),
      port_(std::move(port)),
      token_(std::move(token)),
      timeout_s_(timeout_s) {}
ApiClient::~ApiClient() = default;

Result<std::unique_ptr<ApiClient>> ApiClient::connect(const cli::ClientArgs& args) {
  std::string url = args.server;
  if (url.empty()) {
    const char* env = std::getenv("PROOFPIPE_SERVER");
    url = env && *env ? env : kDefaultServer;
  }
  if (!(args.timeout_s > 0))
    return make_error(ErrorCode::kInvalidArgument, "--timeout {} is not a number of seconds above 0", args.timeout_s);
  // http://HOST[:PORT][/]: an IPv4 address or a name, or [IPv6]. TLS is a
  // proxy's job: `serve` speaks plain HTTP.
  static const std::regex kUrl(R"(^(?:http://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?/?$)");
  std::smatch m;
  unsigned port = 80;
  if (!std::regex_match(url, m, kUrl) || (m[2].matched && (!parse_uint(m[2].str(), &port) || port > 65535)))
    return make_error(ErrorCode::kInvalidArgument, "--server '{}' is not http://HOST:PORT (e.g. {})", printable(url),
                      kDefaultServer);
  std::string host = m[1].str();
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  std::string token_file = args.token_file;
  if (token_file.empty()) {
    const char* env = std::getenv("PROOFPIPE_TOKEN_FILE");
    token_file = env ? env : "";
  }
  std::string token;
  if (!token_file.empty()) {
    PP_ASSIGN_OR_RETURN(token, read_token_file(token_file));
  }
  if (url.rfind("http://", 0) != 0) url = "http://" + url;
  if (url.back() == '/') url.pop_back();
  return std::unique_ptr<ApiClient>(
      new ApiClient(std::move(url), std::move(host), std::to_string(port), std::move(token), args.timeout_s));
}

Result<Answer> ApiClient::call(std::string_view method, const std::string& path, std::string body,
                               const std::string& content_type) {
  http::request<http::string_body> req{http::string_to_verb({method.data(), method.size()}), path, 11};
  req.set(http::field::host, host_.find(':') == std::string::npos ? host_ + ":" + port_ : "[" + host_ + "]:" + port_);
  req.set(http::field::user_agent, "proofpipe");
  if (!token_.empty()) req.set(http::field::authorization, "Bearer " + token_);
  if (!content_type.empty()) req.set(http::field::content_type, content_type);
  req.keep_alive(false);
  req.body() = std::move(body);
  req.prepare_payload();
  // The answer is parsed into a bounded buffer: a head over kMaxHeadBytes
  // or a body over kMaxAnswerBytes (declared or sent) ends the read there.
  // A chunked body is counted here, as the parser hands its chunks over,
  // and kept to the cap (declared before the parser, which holds the
  // callback by reference).
  std::string chunked;
  auto on_chunk = [&](uint64_t, beast::string_view data, beast::error_code& ec) -> size_t {
    if (data.size() > kMaxAnswerBytes - chunked.size()) {
      ec = http::error::body_limit;
      return 0;
    }
    // The cap reserved once: a string that doubles as it grows copies into
    // a block twice the size (peak RSS 143 MiB for 64 MiB of answer), while
    // one mapping of the cap (malloc maps blocks this large) is resident
    // only as far as it is written.
    if (chunked.capacity() < kMaxAnswerBytes) chunked.reserve(kMaxAnswerBytes);
    chunked.append(data.data(), data.size());
    return data.size();
  };
  http::response_parser<http::string_body> parser;
  parser.header_limit(kMaxHeadBytes);
  parser.body_limit(kMaxAnswerBytes);
  parser.on_chunk_body(on_chunk);
  // The read buffer is bounded too: the parser takes the body out of it as
  // it comes, but a head that never ends stays in it (and this Boost's
  // header_limit is not checked while one grows).
  beast::flat_buffer buffer(2 * kMaxHeadBytes);
  buffer.reserve(kMaxHeadBytes);  // reads of 64 KiB, not 512 bytes
  // One deadline for the whole request, name lookup to the last byte: when
  // it passes, everything pending is cancelled, however slowly the server
  // trickles.
  asio::io_context ioc;
  tcp::resolver resolver(ioc);
  tcp::socket socket(ioc);
  asio::steady_timer deadline(
      ioc, std::chrono::duration_cast<asio::steady_timer::duration>(std::chrono::duration<double>(timeout_s_)));
  bool timed_out = false;
  enum class Step { kConnect, kSend, kRead, kDone } step = Step::kConnect;
  beast::error_code result;
  const auto finish = [&](beast::error_code ec) {
    result = ec;
    deadline.cancel();
  };
  deadline.async_wait([&](beast::error_code ec) {
    if (ec) return;  // cancelled: the request ended first
    timed_out = true;
    resolver.cancel();
    beast::error_code ignored;
    socket.close(ignored);
  });
  resolver.async_resolve(host_, port_, [&](beast::error_code ec, const tcp::resolver::results_type& endpoints) {
    if (ec) return finish(ec);
    asio::async_connect(socket, endpoints, [&](beast::error_code ec2, const tcp::endpoint&) {
      if (ec2) return finish(ec2);
      step = Step::kSend;
      http::async_write(socket, req, [&](beast::error_code ec3, size_t) {
        if (ec3) return finish(ec3);
        step = Step::kRead;
        // The head first: a declared length over the cap is refused here,
        // before the body is set up (string_body would reserve it all).
        http::async_read_header(socket, buffer, parser, [&](beast::error_code ec4, size_t) {
          if (ec4) return finish(ec4);
          const auto declared = parser.content_length();
          if (declared && *declared > kMaxAnswerBytes) return finish(http::error::body_limit);
          http::async_read(socket, buffer, parser, [&](beast::error_code ec5, size_t) {
            if (!ec5) step = Step::kDone;
            finish(ec5);
          });
        });
      });
    });
  });
  ioc.run();
  if (timed_out)
    return make_error(ErrorCode::kDeadlineExceeded, "server {}: {} {}: no whole answer within {} s (--timeout)",
                      server_, method, path, timeout_s_);
  if (result == http::error::buffer_overflow) result = http::error::header_limit;
  if (result == http::error::body_limit || result == http::error::header_limit)
    return make_error(ErrorCode::kBadFormat, "server {}: {} {}: the answer is over {} (the clients' cap)", server_,
                      method, path, result == http::error::body_limit ? "64 MiB" : "64 KiB of headers");
  // kIo: the server could not be reached (submit --wait retries those).
  if (result) {
    const std::string why = step == Step::kConnect ? "cannot connect (is `proofpipe serve` running there?): "
                            : step == Step::kSend  ? "the request could not be sent: "
                                                   : "no answer (the connection closed): ";
    return make_error(ErrorCode::kIo, "server {}: {} {}: {}{}", server_, method, path, why,
                      printable(result.message()));
  }
  auto res = parser.release();
  const int status = int(res.result_int());
  std::string got = res.chunked() ? std::move(chunked) : std::move(res.body());
  if (status >= 200 && status < 300) return Answer{status, std::move(got)};
  // The API's errors are {"error": "..."}; anything else is shown as it came.
  Result<json> parsed = formats::parse_json_bounded(got);
  const json j = parsed ? std::move(parsed).value() : json();
  std::string said = j.is_object() && j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
                                                                                    : got.substr(0, 200);
  said = printable(said.substr(0, 1000));
  return make_error(status == 401 || status == 403 ? ErrorCode::kPermissionDenied : ErrorCode::kUnavailable,
                    "server {}: {} {}: HTTP {}{}", server_, method, path, status, said.empty() ? "" : ": " + said);
}

Result<Answer> ApiClient::get(const std::string& path) { return call("GET", path, "", ""); }
Result<Answer> ApiClient::del(const std::string& path) { return call("DELETE", path, "", ""); }
Result<Answer> ApiClient::post_json(const std::string& path, const json& body) {
  return call("POST", path, dump_json(body), "application/json");
}
Result<Answer> ApiClient::post_form(const std::string& path, const httplib::MultipartFormDataItems& items) {
  std::string boundary;
  std::string body = multipart_body(items, &boundary);
  return call("POST", path, std::move(body), "multipart/form-data; boundary=" + boundary);
}

Result<json> ApiClient::json_of(const Answer& a) const {
  // Depth-capped: a hostile server's answer nested 100,000 deep is refused
  // here, before any tree is built to be copied or compared recursively.
  Result<json> j = formats::parse_json_bounded(a.body);
  if (!j)
    return make_error(ErrorCode::kBadFormat, "server {}: the answer is not JSON ({})", server_,
                      printable(j.status().message().substr(0, 200)));
  return j;
}

Result<Job> ApiClient::job_of(const Answer& a) const {
  PP_ASSIGN_OR_RETURN(const json j, json_of(a));
  return parse_job(j);
}

Result<Job> ApiClient::parse_job(const json& j) const {
  auto job = job_from_json(j);
  if (!job)
    return make_error(ErrorCode::kBadFormat, "server {}: a job in the answer: {}", server_,
                      printable(job.status().message()));
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

namespace {
// Format characters that reorder or hide text without being seen: the
// bidirectional overrides, embeddings and isolates (U+202E turns
// "job-exe.txt" into "job-txt.exe" on screen), the marks, zero-width
// characters, the line and paragraph separators and the BOM.
bool is_invisible_control(uint32_t cp) {
  return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}
}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto escape = [&](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        escape(c);
      else
        out += char(c);
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, its code point, and
    // it must be the shortest form, not a surrogate, at most U+10FFFF.
    const size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    uint32_t cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xc0) == 0x80;
      cp = cp << 6 | (cc & 0x3f);
    }
    ok = ok && !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
         !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
    if (!ok) {
      escape(c);
      ++i;
    } else if (cp >= 0x80 && cp <= 0x9f) {  // C1 controls (U+009B is CSI)
      escape(static_cast<unsigned char>(cp));
      i += len;
    } else if (is_invisible_control(cp)) {
      out += fmt::format("\\u{:04x}", cp);
      i += len;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

bool is_partition_stem(std::string_view name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  for (const unsigned char c : name)
    if (!(std::isalnum(c) && c < 0x80) && c != '.' && c != '_' && c != '-') return false;
  return true;
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
  text += fmt::format("{} {}: {}/{} done", printable(job.id), job_state_name(job.state), job.done, job.total);
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

// The server's JSON as it prints: \uXXXX for every control and non-ASCII
// character (nothing a terminal acts on), invalid UTF-8 as U+FFFD.
std::string ascii_json(const nlohmann::json& j) {
  return j.dump(2, ' ', true, nlohmann::json::error_handler_t::replace);
}

void print_job(const Job& j) {
  std::printf("job %s: %s, key %s, priority %lld, %u/%u done, %u failed, %u cancelled\n",
              service::printable(j.id).c_str(), service::job_state_name(j.state), service::printable(j.key).c_str(),
              static_cast<long long>(j.priority), j.done, j.total, j.failed, j.cancelled);
  std::printf("submitted %s, started %s, finished %s\n", when(j.submitted_at).c_str(), when(j.started_at).c_str(),
              when(j.finished_at).c_str());
  // The name column is as wide as the longest name (at least 24), so the
  // table stays aligned whatever names a job has.
  int name_w = 24;
  for (const auto& p : j.partitions) name_w = std::max(name_w, int(service::printable(p.name).size()));
  std::printf("%-*s %-10s %8s  %s\n", name_w, "partition", "state", "attempts", "last error");
  for (const auto& p : j.partitions)
    std::printf("%-*s %-10s %8u  %s\n", name_w, service::printable(p.name).c_str(), service::part_status_name(p.status),
                p.attempts, p.last_error.empty() ? "-" : service::printable(p.last_error).c_str());
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
      std::printf("%s\n", ascii_json(*j).c_str());
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
    std::printf("%s\n", ascii_json(*j).c_str());
    return kExitOk;
  }
  if (!j->contains("jobs") || !(*j)["jobs"].is_array())
    return fail(fmt::format("server {}: the answer has no list of jobs", c.server()));
  // Every job first, so the id and key columns are as wide as their
  // longest entry (at least 24 and 12) and the table stays aligned.
  std::vector<Job> jobs;
  int id_w = 24, key_w = 12;
  for (const auto& item : (*j)["jobs"]) {
    auto job = c.parse_job(item);
    if (!job) return fail(job.status());
    id_w = std::max(id_w, int(service::printable(job->id).size()));
    key_w = std::max(key_w, int(service::printable(job->key).size()));
    jobs.push_back(std::move(*job));
  }
  std::printf("%-*s %-*s %-10s %9s %11s  %s\n", id_w, "id", key_w, "key", "state", "priority", "done/total",
              "submitted");
  for (const Job& job : jobs) {
    std::printf("%-*s %-*s %-10s %9lld %11s  %s\n", id_w, service::printable(job.id).c_str(), key_w,
                service::printable(job.key).c_str(), service::job_state_name(job.state),
                static_cast<long long>(job.priority), fmt::format("{}/{}", job.done, job.total).c_str(),
                when(job.submitted_at).c_str());
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
  std::printf("job %s: %s, %u/%u done%s\n", service::printable(job->id).c_str(), service::job_state_name(job->state),
              job->done, job->total, ended_before ? " (it had ended: nothing to cancel)" : "");
  return kExitOk;
}

}  // namespace proofpipe::cli
