// The clients against a server that is not to be trusted: a raw socket on
// 127.0.0.1 in this process that writes whatever bytes a test gives it. A
// partition name that is not a stem writes nothing, an answer over the cap
// (body or headers) and one that trickles end in one error line naming the
// server, and the server's control characters reach the terminal escaped.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "client.hpp"
#include "proofpipe/service/job_json.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using service::Job;
using service::JobState;
using service::PartStatus;

// Accepts one connection at a time, reads the request (head and a
// Content-Length body) and hands the socket and the head to `answer`, which
// writes what it likes; then closes. Every wait is bounded.
class HostileServer {
 public:
  using Answer = std::function<void(HostileServer&, int fd, const std::string& head)>;

  explicit HostileServer(Answer answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~HostileServer() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool stopping() const { return stopping_; }

  // Writes all of `bytes`; false once the client has gone.
  static bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(size_t(n));
    }
    return true;
  }
  static bool send_answer(int fd, int status, const std::string& body) {
    return send_all(fd, "HTTP/1.1 " + std::to_string(status) +
                            " X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body);
  }

 private:
  void serve() {
    while (!stopping_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      timeval tv{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      std::string got;
      char buf[65536];
      size_t head_end = std::string::npos, want = 0;
      while (head_end == std::string::npos || got.size() < want) {
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, size_t(n));
        if (head_end == std::string::npos && (head_end = got.find("\r\n\r\n")) != std::string::npos) {
          const auto cl = got.find("Content-Length: ");
          want = head_end + 4 + (cl < head_end ? std::stoul(got.substr(cl + 16)) : 0);
        }
      }
      answer_(*this, c, got.substr(0, head_end));
      ::close(c);
    }
  }

  Answer answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

bool is_get(const std::string& head, const std::string& path) { return head.rfind("GET " + path + " ", 0) == 0; }

// A job answer: `names`, every partition in `st`, the job in `state`.
std::string job_answer(const std::string& id, JobState state, const std::vector<std::string>& names, PartStatus st,
                       const std::string& last_error = "") {
  Job j;
  j.id = id;
  j.key = "k";
  j.state = state;
  j.submitted_at = 1700000000;
  for (const auto& n : names) {
    service::PartitionInfo p;
    p.index = uint32_t(j.partitions.size());
    p.name = n;
    p.status = st;
    p.attempts = 1;
    p.last_error = last_error;
    j.partitions.push_back(p);
  }
  j.total = uint32_t(names.size());
  j.done = st == PartStatus::kDone ? j.total : 0;
  j.failed = st == PartStatus::kFailed ? j.total : 0;
  return service::dump_json(service::job_to_json(j, true));
}

const char* kProof = R"({"proof":{"pi_a":["1"],"protocol":"groth16"},"public":["7"]})";

// Every file under `dir`, as paths relative to it.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// `proofpipe ARGS`, killed after 30 s (so a client that waits forever fails
// the test instead of hanging it), and how long it took.
CommandResult pp(const std::string& args, double* seconds = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_command("timeout -s KILL 30 " + proofpipe() + " " + args);
  if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void expect_one_error_line(const CommandResult& r, const std::string& words) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
}

TEST(HostileServer, PartitionNamesThatAreNotStemsWriteNothing) {
  TempDir tmp;
  const fs::path out = tmp / "a" / "b" / "out";
  fs::create_directories(out);
  fs::create_directories(tmp / "abs");
  std::ofstream(tmp / "w.wtns") << "wtns";
  // Names that climb out of --out, or are absolute (inside tmp, so the test
  // writes nothing elsewhere even against a client that follows them).
  for (const std::string& bad :
       std::vector<std::string>{"../../escape", (tmp / "abs" / "x").string(), "..", "a/b", std::string(129, 'p')}) {
    SCOPED_TRACE(bad);
    HostileServer server([&](HostileServer&, int fd, const std::string& head) {
      if (head.rfind("POST /v1/jobs ", 0) == 0)
        HostileServer::send_answer(fd, 201, job_answer("j", JobState::kDone, {"ok", bad}, PartStatus::kDone));
      else if (head.find("/proofs/") != std::string::npos)
        HostileServer::send_answer(fd, 200, kProof);
      else
        HostileServer::send_answer(fd, 404, R"({"error":"no"})");
    });
    const auto r =
        pp("submit --server " + server.url() + " --key k --wait --out " + quote(out) + " " + quote(tmp / "w.wtns"));
    // The submit and progress lines, then the error as the last line.
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const auto last = r.output.rfind('\n', r.output.size() - 2) + 1;
    EXPECT_EQ(r.output.substr(last),
              "proofpipe: error: server " + server.url() + ": job 'j' names a partition '" + bad +
                  "', which is not a file name stem (A-Z a-z 0-9 . _ -, at most 128): " + "no proofs written\n");
    // Nothing at all was written: not the good partition, not the bad one.
    EXPECT_EQ(files_under(tmp.path()), (std::vector<std::string>{"a", "a/b", "a/b/out", "abs", "w.wtns"}));
  }
  // A stem (dots inside, 128 characters) is written as before.
  const std::string good = "s.1_a-" + std::string(122, 'z');
  HostileServer server([&](HostileServer&, int fd, const std::string& head) {
    if (head.rfind("POST /v1/jobs ", 0) == 0)
      HostileServer::send_answer(fd, 201, job_answer("j", JobState::kDone, {good}, PartStatus::kDone));
    else
      HostileServer::send_answer(fd, 200, kProof);
  });
  const auto r =
      pp("submit --server " + server.url() + " --key k --wait --out " + quote(out) + " " + quote(tmp / "w.wtns"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_under(out), (std::vector<std::string>{good + ".proof.json", good + ".public.json"}));
}

TEST(HostileServer, AnAnswerOverTheCapIsOneErrorLine) {
  // A Content-Length over the cap: refused before the body.
  HostileServer declared([](HostileServer& s, int fd, const std::string&) {
    HostileServer::send_all(fd,
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3221225472\r\n\r\n");
    const std::string mib(1 << 20, ' ');
    while (!s.stopping() && HostileServer::send_all(fd, mib)) {
    }
  });
  double took = 0;
  auto r = pp("jobs --server " + declared.url(), &took);
  expect_one_error_line(r, "server " + declared.url() + ": GET /v1/jobs: the answer is over 64 MiB");
  EXPECT_LT(took, 20) << r.output;

  // A chunked answer without end: read up to the cap, then cut.
  HostileServer endless([](HostileServer& s, int fd, const std::string&) {
    HostileServer::send_all(fd,
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    const std::string chunk = "100000\r\n" + std::string(1 << 20, ' ') + "\r\n";
    while (!s.stopping() && HostileServer::send_all(fd, chunk)) {
    }
  });
  r = pp("jobs --server " + endless.url() + " some-job", &took);
  expect_one_error_line(r, "server " + endless.url() + ": GET /v1/jobs/some-job: the answer is over 64 MiB");
  EXPECT_LT(took, 20) << r.output;
  // ... holding about the cap, not twice it (a string that doubles as it
  // grows reached 128 MiB): the client's peak RSS, its parent's only child.
  const auto rss = run_command(
      "python3 -c 'import resource, subprocess, sys; subprocess.run(sys.argv[1:], "
      "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' " +
      proofpipe() + " jobs --server " + endless.url() + " some-job");
  ASSERT_EQ(rss.exit_code, 0) << rss.output;
  EXPECT_LT(std::stol(rss.output), 100 * 1024) << "KiB at the peak";

  // Headers without end: cut at the head's own cap.
  HostileServer headers([](HostileServer& s, int fd, const std::string&) {
    HostileServer::send_all(fd, "HTTP/1.1 200 OK\r\n");
    std::string lines;
    for (int i = 0; i < 100; ++i) lines += "X-A: " + std::string(1000, 'b') + "\r\n";
    while (!s.stopping() && HostileServer::send_all(fd, lines)) {
    }
  });
  r = pp("jobs --server " + headers.url(), &took);
  expect_one_error_line(r, "server " + headers.url() + ": GET /v1/jobs: the answer is over 64 KiB of headers");
  EXPECT_LT(took, 20) << r.output;
}

TEST(HostileServer, AServerThatTricklesIsCutAtTheTimeout) {
  // One byte every 100 ms: each read is quick, the whole never comes. The
  // head trickles in one case, the body in the other.
  for (const bool in_head : {true, false}) {
    SCOPED_TRACE(in_head ? "head" : "body");
    HostileServer server([&](HostileServer& s, int fd, const std::string&) {
      HostileServer::send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n" + std::string(in_head ? "" : "\r\n"));
      const auto t0 = std::chrono::steady_clock::now();
      while (!s.stopping() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(25) &&
             HostileServer::send_all(fd, in_head ? "X-A: b\r\n" : " "))
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
    double took = 0;
    const auto r = pp("cancel --timeout 2 --server " + server.url() + " j", &took);
    expect_one_error_line(r, "server " + server.url() + ": DELETE /v1/jobs/j: no whole answer within 2 s (--timeout)");
    EXPECT_GE(took, 1.9) << r.output;
    EXPECT_LT(took, 10) << r.output;
  }
  // --timeout must be a positive number of seconds.
  EXPECT_EQ(pp("jobs --timeout 0 --server http://127.0.0.1:1").exit_code, 2);
}

TEST(HostileServer, ControlCharactersFromTheServerArePrintedEscaped) {
  // The job's error is JSON (valid UTF-8); the 500's body is raw bytes, as
  // a broken server would send them, and not JSON.
  const std::string nasty =
      "red\x1b[31m\r\x07\xc2\x9b"
      "2J end";
  HostileServer server([&](HostileServer&, int fd, const std::string& head) {
    if (is_get(head, "/v1/jobs/j"))
      HostileServer::send_answer(fd, 200,
                                 job_answer("j\x1b]0;t\x07", JobState::kFailed, {"p"}, PartStatus::kFailed, nasty));
    else
      HostileServer::send_answer(fd, 500, "{\"error\": \"" + nasty + "\xff\"}");
  });
  const std::string escaped = "red\\x1b[31m\\x0d\\x07\\x9b2J end";
  auto r = pp("cancel --server " + server.url() + " x");
  expect_one_error_line(r, "HTTP 500: {\"error\": \"" + escaped + "\\xff\"}");
  r = pp("jobs --server " + server.url() + " j");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("job j\\x1b]0;t\\x07: failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(escaped), std::string::npos) << r.output;
  r = pp("jobs --json --server " + server.url() + " j");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["partitions"][0]["last_error"], nasty) << r.output;
  // No control byte but the line ends, in any of the three.
  for (const auto& out :
       {pp("cancel --server " + server.url() + " x").output, pp("jobs --server " + server.url() + " j").output,
        pp("jobs --json --server " + server.url() + " j").output})
    for (const unsigned char c : out) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << int(c) << " in " << out;
}

// An answer nested 100,000 deep (200 KB) is refused while it is parsed:
// one error line and exit 2, for --json and the table alike, never a
// signal from a recursive copy of the tree.
TEST(HostileServer, AnAnswerNestedFarTooDeepIsOneErrorLine) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  HostileServer server([&](HostileServer&, int fd, const std::string& head) {
    HostileServer::send_answer(fd, is_get(head, "/v1/jobs") ? 200 : 500,
                               is_get(head, "/v1/jobs") ? R"({"jobs": )" + deep + "}" : R"({"error": )" + deep + "}");
  });
  for (const char* args : {"jobs --json", "jobs", "cancel x"}) {
    SCOPED_TRACE(args);
    const auto r = pp(std::string(args) + " --server " + server.url());
    EXPECT_EQ(r.exit_code, 2) << r.output.substr(0, 400);
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output.substr(0, 400);
    EXPECT_LT(r.output.size(), 2000u);
  }
  expect_one_error_line(pp("jobs --json --server " + server.url()), "nested deeper than 64");
}

TEST(ClientText, PrintableAndStems) {
  using service::is_partition_stem;
  using service::printable;
  EXPECT_EQ(printable("plain text, é ü 漢 😀"), "plain text, é ü 漢 😀");
  EXPECT_EQ(printable("a\x1b[2Jb\r\n\t\x07\x7f"), "a\\x1b[2Jb\\x0d\\x0a\\x09\\x07\\x7f");
  EXPECT_EQ(printable("\xc2\x9b"
                      "1m \xc2\x85"),
            "\\x9b1m \\x85");                                                 // C1 controls
  EXPECT_EQ(printable("\x9b\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82"),    // lone, overlong, surrogate,
            "\\x9b\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\xe2\\x82");  // past U+10FFFF, cut short
  // Characters that reorder or hide text on screen (U+202E shows
  // "job-\u202etxt.exe" as "job-exe.txt"), each as \uXXXX.
  EXPECT_EQ(printable("job-\u202etxt.exe"), "job-\\u202etxt.exe");
  EXPECT_EQ(printable("\u061c\u200b\u200e\u200f\u2028\u2029\u202a\u2066\u2069\ufeff"),
            "\\u061c\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a\\u2066\\u2069\\ufeff");
  EXPECT_EQ(printable("\u2010\u2030\u2070"), "\u2010\u2030\u2070");  // their neighbours are text
  for (const std::string& ok : std::vector<std::string>{"a", "w00", "x.y_z-1", "..a", std::string(128, 'q')})
    EXPECT_TRUE(is_partition_stem(ok)) << ok;
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "a/b", "/abs", "../x", "a b", "a\\b", "é",
                                                         std::string(129, 'q'), std::string("a\0b", 3)})
    EXPECT_FALSE(is_partition_stem(bad)) << bad;
}

}  // namespace
}  // namespace proofpipe::test
