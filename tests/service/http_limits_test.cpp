// The API's guards (proofpipe/service/http_api.hpp): the bearer token (401, and
// /healthz open), the body limit (413, also before a 100-continue body is
// sent), bodies without a length or compressed (411/415), the large-upload
// places (503 while taken, free again after), a port in use, stop(); and the
// helpers serve uses: parse_listen, is_loopback, constant_time_equal,
// read_token_file.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "support/api_fixture.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

const char* kToken = "s3cret-token_0123456789";

TEST_F(ApiTest, TokenGuardsEveryRouteButHealthz) {
  ApiConfig cfg;
  cfg.token = kToken;
  start(cfg);
  for (const char* path : {"/v1/jobs", "/v1/jobs/x", "/v1/keys", "/readyz", "/metrics", "/nowhere"}) {
    SCOPED_TRACE(path);
    const auto none = client->Get(path);
    EXPECT_EQ(status_of(none), 401);
    EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer realm=\"proofpipe\"");
    client->set_bearer_token_auth("s3cret-token_0123456788");  // last byte differs
    EXPECT_EQ(status_of(client->Get(path)), 401);
    client->set_bearer_token_auth("s3cret");  // a prefix
    EXPECT_EQ(status_of(client->Get(path)), 401);
    client->set_bearer_token_auth(kToken);
    EXPECT_NE(status_of(client->Get(path)), 401);
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  EXPECT_EQ(status_of(client->Get("/healthz")), 200);
  // A submission without the token never reaches the core.
  EXPECT_EQ(status_of(post_json(R"({"key":"k","witnesses":["/a"]})")), 401);
  EXPECT_TRUE(core.submitted().empty());
  // The scheme is case-insensitive ("bearer"), the token is not.
  httplib::Headers h = {{"Authorization", std::string("bearer ") + kToken}};
  EXPECT_EQ(status_of(client->Get("/v1/keys", h)), 200);
  h = {{"Authorization", "Basic dXNlcjpwYXNz"}};
  EXPECT_EQ(status_of(client->Get("/v1/keys", h)), 401);
}

TEST_F(ApiTest, BodyOverTheLimitIs413AndNeverReachesTheCore) {
  ApiConfig cfg;
  cfg.max_body_bytes = 4096;
  start(cfg);
  const std::string big = R"({"key":"k","witnesses":[")" + std::string(5000, 'x') + R"("]})";
  const auto r = post_json(big);
  EXPECT_EQ(status_of(r), 413);
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("4096"), std::string::npos);
  const httplib::MultipartFormDataItems items = {{"key", "k", "", ""},
                                                 {"witness", std::string(5000, 'w'), "w.wtns", ""}};
  EXPECT_EQ(status_of(client->Post("/v1/jobs", items)), 413);
  EXPECT_TRUE(core.submitted().empty());
  // Within the limit, the same server takes it.
  EXPECT_EQ(status_of(post_json(R"({"key":"k","witnesses":["/a"]})")), 201);
}

TEST_F(ApiTest, ExpectContinueIsRefusedBeforeTheBodyIsSent) {
  ApiConfig cfg;
  cfg.token = kToken;
  cfg.max_body_bytes = 1 << 20;
  start(cfg);
  const auto head = [](const std::string& auth, size_t length) {
    return "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + auth +
           "Expect: 100-continue\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
  };
  // No body follows the headers: an answer at all shows it came before the body.
  EXPECT_EQ(raw(head("", 10)).rfind("HTTP/1.1 401", 0), 0u);
  const std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
  const std::string too_big = raw(head(auth, 2 << 20));
  EXPECT_EQ(too_big.rfind("HTTP/1.1 413", 0), 0u) << too_big;
  EXPECT_NE(too_big.find("\"error\""), std::string::npos) << too_big;
  EXPECT_EQ(raw(head(auth, 100)).rfind("HTTP/1.1 100", 0), 0u);
}

TEST_F(ApiTest, ChunkedAndCompressedBodiesAreRefused) {
  const std::string chunked =
      raw("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
          "2\r\n{}\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 411", 0), 0u) << chunked;
  const std::string gzip =
      raw("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
          "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(gzip.rfind("HTTP/1.1 415", 0), 0u) << gzip;
  const std::string unsized = raw("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n");
  EXPECT_EQ(unsized.rfind("HTTP/1.1 411", 0), 0u) << unsized;
  EXPECT_TRUE(core.submitted().empty());
}

