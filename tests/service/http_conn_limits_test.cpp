// The API server's connection limits (service/src/http_conn.cpp), over raw
// sockets from 127.0.0.1, .2 and .3 (all this host's loopback):
// --max-connections and the per-address share (503 and closed), the health
// places that answer /healthz while every other place is taken, the header
// deadline, the minimum body rates (408), and an unauthenticated body never
// read (401 and closed at once). Deadlines are cut to a few hundred
// milliseconds through ApiConfig so each test ends within about 2 s, but for
// the thousand-connection one (about 5 s).
#include <poll.h>
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/api_fixture.hpp"

namespace proofpipe::test {
namespace {

using Clock = std::chrono::steady_clock;

// A connection to the server from `source` (an address of 127.0.0.0/8).
int connect_from(int port, const char* source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(uint16_t(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// What the server sends until it closes or `ms` pass; *closed says which.
std::string read_until_close(int fd, int ms, bool* closed = nullptr) { return read_from(fd, ms, false, closed); }

std::string ask(int fd, const std::string& request) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != ssize_t(request.size())) return {};
  return read_until_close(fd, 300);
}

// One answer to `request` on `fd`: read until its headers and Content-Length
// bytes of body are in, the server closes, or `ms` pass.
std::string round_trip(int fd, const std::string& request, int ms = 3000) {
  if (fd < 0 || ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != ssize_t(request.size())) return {};
  return read_from(fd, ms, /*one_answer=*/true);
}

const std::string kHealth = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string kHealthClose = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
const std::string kKeys = "GET /v1/keys HTTP/1.1\r\nHost: x\r\n\r\n";

bool ok_kept_alive(const std::string& answer) {
  return answer.rfind("HTTP/1.1 200", 0) == 0 && answer.find("Connection: close") == std::string::npos;
}

// Each connection is a descriptor here and one in the server (this process):
// the soft limit goes to the hard one for the thousand-connection test.
bool raise_fd_limit(rlim_t need) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  return lim.rlim_cur >= need;
}

TEST_F(ApiTest, ConnectionsAreCappedInAllAndPerAddress) {
  ApiConfig cfg;
  cfg.max_connections = 8;
  cfg.max_connections_per_address = 4;
  start(cfg);
  const std::string health = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(connect_from(server->port(), "127.0.0.1"));
    ASSERT_EQ(ask(held.back(), health).rfind("HTTP/1.1 200", 0), 0u) << i;  // admitted, and kept alive
  }
  int over = connect_from(server->port(), "127.0.0.1");
  bool closed = false;
  const std::string refused = read_until_close(over, 2000, &closed);
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
  EXPECT_NE(refused.find("too many connections"), std::string::npos) << refused;
  EXPECT_TRUE(closed);
  ::close(over);
  // Another address still gets in: one client cannot take every place.
  for (int i = 0; i < 4; ++i) {
    held.push_back(connect_from(server->port(), "127.0.0.2"));
    ASSERT_EQ(ask(held.back(), health).rfind("HTTP/1.1 200", 0), 0u) << i;
  }
  // Eight held: a third address is refused too.
  over = connect_from(server->port(), "127.0.0.3");
  EXPECT_EQ(read_until_close(over, 2000).rfind("HTTP/1.1 503", 0), 0u);
  ::close(over);
  // A place given back is taken again.
  ::close(held.front());
  held.erase(held.begin());
  bool admitted = false;
  for (int i = 0; i < 100 && !admitted; ++i) {
    const int fd = connect_from(server->port(), "127.0.0.1");
    // Kept alive: an ordinary place, not a health place (answered and closed).
    admitted = ok_kept_alive(ask(fd, health));
    ::close(fd);
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(admitted);
  for (int fd : held) ::close(fd);
}

// Were each address allowed half the places, two would hold all 1,024 and
// /healthz would answer 503 to everyone. With an eighth each, 1,100 idle
// connections from two addresses leave room, and a prober from a third
// address is answered.
TEST_F(ApiTest, TwoAddressesCannotShutOutAHealthProbe) {
  constexpr int kHeld = 1100, kProbes = 200;
  if (!raise_fd_limit(2 * kHeld + 256)) GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below " << 2 * kHeld + 256;
  ApiConfig cfg;                  // 1,024 places, the default share
  cfg.header_timeout_ms = 30000;  // the idle ones stay until the probes are done
  start(cfg);
  std::vector<int> held;
  for (int i = 0; i < kHeld; ++i) {
    held.push_back(connect_from(server->port(), i % 2 ? "127.0.0.3" : "127.0.0.2"));
    ASSERT_GE(held.back(), 0) << i << ": " << std::strerror(errno);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // every one accepted
  int ok = 0;
  for (int i = 0; i < kProbes; ++i) {
    const int fd = connect_from(server->port(), "127.0.0.1");
    ok += round_trip(fd, kHealthClose).rfind("HTTP/1.1 200", 0) == 0;
    if (fd >= 0) ::close(fd);
  }
  for (int fd : held) ::close(fd);
  EXPECT_GE(ok, kProbes * 99 / 100) << ok << " of " << kProbes << " probes answered 200";
}

// One address holds at most max_connections / 8 places: its 129th of 1,024
// is refused (503), while another address still gets an ordinary place.
TEST_F(ApiTest, OneAddressHoldsAnEighthOfThePlaces) {
  if (!raise_fd_limit(2 * 140 + 256)) GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is too low";
  ApiConfig cfg;
  cfg.header_timeout_ms = 30000;
  start(cfg);
  std::vector<int> held;
  for (int i = 0; i < 128; ++i) {
    held.push_back(connect_from(server->port(), "127.0.0.2"));
    ASSERT_TRUE(ok_kept_alive(round_trip(held.back(), kHealth))) << i;
  }
  const int over = connect_from(server->port(), "127.0.0.2");
  const std::string refused = round_trip(over, kKeys);
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
  EXPECT_NE(refused.find("too many connections"), std::string::npos) << refused;
  EXPECT_NE(refused.find("Retry-After: 1"), std::string::npos) << refused;
  ::close(over);
  const int other = connect_from(server->port(), "127.0.0.3");
  EXPECT_TRUE(ok_kept_alive(round_trip(other, kKeys)));
  ::close(other);
  for (int fd : held) ::close(fd);
}

// Every ordinary place taken: /healthz and /readyz are still answered on the
// health places (and closed); any other route there is 503, and so is a
// connection that sends nothing within kHealthHeaderMs.
TEST_F(ApiTest, HealthPlacesAnswerWhileEveryPlaceIsTaken) {
  ApiConfig cfg;
  cfg.max_connections = 16;
  cfg.max_connections_per_address = 8;
  start(cfg);
  std::vector<int> held;
  for (int i = 0; i < 16; ++i) {
    held.push_back(connect_from(server->port(), i % 2 ? "127.0.0.3" : "127.0.0.2"));
    ASSERT_TRUE(ok_kept_alive(round_trip(held.back(), kHealth))) << i;
  }
  int ok = 0;
  for (int i = 0; i < 50; ++i) {
    const int fd = connect_from(server->port(), "127.0.0.1");
    const std::string got = round_trip(fd, i % 5 ? kHealth : "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
    ok += got.rfind("HTTP/1.1 200", 0) == 0 && got.find("Connection: close") != std::string::npos;
    ::close(fd);
  }
  EXPECT_EQ(ok, 50);
  const int fd = connect_from(server->port(), "127.0.0.1");
  const std::string other = round_trip(fd, kKeys);
  ::close(fd);
  EXPECT_EQ(other.rfind("HTTP/1.1 503", 0), 0u) << other;
  EXPECT_NE(other.find("too many connections"), std::string::npos) << other;
  const int idle = connect_from(server->port(), "127.0.0.1");
  const auto t0 = Clock::now();
  bool closed = false;
  const std::string late = read_until_close(idle, 5000, &closed);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ::close(idle);
  EXPECT_EQ(late.rfind("HTTP/1.1 503", 0), 0u) << late;
  EXPECT_TRUE(closed);
  EXPECT_GE(ms, kHealthHeaderMs * 0.8);
  EXPECT_LT(ms, kHealthHeaderMs + 2000.0);
  for (int h : held) ::close(h);
}

TEST_F(ApiTest, HeadersNotInByTheDeadlineCloseTheConnection) {
  ApiConfig cfg;
  cfg.header_timeout_ms = 300;
  start(cfg);
  const int fd = connect_from(server->port(), "127.0.0.1");
  const auto t0 = Clock::now();
  ASSERT_EQ(::send(fd, "GET /healthz HTTP/1.1\r\n", 23, MSG_NOSIGNAL), 23);
  bool closed = false;
  const std::string got = read_until_close(fd, 3000, &closed);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_EQ(got, "");
  EXPECT_GE(ms, 250.0);
  EXPECT_LT(ms, 2000.0);
}

TEST_F(ApiTest, ABodySlowerThanTheMinimumRateIsCutOff) {
  ApiConfig cfg;
  cfg.body_grace_ms = 300;
  start(cfg);
  const int fd = connect_from(server->port(), "127.0.0.1");
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"key\"";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), ssize_t(head.size()));
  bool closed = false;
  const std::string got = read_until_close(fd, 3000, &closed);
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 408", 0), 0u) << got;
  EXPECT_TRUE(closed);
  EXPECT_TRUE(core.submitted().empty());
}

// At the small-body minimum (64 KiB/s) a trickled 1 GiB upload would hold a
// large-body place for 4.5 hours. A body over kLargeBodyBytes must keep up
// kMinLargeBodyBytesPerSecond: one sent at 5x the small-body minimum, but
// under that, is cut off soon after the grace.
TEST_F(ApiTest, ALargeBodyTrickledBelowItsRateIsCutOff) {
  ApiConfig cfg;
  cfg.body_grace_ms = 300;
  start(cfg);
  const int fd = connect_from(server->port(), "127.0.0.1");
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), ssize_t(head.size()));
  const std::string chunk(64 * 1024, ' ');  // every 200 ms: 320 KiB/s
  const auto t0 = Clock::now();
  std::string got;
  bool closed = false;
  while (got.empty() && !closed && Clock::now() - t0 < std::chrono::seconds(4)) {
    if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT) <= 0) break;
    got = read_until_close(fd, 200, &closed);
  }
  if (got.empty()) got = read_until_close(fd, 1000, &closed);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 408", 0), 0u) << got;
  EXPECT_NE(got.find(std::to_string(kMinLargeBodyBytesPerSecond)), std::string::npos) << got;
  EXPECT_LT(s, 3.0);
  EXPECT_TRUE(core.submitted().empty());
}

TEST_F(ApiTest, AnUnauthenticatedBodyIsNeverRead) {
  ApiConfig cfg;
  cfg.token = "s3cret-token";
  start(cfg);
  const int fd = connect_from(server->port(), "127.0.0.1");
  // 300 MB announced, 4 MiB sent at once: the answer comes after the
  // headers, and the connection ends without the rest being waited for.
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 300000000\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), ssize_t(head.size()));
  const std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 4; ++i)
    if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT) <= 0) break;
  const auto t0 = Clock::now();
  bool closed = false;
  const std::string got = read_until_close(fd, 5000, &closed);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 401", 0), 0u) << got.substr(0, 200);
  EXPECT_NE(got.find("WWW-Authenticate: Bearer"), std::string::npos);
  EXPECT_TRUE(closed);
  EXPECT_LT(ms, 3000.0);
  EXPECT_TRUE(core.submitted().empty());
}

}  // namespace
}  // namespace proofpipe::test
