// The API server's set-up (http_api.hpp): the route table (the answers are
// in http_routes.cpp), authentication and the body limits on top of
// cpp-httplib 0.11 (Debian's), start and stop. What httplib does for us and
// what it does not:
//   - A Content-Length over max_body_bytes is answered 413 by httplib, which
//     skips the body without keeping it (set_payload_max_length); a body
//     with no length (chunked, or read to EOF) is not limited there, so it
//     is refused with 411 before it is read, and so is a compressed one
//     (Content-Encoding: a small gzip body can inflate past any limit).
//   - "Expect: 100-continue" (curl sends it for bodies over 1 MiB) is
//     answered 401/413/503 before the client sends the body.
//   - The token is checked before routing, so an unauthenticated request
//     never has its body read into memory (its body is left unread: a
//     client that sent one without waiting for 100-continue may see the
//     connection end after the 401).
//   - POST /v1/jobs reads its own body (a content-reader handler): a body
//     over 1 MiB first takes one of max_large_bodies places, and one that
//     gets none is read and dropped, then answered 503, so the connection
//     stays usable.
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "http_server.hpp"
#include "metrics_text.hpp"
#include "proofpipe/service/job_json.hpp"

namespace proofpipe::service {

using nlohmann::json;

namespace {

// Idle keep-alive connections hold a server thread; stop() waits for them,
// so a short idle limit keeps stop() short too.
constexpr time_t kKeepAliveSeconds = 2;

// The bearer token of the request, or what is wrong with it (empty: fine).
std::string auth_problem(const Req& req, const std::string& token) {
  const std::string h = req.get_header_value("Authorization");
  if (h.empty()) return "this server needs 'Authorization: Bearer <token>'";
  constexpr std::string_view kScheme = "bearer ";
  if (h.size() <= kScheme.size() || !std::equal(kScheme.begin(), kScheme.end(), h.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      }))
    return "the Authorization header is not 'Bearer <token>'";
  if (!constant_time_equal(std::string_view(h).substr(kScheme.size()), token)) return "the bearer token is wrong";
  return {};
}
// The statuses httplib answers by itself, besides 404 and 413.
std::string what_went_wrong(int status) {
  switch (status) {
    case 400: return "malformed HTTP request";
    case 414: return "the request line is too long";
    case 416: return "a malformed Range header";
    default: return fmt::format("HTTP status {}", status);
  }
}

void reply_unauthorized(Res& res, const std::string& why) {
  res.set_header("WWW-Authenticate", "Bearer realm=\"proofpipe\"");
  reply_error(res, 401, why);
}

}  // namespace

bool ApiServer::State::refuse_early(const Req& req, Res& res) {
  if (!cfg.token.empty() && req.path != "/healthz") {
    const std::string why = auth_problem(req, cfg.token);
    if (!why.empty()) {
      reply_unauthorized(res, why);
      return true;
    }
  }
  const std::string encoding = req.get_header_value("Content-Encoding");
  if (!encoding.empty() && encoding != "identity") {
    reply_error(res, 415, fmt::format("Content-Encoding '{}' is not accepted: send the body uncompressed", encoding));
    return true;
  }
  const bool bodiless =
      req.method == "GET" || req.method == "HEAD" || req.method == "DELETE" || req.method == "OPTIONS";
  if (req.has_header("Transfer-Encoding") || (!req.has_header("Content-Length") && !bodiless)) {
    reply_error(res, 411, "a request body needs a Content-Length (no chunked transfer)");
    return true;
  }
  return false;
}