TEST_F(ApiTest, LargeUploadsTakePlacesAndGiveThemBack) {
  ApiConfig cfg;
  cfg.max_large_bodies = 1;
  start(cfg);
  core.hold_uploads();
  const httplib::MultipartFormDataItems big = {{"key", "k", "", ""},
                                               {"witness", std::string(kLargeBodyBytes + 1, 'w'), "w.wtns", ""}};
  auto first = std::async(std::launch::async, [&] {
    httplib::Client c("127.0.0.1", server->port());
    return c.Post("/v1/jobs", big);
  });
  for (int i = 0; i < 5000 && core.submits_waiting() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(core.submits_waiting(), 1u);
  const auto second = client->Post("/v1/jobs", big);
  EXPECT_EQ(status_of(second), 503);
  EXPECT_EQ(second->get_header_value("Retry-After"), "1");
  EXPECT_EQ(status_of(post_json(R"({"key":"k","witnesses":["/a"]})")), 201);  // small bodies need no place
  core.release();
  EXPECT_EQ(status_of(first.get()), 201);
  // The place is free again once the first answer went out.
  EXPECT_EQ(status_of(client->Post("/v1/jobs", big)), 201);
}

TEST_F(ApiTest, PortInUseIsOneLineNamingIt) {
  ApiConfig cfg;
  cfg.host = "127.0.0.1";
  cfg.port = server->port();
  const auto again = ApiServer::start(core, cfg);
  ASSERT_FALSE(again.is_ok());
  const std::string msg = again.status().message();
  EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(server->port())), std::string::npos) << msg;
  EXPECT_NE(msg.find("in use"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST_F(ApiTest, StopIsIdempotentAndClosesThePort) {
  server->stop();
  server->stop();
  EXPECT_FALSE(client->Get("/healthz"));
}

TEST(ParseListen, AcceptsIpLiteralsWithPorts) {
  using P = std::pair<std::string, int>;
  const std::pair<const char*, P> ok[] = {{"127.0.0.1:7300", {"127.0.0.1", 7300}},
                                          {"[::1]:7300", {"::1", 7300}},
                                          {"0.0.0.0:7300", {"0.0.0.0", 7300}},
                                          {"[::]:0", {"::", 0}},
                                          {"10.1.2.3:65535", {"10.1.2.3", 65535}}};
  for (const auto& [text, want] : ok) {
    const auto r = parse_listen(text);
    ASSERT_TRUE(r.is_ok()) << text << ": " << r.status().to_string();
    EXPECT_EQ(*r, want) << text;
  }
  for (const char* text :
       {"", "7300", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", "localhost:7300",
        "::1:7300", "[::1]", "[127.0.0.1]:80", "[::1:80", "256.0.0.1:80", "127.0.0.1:80x"}) {
    const auto r = parse_listen(text);
    ASSERT_FALSE(r.is_ok()) << text;
    EXPECT_NE(r.status().message().find("--listen"), std::string::npos);
  }
}

TEST(IsLoopback, OnlyThisHostsAddresses) {
  for (const char* h : {"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"}) EXPECT_TRUE(is_loopback(h)) << h;
  for (const char* h : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "::2", "::ffff:10.0.0.1", "localhost", ""})
    EXPECT_FALSE(is_loopback(h)) << h;
}

TEST(ConstantTimeEqual, EqualOnlyWhenEveryByteAndTheLengthAgree) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("abd", "abc"));
  EXPECT_FALSE(constant_time_equal("xbc", "abc"));
  EXPECT_FALSE(constant_time_equal("ab", "abc"));
  EXPECT_FALSE(constant_time_equal("abcd", "abc"));
  EXPECT_FALSE(constant_time_equal("", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", ""));
  EXPECT_FALSE(constant_time_equal(std::string("ab\0", 3), "ab"));
}

TEST(ReadTokenFile, ARegularFileOfOnePrintableLine) {
  TempDir tmp;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(tmp / name, std::ios::binary) << text;
    fs::permissions(tmp / name, fs::perms::owner_read | fs::perms::owner_write);
    return tmp / name;
  };
  auto t = read_token_file(write("t", "tok-1\n"));
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  EXPECT_EQ(*t, "tok-1");
  t = read_token_file(write("t2", "tok-2"));
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(*t, "tok-2");

  fs::create_symlink(tmp / "t", tmp / "link");
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0600), 0);
  fs::create_directory(tmp / "dir");
  const std::pair<fs::path, const char*> bad[] = {
      {write("empty", ""), "empty"},
      {write("nl", "\n"), "empty"},
      {write("two", "a\n\n"), "space"},
      {write("sp", "a b\n"), "space"},
      {write("big", std::string(5000, 'a')), "larger"},
      {tmp / "link", "symbolic link"},
      {tmp / "fifo", "FIFO"},
      {tmp / "dir", "directory"},
      {tmp / "missing", "No such file"},
  };
  for (const auto& [path, words] : bad) {
    const auto r = read_token_file(path);
    ASSERT_FALSE(r.is_ok()) << path;
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(path.string()), std::string::npos) << r.status().message();
  }
}

// The token is a secret: a file others can read has leaked it, and one
// another user owns could hold a token of their choosing. Both refused, one
// line naming the file; owner-only (0600, 0400) is taken.
TEST(ReadTokenFile, OnlyAnOwnerOnlyFileOfThisUser) {
  TempDir tmp;
  const auto write = [&](const std::string& name, fs::perms mode) {
    std::ofstream(tmp / name, std::ios::binary) << "tok\n";
    fs::permissions(tmp / name, mode);
    return tmp / name;
  };
  using P = fs::perms;
  ASSERT_TRUE(read_token_file(write("rw", P::owner_read | P::owner_write)).is_ok());
  ASSERT_TRUE(read_token_file(write("r", P::owner_read)).is_ok());
  const fs::path bad[] = {
      write("0644", P::owner_read | P::owner_write | P::group_read | P::others_read),
      write("0640", P::owner_read | P::owner_write | P::group_read),
      write("0604", P::owner_read | P::owner_write | P::others_read),
      write("0620", P::owner_read | P::owner_write | P::group_write),
  };
  for (const fs::path& path : bad) {
    const auto r = read_token_file(path);
    ASSERT_FALSE(r.is_ok()) << path;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().to_string();
    EXPECT_NE(r.status().message().find(path.string()), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("chmod 600"), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
  // Another user's file, owner-only for them: only root can make one here.
  if (::geteuid() != 0) GTEST_SKIP() << "chown needs root";
  const fs::path foreign = write("foreign", P::owner_read | P::owner_write);
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  const auto r = read_token_file(foreign);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().to_string();
  EXPECT_NE(r.status().message().find(foreign.string()), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("uid 65534"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace proofpipe::test
