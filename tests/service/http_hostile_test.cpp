// The API server against hostile clients (proofpipe/service/http_api.hpp), over
// raw sockets on 127.0.0.1: health probes answered while 500 clients trickle
// their headers a byte at a time, a request line without a newline and too
// many headers cut off as the bytes arrive, JSON nested far deeper than the
// parser allows, a form of more files than the documented 1024, PUT without
// a body, and kept-alive requests answered without Nagle's delay. Every loop
// here is bounded in rounds and time.
#include <netinet/tcp.h>
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/api_fixture.hpp"

namespace proofpipe::test {
namespace {

using Clock = std::chrono::steady_clock;

// From `source` (an address of 127.0.0.0/8, all this host's loopback).
int connect_to(int port, const char* source = "127.0.0.1") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    ::close(fd);
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Whatever the server sends within `ms` or until it closes.
std::string read_for(int fd, int ms) { return read_from(fd, ms); }

// Sends what it can of `bytes` without blocking; the bytes the server took.
size_t send_some(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) break;
    sent += size_t(n);
  }
  return sent;
}

// One whole answer (headers and a Content-Length body), or what came in 2 s.
std::string read_response(int fd) {
  std::string got;
  char buf[4096];
  while (true) {
    const auto end = got.find("\r\n\r\n");
    const auto cl = got.find("Content-Length: ");
    if (end != std::string::npos && cl != std::string::npos && cl < end &&
        got.size() >= end + 4 + std::stoul(got.substr(cl + 16)))
      return got;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) return got;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return got;
    got.append(buf, size_t(n));
  }
}

TEST_F(ApiTest, HealthAndReadinessAnswerWhile500ClientsTrickleHeaders) {
  constexpr int kSlow = 500;
  std::vector<int> slow;
  // From four addresses other than the probes' (one address holds at most
  // 128 of the 1,024 places), so all 500 are held.
  const char* sources[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
  for (int i = 0; i < kSlow; ++i) {
    const int fd = connect_to(server->port(), sources[i % 4]);
    ASSERT_GE(fd, 0) << "connection " << i;
    slow.push_back(fd);
  }
  const std::string head = "GET /v1/keys HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  std::vector<double> ms;
  // Eight rounds: each slow client sends one more byte, then one probe of
  // each route goes in on a fresh connection (about 3 s in all when the
  // server copes; each probe gives up after 2 s when it does not).
  for (size_t round = 0; round < 8; ++round) {
    for (int fd : slow) send_some(fd, std::string(1, head[round]));
    for (const char* path : {"/healthz", "/readyz"}) {
      const auto t0 = Clock::now();
      const std::string got = raw(std::string("GET ") + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << path << " round " << round << ": '" << got << "'";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int fd : slow) ::close(fd);
  std::sort(ms.begin(), ms.end());
  // Generous for a loaded test machine; the benchmark holds the 100 ms bar.
  EXPECT_LT(ms.back(), 1000.0) << "slowest probe";
}

TEST_F(ApiTest, ARequestLineWithoutNewlineIsRefusedAt16KiB) {
  const int fd = connect_to(server->port());
  ASSERT_GE(fd, 0);
  // 1 MiB of request line offered and never a newline: the server answers
  // once it has more than 16 KiB, without waiting for the rest.
  const std::string line = "GET /" + std::string(1 << 20, 'a');
  const size_t sent = send_some(fd, line);
  const std::string got = read_for(fd, 2000);
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 431", 0), 0u) << "sent " << sent << ", got '" << got.substr(0, 200) << "'";
  EXPECT_NE(got.find("16384"), std::string::npos) << got.substr(0, 400);
}

TEST_F(ApiTest, MoreThan100HeadersAreRefused) {
  std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 101; ++i) req += "X-H" + std::to_string(i) + ": v\r\n";
  const std::string got = raw(req + "\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 431", 0), 0u) << got;
  EXPECT_NE(got.find("100 headers"), std::string::npos) << got;
  std::string ok = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 99; ++i) ok += "X-H" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(raw(ok + "\r\n").rfind("HTTP/1.1 200", 0), 0u);
}

TEST_F(ApiTest, JsonNested100000DeepIs400NotACrash) {
  constexpr int kDeep = 100000;
  for (const std::string& at : {std::string(R"({"key":"k","inputs":{"a":{"b":)"), std::string(R"({"key":"k","x":)")}) {
    const std::string body = at + std::string(kDeep, '[') + std::string(kDeep, ']') + (at.size() > 20 ? "}}}" : "}");
    const auto r = post_json(body);
    ASSERT_EQ(status_of(r), 400) << at;
    EXPECT_NE(body_of(r)["error"].get<std::string>().find("64"), std::string::npos) << r->body;
  }
  // 64 deep is fine (the inputs' own nesting counts from the body's top).
  const std::string ok = R"({"key":"k","inputs":{"a":{"b":)" + std::string(61, '[') + std::string(61, ']') + "}}}";
  EXPECT_EQ(status_of(post_json(ok)), 201) << ok;
  EXPECT_EQ(core.submitted().size(), 1u);
}

TEST_F(ApiTest, PutWithoutABodyIs405) {
  const std::string got = raw("PUT /v1/jobs HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 405", 0), 0u) << got;
  EXPECT_NE(got.find("Allow: GET, HEAD, POST"), std::string::npos) << got;
}

TEST_F(ApiTest, AFormOfMoreThan1024FilesSaysSo) {
  httplib::MultipartFormDataItems items = {{"key", "k", "", ""}};
  for (int i = 0; i < 1025; ++i) items.push_back({"witness", "w", "w" + std::to_string(i) + ".wtns", ""});
  const auto over = client->Post("/v1/jobs", items);
  ASSERT_EQ(status_of(over), 413);
  EXPECT_NE(body_of(over)["error"].get<std::string>().find("1024 files"), std::string::npos) << over->body;
  items.pop_back();
  EXPECT_EQ(status_of(client->Post("/v1/jobs", items)), 201);
  ASSERT_EQ(core.submitted().size(), 1u);
  EXPECT_EQ(core.submitted()[0].uploads.size(), 1024u);
}

TEST_F(ApiTest, KeptAliveRequestsAnswerWithoutNaglesDelay) {
  const int fd = connect_to(server->port());
  ASSERT_GE(fd, 0);
  const int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  // Nagle on the server side holds an answer's second write for the
  // client's delayed ACK (up to 40 ms on Linux): five answers took 133 ms
  // on the old server, and take about 1 ms without it.
  const auto t0 = Clock::now();
  int answered = 0;
  for (int i = 0; i < 5; ++i) {
    const std::string req = "GET /v1/keys HTTP/1.1\r\nHost: x\r\n\r\n";
    if (send_some(fd, req) != req.size()) break;
    const std::string got = read_response(fd);
    if (got.rfind("HTTP/1.1 200", 0) != 0) break;
    ++answered;
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ::close(fd);
  EXPECT_EQ(answered, 5);
  EXPECT_LT(ms, 75.0);
}

}  // namespace
}  // namespace proofpipe::test