void ApiServer::State::install() {
  using Handler = httplib::Server::Handler;
  struct Route {
    const char* pattern;
    std::vector<std::pair<std::string, Handler>> methods;
  };
  const std::vector<Route> routes = {
      // POST reads its body itself (submit()): registered below.
      {"/v1/jobs", {{"GET", [this](const Req& q, Res& s) { list(q, s); }}, {"POST", nullptr}}},
      {R"(/v1/jobs/([^/]+))",
       {{"GET", [this](const Req& q, Res& s) { get_job(q, s); }},
        {"DELETE", [this](const Req& q, Res& s) { cancel(q, s); }}}},
      {R"(/v1/jobs/([^/]+)/proofs/([^/]+))", {{"GET", [this](const Req& q, Res& s) { get_proof(q, s); }}}},
      {"/v1/keys",
       {{"GET",
         [this](const Req&, Res& s) {
           json keys = json::array();
           for (const auto& k : core.keys()) keys.push_back(key_to_json(k));
           reply(s, 200, {{"keys", std::move(keys)}});
         }}}},
      {"/healthz",
       {{"GET",
         [](const Req&, Res& s) {
           reply(s, 200, {{"alive", true}});
         }}}},
      {"/readyz", {{"GET", [this](const Req&, Res& s) { readyz(s); }}}},
      {"/metrics",
       {{"GET", [this](const Req&, Res& s) { s.set_content(render_metrics(core.metrics()), kMetricsContentType); }}}},
  };
  using Register = httplib::Server& (httplib::Server::*)(const std::string&, Handler);
  const std::vector<std::pair<std::string, Register>> verbs = {
      {"GET", &httplib::Server::Get},     {"POST", &httplib::Server::Post},     {"PUT", &httplib::Server::Put},
      {"PATCH", &httplib::Server::Patch}, {"DELETE", &httplib::Server::Delete}, {"OPTIONS", &httplib::Server::Options}};
  // Every verb on every known path: the route's own, else 405 naming them.
  for (const auto& route : routes) {
    std::string allow;
    for (const auto& [m, h] : route.methods) allow += (allow.empty() ? "" : ", ") + m + (m == "GET" ? ", HEAD" : "");
    for (const auto& [verb, reg] : verbs) {
      Handler handler = [allow, verb = verb](const Req& q, Res& s) {
        s.set_header("Allow", allow);
        reply_error(s, 405, fmt::format("{} is not allowed on {} (allowed: {})", verb, q.path, allow));
      };
      bool own = false;
      for (const auto& [m, h] : route.methods) {
        if (m == verb) handler = h, own = true;
      }
      if (!own || handler) (srv.*reg)(route.pattern, handler);
    }
  }
  srv.Post("/v1/jobs", [this](const Req& q, Res& s, const httplib::ContentReader& read) { submit(q, s, read); });

  srv.set_payload_max_length(cfg.max_body_bytes);
  // httplib's default sets SO_REUSEPORT, which lets a second server (any
  // process of this user) bind the same port and take half the requests:
  // SO_REUSEADDR alone only allows a restart over old TIME_WAIT connections.
  srv.set_socket_options([](int sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  srv.set_keep_alive_timeout(kKeepAliveSeconds);
  srv.set_pre_routing_handler([this](const Req& q, Res& s) {
    return refuse_early(q, s) ? httplib::Server::HandlerResponse::Handled : httplib::Server::HandlerResponse::Unhandled;
  });
  // The answer instead of "100 Continue" is final: the client sends no body.
  srv.set_expect_100_continue_handler([this](const Req& q, Res& s) {
    const auto length = q.get_header_value<uint64_t>("Content-Length");
    if (refuse_early(q, s)) return s.status;
    if (length > cfg.max_body_bytes) {
      reply_error(s, 413, body_too_large());
    } else if (length > kLargeBodyBytes && large_bodies.load() >= cfg.max_large_bodies) {
      reply_busy(s);
    } else {
      return 100;
    }
    return s.status;
  });
  // Answers httplib made itself (404 for an unknown path, 413, 400 for a
  // request it could not parse) get the same one-line JSON body.
  srv.set_error_handler(httplib::Server::HandlerWithResponse([this](const Req& q, Res& s) {
    // Handled even when the body is ours already: httplib sets the
    // Content-Length of an answer it did not route (a refused
    // 100-continue) only for a handled error.
    if (s.body.empty()) {
      reply_error(s, s.status,
                  s.status == 404   ? fmt::format("no such route: {} {}", q.method, q.path)
                  : s.status == 413 ? body_too_large()
                                    : what_went_wrong(s.status));
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  srv.set_exception_handler([](const Req&, Res& s, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    reply_error(s, 500, "internal error: " + what);
  });
}

ApiServer::ApiServer(std::unique_ptr<State> state) : state_(std::move(state)) {}
ApiServer::~ApiServer() { stop(); }

int ApiServer::port() const { return state_->port; }

Result<std::unique_ptr<ApiServer>> ApiServer::start(ServiceCore& core, const ApiConfig& cfg) {
  auto st = std::make_unique<State>(core, cfg);
  st->install();
  errno = 0;
  const int port =
      cfg.port == 0 ? st->srv.bind_to_any_port(cfg.host) : (st->srv.bind_to_port(cfg.host, cfg.port) ? cfg.port : -1);
  if (port < 0) {
    const int err = errno;
    const std::string where = cfg.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", cfg.host, cfg.port)
                                                                      : fmt::format("{}:{}", cfg.host, cfg.port);
    return make_error(ErrorCode::kUnavailable, "cannot listen on {}: {}", where,
                      err ? std::strerror(err) : "the address is not usable here");
  }
  st->port = port;
  httplib::Server& srv = st->srv;
  st->thread = std::thread([&srv] { srv.listen_after_bind(); });
  // stop() before the thread's loop begins would be lost (httplib's stop()
  // acts only on a running server), so start() returns once it runs.
  while (!srv.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(st)));
}

void ApiServer::stop() {
  std::lock_guard lock(state_->stop_mu);
  if (state_->stopped) return;
  state_->stopped = true;
  state_->srv.stop();
  if (state_->thread.joinable()) state_->thread.join();
}

}  // namespace proofpipe::service
