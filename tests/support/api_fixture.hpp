// The API tests' fixture: an ApiServer on 127.0.0.1, a free port, over a
// FakeCore, an httplib client for it, and a raw socket for requests httplib's
// client will not send (Expect: 100-continue, chunked bodies).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "proofpipe/service/http_api.hpp"
#include "support/fake_core.hpp"

namespace proofpipe::test {

// What the server sends on raw socket `fd` until it closes or `ms` pass
// (*closed says which), or, with `one_answer`, until one answer's headers
// and Content-Length bytes of body are in.
inline std::string read_from(int fd, int ms, bool one_answer = false, bool* closed = nullptr) {
  using Clock = std::chrono::steady_clock;
  std::string got;
  char buf[4096];
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  if (closed) *closed = false;
  while (Clock::now() < end) {
    const size_t head = got.find("\r\n\r\n");
    const size_t cl = got.find("Content-Length: ");
    if (one_answer && head != std::string::npos && cl != std::string::npos && cl < head &&
        got.size() >= head + 4 + std::stoul(got.substr(cl + 16)))
      break;
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

class ApiTest : public ::testing::Test {
 protected:
  void start(ApiConfig cfg = {}) {
    cfg.host = "127.0.0.1";
    cfg.port = 0;
    auto s = ApiServer::start(core, cfg);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    server = std::move(s).value();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  void SetUp() override { start(); }

  // A JSON answer's body; fails the test if it is not one line of JSON.
  static nlohmann::json body_of(const httplib::Result& r) {
    EXPECT_TRUE(r) << "no answer: " << httplib::to_string(r.error());
    if (!r) return nullptr;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << r->body;
    EXPECT_EQ(r->body.find('\n'), r->body.size() - 1) << "not one line: " << r->body;
    return nlohmann::json::parse(r->body, nullptr, false);
  }
  // The status of an answer, and that an error carries {"error": "..."}.
  static int status_of(const httplib::Result& r) {
    if (!r) return -1;
    if (r->status >= 400 && r->get_header_value("Content-Type") == "application/json") {
      const auto j = body_of(r);
      EXPECT_TRUE(j.is_object() && j.contains("error") && j["error"].is_string()) << r->body;
    }
    return r->status;
  }
  httplib::Result post_json(const std::string& body, const std::string& path = "/v1/jobs") {
    return client->Post(path.c_str(), body, "application/json");
  }

  // Sends `request` as raw bytes and returns what came back within 5 s
  // (headers, and whatever body the server sent).
  std::string raw(const std::string& request) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(server->port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string got;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == ssize_t(request.size())) {
      char buf[4096];
      // Until the answer's headers and body are in (the server may keep the
      // connection open; a 100 Continue has no body).
      while (true) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, size_t(n));
        const auto end = got.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        const auto cl = got.find("Content-Length: ");
        if (cl == std::string::npos || cl > end || got.size() >= end + 4 + std::stoul(got.substr(cl + 16))) break;
      }
    }
    ::close(fd);
    return got;
  }

  FakeCore core;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<httplib::Client> client;
};

}  // namespace proofpipe::test
