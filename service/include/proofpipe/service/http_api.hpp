// The HTTP/JSON API of `proofpipe serve`, version 1 (docs/api.md): an
// asynchronous Boost.Beast server (a few I/O threads, no thread per
// connection) that turns requests into ServiceCore calls on a small pool of
// handler threads and their answers into JSON. It never touches the journal
// or the engine itself.
//
//   POST   /v1/jobs                     201 new | 200 same id, same content | 409 other content
//   GET    /v1/jobs?state=&limit=       200 {"jobs": [...]}, newest first
//   GET    /v1/jobs/{id}                200 job | 404
//   GET    /v1/jobs/{id}/proofs/{name}  200 {"proof": ..., "public": ...} | 404
//   DELETE /v1/jobs/{id}                200 job (cancelled, or as it ended) | 404
//   GET    /v1/keys                     200 {"keys": [...]}
//   GET    /healthz                     200 while the process serves (never needs the token)
//   GET    /readyz                      200 | 503 {"why_not": ...}
//   GET    /metrics                     200 Prometheus text 0.0.4
//
// Every error is one line {"error": "..."}; a known path with another
// method is 405 with Allow. With a token, every route but /healthz needs
// "Authorization: Bearer <token>" (else 401 and WWW-Authenticate).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/core.hpp"
#include "proofpipe/service/serve.hpp"

namespace proofpipe::service {

struct ApiConfig {
  std::string host = "127.0.0.1";
  int port = 7300;                              // 0: any free port (ApiServer::port() says which)
  std::string token;                            // empty: no authentication (loopback only: serve enforces it)
  uint64_t max_body_bytes = uint64_t(1) << 30;  // --max-upload: one request body
  // Submissions with a body over kLargeBodyBytes in memory at once; more
  // get 503 and Retry-After, so uploads cannot add up past this many times
  // max_body_bytes (each is read whole before the core sees it).
  unsigned max_large_bodies = 2;
  // Open connections (--max-connections), and the share of them one client
  // address may hold (0: max_connections / kAddressShareDivisor, at least
  // 1, so it takes 8 addresses, not 2, to fill every place). Over either,
  // a connection may still take one of the health places (below); past
  // those it is answered 503 and closed at once.
  unsigned max_connections = 1024;
  unsigned max_connections_per_address = 0;
  // A request's line and headers must be in within this long of the
  // connection being ready for it (also the idle keep-alive limit); a body
  // must keep up kMinBodyBytesPerSecond after the same grace.
  unsigned header_timeout_ms = 10000;
  unsigned body_grace_ms = 10000;
};
// The default per-address share: 1024 places give each address 128.
inline constexpr unsigned kAddressShareDivisor = 8;
// Places beyond max_connections kept for /healthz and /readyz, at most
// kHealthPlacesPerAddress of them to one address: a prober is answered
// while every ordinary place is taken. Such a connection must send its
// request within kHealthHeaderMs; it is answered and closed, and anything
// but a health route there is 503 (too many connections).
inline constexpr unsigned kHealthPlaces = 16;
inline constexpr unsigned kHealthPlacesPerAddress = 2;
inline constexpr unsigned kHealthHeaderMs = 1000;
// A body read at less than this on average (after the grace) is cut off:
// a client trickling an upload cannot hold its place for ever.
inline constexpr uint64_t kMinBodyBytesPerSecond = 64 * 1024;
// A body over kLargeBodyBytes holds one of the few large-body places, so it
// must come faster: 1 MiB/s (8 Mbit/s) bounds a 1 GiB upload to about
// 17 minutes after the grace, where 64 KiB/s would let it hold the place
// for 4.5 hours.
inline constexpr uint64_t kMinLargeBodyBytesPerSecond = 1024 * 1024;
// A body at most this large (a JSON submit, a DELETE) never waits for a
// large-body place.
inline constexpr uint64_t kLargeBodyBytes = uint64_t(1) << 20;

class ApiServer {
 public:
  // Binds first (a port in use, or an address not on this host, is one
  // error line naming host and port), then serves on its own threads.
  static Result<std::unique_ptr<ApiServer>> start(ServiceCore& core, const ApiConfig& cfg);
  ~ApiServer();  // stop()
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const;
  // Closes the listening socket and waits for the requests in progress.
  // Idempotent.
  void stop();

  struct State;  // the routes, the I/O threads and the handler pool (http_server.hpp)

 private:
  explicit ApiServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// --listen: "127.0.0.1:7300", "[::1]:7300", "0.0.0.0:7300" -> (host, port)
// with the IPv6 brackets removed. IP literals only (no names to resolve);
// port 0 to 65535.
Result<std::pair<std::string, int>> parse_listen(std::string_view text);

// 127.0.0.0/8, ::1 and ::ffff:127.x.y.z: reachable from this host only.
// 0.0.0.0 and :: (every address) are not loopback.
bool is_loopback(std::string_view host);

// a == b, in a time that depends only on the lengths, never on where the
// first difference is (a bearer token must not leak byte by byte).
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace proofpipe::service
