// A real `proofpipe serve` for the service's integration and crash tests:
// spawned as a child of the test (in its own process group, so a test can
// SIGKILL it and its workers together), output into a log file, and the port
// it bound read from its start line ("listening on http://127.0.0.1:PORT").
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/spawn.hpp"

namespace proofpipe::test {

class ServeProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // `proofpipe serve args...` with `env` before the inherited environment.
  // Returns once the start line names the port (nullptr after 60 s or if
  // the process ended first; log_text() says why).
  static std::unique_ptr<ServeProcess> start(const std::vector<std::string>& args, const std::filesystem::path& log,
                                             const std::vector<std::string>& env = {}) {
    auto s = launch(args, log, env);
    if (s) s->await_port();
    return s;
  }
  // start() in two halves, so that several services start at the same
  // moment from ONE thread (the child's PR_SET_PDEATHSIG follows the thread
  // that forked it: a helper thread's exit would kill it).
  static std::unique_ptr<ServeProcess> launch(const std::vector<std::string>& args, const std::filesystem::path& log,
                                              const std::vector<std::string>& env = {}) {
    auto s = std::unique_ptr<ServeProcess>(new ServeProcess(log));
    std::error_code ec;
    const auto before = std::filesystem::file_size(log, ec);
    s->log_offset_ = ec ? 0 : size_t(before);  // the log may hold an earlier life's lines: read past them
    std::vector<std::string> e = env;
    e.emplace_back("PROOFPIPE_NO_PROGRESS=1");
    // Its own process group: kill_group() reaches the workers too.
    s->pid_ = spawn_proofpipe("serve", args, e, log, /*own_group=*/true);
    if (s->pid_ < 0) return nullptr;
    return s;
  }
  // Until the start line names the port (false after `limit`, or if the
  // process ended first: port() stays 0, exit_status() and the log say why).
  bool await_port(std::chrono::seconds limit = std::chrono::seconds(60)) {
    const std::regex line(R"(listening on http://[^ ]*:(\d+))");
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      std::smatch m;
      const std::string text = log_text().substr(std::min(log_offset_, log_text().size()));
      if (std::regex_search(text, m, line)) {
        port_ = std::stoi(m[1]);
        return true;
      }
      if (exited()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  ~ServeProcess() {
    if (!status_) kill_group(SIGKILL);
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log_text() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(60);
    return c;
  }

  // True once the process ended (reaped; exit_status() then holds its status).
  bool exited() {
    if (status_) return true;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) status_ = st;
    return status_.has_value();
  }
  std::optional<int> exit_status() const { return status_; }
  // The exit code, or 128 + signal; nullopt if still running after `limit`.
  std::optional<int> wait(std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    while (!exited() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!status_) return std::nullopt;
    return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // The service and every worker it spawned (they share its process group).
  void kill_group(int sig) {
    ::kill(-pid_, sig);
    if (sig == SIGKILL) wait(std::chrono::seconds(30));
  }

 private:
  explicit ServeProcess(std::filesystem::path log) : log_(std::move(log)) {}
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
  size_t log_offset_ = 0;
  std::optional<int> status_;
};

// GET/POST helpers that fail the test with the body when the server is unreachable.
inline nlohmann::json json_of(const httplib::Result& r) {
  if (!r) return nlohmann::json{{"transport_error", httplib::to_string(r.error())}};
  auto j = nlohmann::json::parse(r->body, nullptr, false);
  return j.is_discarded() ? nlohmann::json{{"unparsed", r->body}} : j;
}

// Polls GET /v1/jobs/{id} until its state is one of `ends` (or `limit` passes); the last answer.
inline nlohmann::json wait_job(httplib::Client& c, const std::string& id, std::chrono::seconds limit,
                               const std::vector<std::string>& ends = {"done", "failed", "cancelled"}) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  nlohmann::json j;
  while (std::chrono::steady_clock::now() < deadline) {
    j = json_of(c.Get("/v1/jobs/" + id));
    if (j.contains("state")) {
      for (const auto& e : ends) {
        if (j["state"] == e) return j;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return j;
}

}  // namespace proofpipe::test
