// Inside the API server (http_api.hpp), shared by its parts: http_conn.cpp
// reads and writes HTTP on Boost.Beast (limits, deadlines, the token),
// http_api.cpp holds the route table, start and stop, http_routes.cpp
// answers the routes. No Boost header here, so the routes compile without
// it. Not for use elsewhere.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proofpipe/service/http_api.hpp"

namespace proofpipe::service {

// A request whose headers (and, for a route that takes one, body) are in.
struct Req {
  std::string method;  // as sent; HEAD is answered as GET without the body
  std::string path;    // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> headers;
  std::multimap<std::string, std::string> params;  // the query, decoded
  std::vector<std::string> matches;                // [1..]: the route's {id}, {name}
  std::string body;

  std::string header(std::string_view name) const;  // the first of that name (any case), or ""
  bool has_header(std::string_view name) const;
  size_t param_count(const std::string& name) const { return params.count(name); }
};

// Fills req.path (percent-decoded) and req.params (the query: '+' is a
// space, %XX a byte) from a request target.
void split_target(std::string_view target, Req& req);

struct Res {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type, body;
  void set_header(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
  void set_content(std::string b, std::string type) { body = std::move(b), content_type = std::move(type); }
};

// A JSON answer (one line); an error answer {"error": "<one line>"}.
void reply(Res& res, int status, const nlohmann::json& body);
void reply_error(Res& res, int status, std::string message);
// A ServiceCore error as its HTTP status (proofpipe/service/core.hpp's table).
void reply_status(Res& res, const Status& st);

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

struct Route {
  using Handler = std::function<void(Req&, Res&)>;
  std::vector<std::string> segments;  // "*": any one non-empty segment, captured
  std::vector<std::pair<std::string, Handler>> methods;
  std::string body_method;    // "POST" on /v1/jobs: the only method that reads a body
  bool on_io_thread = false;  // cheap and never blocking: /healthz, /readyz
  std::string allow;          // "GET, HEAD, POST"
};

struct Io;  // the Asio side: io_context, acceptor, threads (http_conn.cpp)

struct ApiServer::State {
  State(ServiceCore& c, ApiConfig cf);
  ~State();
  ServiceCore& core;
  ApiConfig cfg;
  std::vector<Route> routes;
  std::unique_ptr<Io> io;
  int port = 0;
  std::atomic<unsigned> large_bodies{0};
  std::mutex stop_mu;
  bool stopped = false;

  void install();  // the route table (http_api.cpp)
  // The route of `path` (filling req.matches), or nullptr.
  const Route* match(Req& req) const;
  // The bearer token of the request, or what is wrong with it (empty: fine).
  std::string auth_problem(const Req& req) const;
  std::string body_too_large() const {
    return fmt::format("the request body is larger than {} bytes (serve --max-upload)", cfg.max_body_bytes);
  }
  void reply_busy(Res& res) const {
    res.set_header("Retry-After", "1");
    reply_error(res, 503, fmt::format("{} large uploads are in progress: retry shortly", cfg.max_large_bodies));
  }
  void submit(Req& req, Res& res);
  void list(const Req& req, Res& res);
  void get_job(const Req& req, Res& res);
  void get_proof(const Req& req, Res& res);
  void cancel(const Req& req, Res& res);
  void readyz(Res& res);

  // http_conn.cpp: bind, serve on the I/O threads, and stop.
  Status listen();
  void run();
  void shutdown();
};

}  // namespace proofpipe::service
