// The API server's connection limits (service/src/http_conn.cpp), over raw
// sockets from 127.0.0.1 and 127.0.0.2 (both this host's loopback):
// --max-connections and the per-address share (503 and closed), the header
// deadline, the minimum body rate (408), and an unauthenticated body never
// read (401 and closed at once). Deadlines are cut to a few hundred
// milliseconds through ApiConfig so each test ends within about 2 s.
#include <poll.h>

#include <chrono>
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
std::string read_until_close(int fd, int ms, bool* closed = nullptr) {
  std::string got;
  char buf[4096];
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  if (closed) *closed = false;
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (::poll(&p, 1, int(std::max<int64_t>(left, 0))) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    got.append(buf, size_t(n));
  }
  return got;
}

std::string ask(int fd, const std::string& request) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != ssize_t(request.size())) return {};
  return read_until_close(fd, 300);
}

TEST_F(ApiTest, ConnectionsAreCappedInAllAndPerAddress) {
  ApiConfig cfg;
  cfg.max_connections = 8;  // one address: 4
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
    admitted = ask(fd, health).rfind("HTTP/1.1 200", 0) == 0;
    ::close(fd);
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(admitted);
  for (int fd : held) ::close(fd);
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
