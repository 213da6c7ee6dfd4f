// The API server's set-up (http_api.hpp): the route table (the answers are
// in http_routes.cpp; the connections, limits and deadlines in
// http_conn.cpp), the request target's path and query, the token check,
// start and stop.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "http_server.hpp"
#include "metrics_text.hpp"
#include "proofpipe/service/job_json.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  if (path.empty() || path[0] != '/') return out;
  path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    out.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    path.remove_prefix(slash + 1);
  }
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  const auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += char(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += plus_is_space && s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

}  // namespace

void split_target(std::string_view target, Req& req) {
  const size_t q = target.find('?');
  req.path = percent_decode(target.substr(0, q), false);
  if (q == std::string_view::npos) return;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      req.params.emplace(percent_decode(pair.substr(0, eq), true),
                         eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1), true));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

std::string Req::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (iequal(n, name)) return v;
  return {};
}
bool Req::has_header(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return iequal(h.first, name); });
}

std::string ApiServer::State::auth_problem(const Req& req) const {
  const std::string h = req.header("Authorization");
  if (h.empty()) return "this server needs 'Authorization: Bearer <token>'";
  constexpr std::string_view kScheme = "bearer ";
  if (h.size() <= kScheme.size() || !iequal(kScheme, std::string_view(h).substr(0, kScheme.size())))
    return "the Authorization header is not 'Bearer <token>'";
  if (!constant_time_equal(std::string_view(h).substr(kScheme.size()), cfg.token)) return "the bearer token is wrong";
  return {};
}

void ApiServer::State::install() {
  using H = Route::Handler;
  const auto route = [](std::string_view path, std::vector<std::pair<std::string, H>> methods) {
    Route r;
    r.segments = split_path(path);
    r.methods = std::move(methods);
    for (const auto& [m, h] : r.methods) r.allow += (r.allow.empty() ? "" : ", ") + m + (m == "GET" ? ", HEAD" : "");
    return r;
  };
  routes.push_back(route("/v1/jobs", {{"GET", [this](Req& q, Res& s) { list(q, s); }},
                                      {"POST", [this](Req& q, Res& s) { submit(q, s); }}}));
  routes.back().body_method = "POST";
  routes.push_back(route("/v1/jobs/*", {{"GET", [this](Req& q, Res& s) { get_job(q, s); }},
                                        {"DELETE", [this](Req& q, Res& s) { cancel(q, s); }}}));
  routes.push_back(route("/v1/jobs/*/proofs/*", {{"GET", [this](Req& q, Res& s) { get_proof(q, s); }}}));
  routes.push_back(route("/v1/keys", {{"GET", [this](Req&, Res& s) {
                                         json keys = json::array();
                                         for (const auto& k : core.keys()) keys.push_back(key_to_json(k));
                                         reply(s, 200, {{"keys", std::move(keys)}});
                                       }}}));
  // Answered on the I/O thread: a probe never waits behind the handler pool.
  routes.push_back(route("/healthz", {{"GET", [](Req&, Res& s) { reply(s, 200, {{"alive", true}}); }}}));
  routes.back().on_io_thread = true;
  routes.push_back(route("/readyz", {{"GET", [this](Req&, Res& s) { readyz(s); }}}));
  routes.back().on_io_thread = true;  // health() copies a snapshot under short locks: no I/O
  routes.push_back(route("/metrics", {{"GET", [this](Req&, Res& s) {
                                         s.set_content(render_metrics(core.metrics()), kMetricsContentType);
                                       }}}));
}

const Route* ApiServer::State::match(Req& req) const {
  const std::vector<std::string> parts = split_path(req.path);
  for (const Route& r : routes) {
    if (r.segments.size() != parts.size()) continue;
    std::vector<std::string> matches = {req.path};
    bool ok = true;
    for (size_t i = 0; ok && i < parts.size(); ++i) {
      if (r.segments[i] == "*") {
        ok = !parts[i].empty();
        matches.push_back(parts[i]);
      } else {
        ok = r.segments[i] == parts[i];
      }
    }
    if (!ok) continue;
    req.matches = std::move(matches);
    return &r;
  }
  return nullptr;
}

ApiServer::ApiServer(std::unique_ptr<State> state) : state_(std::move(state)) {}
ApiServer::~ApiServer() { stop(); }

int ApiServer::port() const { return state_->port; }

Result<std::unique_ptr<ApiServer>> ApiServer::start(ServiceCore& core, const ApiConfig& cfg) {
  auto st = std::make_unique<State>(core, cfg);
  st->install();
  if (Status bound = st->listen(); !bound) {
    const std::string where = cfg.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", cfg.host, cfg.port)
                                                                      : fmt::format("{}:{}", cfg.host, cfg.port);
    return make_error(ErrorCode::kUnavailable, "cannot listen on {}: {}", where, bound.message());
  }
  st->run();
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(st)));
}

void ApiServer::stop() {
  std::lock_guard lock(state_->stop_mu);
  if (state_->stopped) return;
  state_->stopped = true;
  state_->shutdown();
}

}  // namespace proofpipe::service
