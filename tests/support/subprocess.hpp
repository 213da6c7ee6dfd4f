// Runs a shell command for integration tests and captures its combined
// stdout+stderr and exit code, noting the pid of every process it starts
// (started_pids: a leftover check then takes only what its own test made).
// Paths to our executables and to the pinned snarkjs come from compile
// definitions set in tests/CMakeLists.txt.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace proofpipe::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr interleaved
};

// The pids of the processes this test process started, in order (each
// ctest test is a process of its own, so these are its test's). Guarded:
// some tests start runs from several threads.
struct StartedPids {
  std::mutex mutex;
  std::vector<pid_t> pids;
};
// Never destroyed: a global's destructor (a test's PostgreSQL cluster
// stopping with pg_ctl at exit) may still start a command after the
// function-local statics are gone.
inline StartedPids& started_pids() {
  static auto* s = new StartedPids;
  return *s;
}
inline void note_started(pid_t pid) {
  std::lock_guard lock(started_pids().mutex);
  started_pids().pids.push_back(pid);
}
// A mark to pass to started_since(): how many were started before now.
inline size_t started_mark() {
  std::lock_guard lock(started_pids().mutex);
  return started_pids().pids.size();
}
inline std::set<pid_t> started_since(size_t mark) {
  std::lock_guard lock(started_pids().mutex);
  const auto& p = started_pids().pids;
  return {p.begin() + long(std::min(mark, p.size())), p.end()};
}

// `sh -c cmd` with its output read through a pipe, as popen() would, but
// with the shell's pid noted (a command that starts with `exec` makes that
// the pid of what it runs). With a `limit`, the shell gets SIGTERM once it
// has run that long and the exit code is 124, as `timeout -s TERM` gives.
inline CommandResult run_command(const std::string& cmd, std::chrono::seconds limit = std::chrono::seconds::zero()) {
  CommandResult r;
  const std::string line = cmd + " 2>&1";
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return r;
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until execl
    if (::dup2(fds[1], 1) < 0) ::_exit(127);
    ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return r;
  }
  note_started(pid);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool timed_out = false;
  std::array<char, 4096> buf{};
  for (;;) {
    if (limit.count() > 0 && !timed_out) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fds[0], POLLIN, 0};
      const int ready = ::poll(&p, 1, int(std::max<long>(0, long(left.count()))));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        ::kill(pid, SIGTERM);  // our child, not yet reaped: the pid is still its
        timed_out = true;
        continue;
      }
    }
    const ssize_t got = ::read(fds[0], buf.data(), buf.size());
    if (got > 0) r.output.append(buf.data(), size_t(got));
    if (got == 0 || (got < 0 && errno != EINTR)) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = timed_out ? 124 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline std::string quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// build/bin/<name>
inline std::filesystem::path bin_path(const std::string& name) { return std::filesystem::path(PP_BIN_DIR) / name; }

// The pinned snarkjs CLI from node_modules (scripts/setup.sh installs it).
inline std::string snarkjs() {
  return "node " + quote(std::filesystem::path(PP_SOURCE_DIR) / "node_modules/snarkjs/build/cli.cjs");
}

inline std::filesystem::path data_dir() { return std::filesystem::path(PP_TEST_DATA_DIR); }

// The quoted path of our own CLI.
inline std::string proofpipe() { return quote(bin_path("proofpipe")); }

// A fresh temporary directory per test, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proofpipe-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? std::filesystem::path(tmpl) : std::filesystem::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace proofpipe::test
