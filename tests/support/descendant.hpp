// Whether a process is this test's own: tests that look at what is live on
// the host (run directories, run cgroups) take only their own runs, so a
// proofpipe service or run of someone else's, live meanwhile, changes nothing.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include "support/subprocess.hpp"

namespace proofpipe::test {

// True when `pid` is this process or a descendant of it (runs start through
// a shell, so the chain is followed through /proc/<pid>/stat's parent
// field). False for a pid that is gone.
inline bool is_descendant(pid_t pid) {
  for (int depth = 0; pid > 1 && depth < 64; ++depth) {
    if (pid == ::getpid()) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = s.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) return false;
    std::istringstream rest(s.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    if (!(rest >> state >> ppid)) return false;
    pid = ppid;
  }
  return false;
}

// Whether what a process named with `pid` left (a ring, a cgroup) is this
// test's: a live process must be a descendant (a pid once ours may since
// name someone else's process), a gone one must be among those the test
// started since `mark` (started_mark(); a descendant that has exited cannot
// be traced back through /proc any more).
inline bool started_by_test(pid_t pid, size_t mark) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) == 0 || errno == EPERM) return is_descendant(pid);
  return started_since(mark).count(pid) > 0;
}

// True once `pid` is gone or a zombie, checked every 20 ms up to `limit`.
inline bool dead_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace proofpipe::test
