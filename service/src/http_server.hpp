// Inside the API server (http_api.hpp), shared by its two halves:
// http_api.cpp sets the httplib server up (routes, guards, start and stop),
// http_routes.cpp answers the routes. Not for use elsewhere.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "proofpipe/service/http_api.hpp"

namespace proofpipe::service {

using Req = httplib::Request;
using Res = httplib::Response;

// A JSON answer (one line); an error answer {"error": "<one line>"}.
void reply(Res& res, int status, const nlohmann::json& body);
void reply_error(Res& res, int status, std::string message);
// A ServiceCore error as its HTTP status (service_core.hpp's table).
void reply_status(Res& res, const Status& st);

struct ApiServer::State {
  State(ServiceCore& c, ApiConfig cf) : core(c), cfg(std::move(cf)) {}
  ServiceCore& core;
  ApiConfig cfg;
  httplib::Server srv;
  std::thread thread;
  int port = 0;
  std::atomic<unsigned> large_bodies{0};
  std::mutex stop_mu;
  bool stopped = false;

  void install();
  // Refusals before a body is read (token, framing); true: refused, and
  // res holds the answer. No side effect: the 100-continue check and the
  // pre-routing handler both call it.
  bool refuse_early(const Req& req, Res& res);
  std::string body_too_large() const {
    return fmt::format("the request body is larger than {} bytes (serve --max-upload)", cfg.max_body_bytes);
  }
  void reply_busy(Res& res) const {
    res.set_header("Retry-After", "1");
    reply_error(res, 503, fmt::format("{} large uploads are in progress: retry shortly", cfg.max_large_bodies));
  }
  // Reads the body (every early answer reads it too, discarding it, so the
  // connection's next request starts where it should).
  void submit(const Req& req, Res& res, const httplib::ContentReader& read);
  void list(const Req& req, Res& res);
  void get_job(const Req& req, Res& res);
  void get_proof(const Req& req, Res& res);
  void cancel(const Req& req, Res& res);
  void readyz(Res& res);
};

}  // namespace proofpipe::service
