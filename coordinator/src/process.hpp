// One child process (one worker incarnation): spawned with fork+exec, watched
// through a pidfd (pollable, immune to pid reuse), reaped with wait4 so its
// peak RSS comes back with its exit status.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::coord {

struct ExitInfo {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  uint64_t peak_rss_bytes = 0;  // ru_maxrss of the incarnation
  std::string describe() const;  // "exit 65 (worker set-up failed)", "killed by SIGKILL"
};

class Child {
 public:
  // fork + exec argv[0] with argv. The child gets PR_SET_PDEATHSIG(SIGKILL)
  // before exec, so it dies with the coordinator even if it never runs a line
  // of its own code. stdin is /dev/null; stdout/stderr are inherited.
  static Result<Child> spawn(const std::vector<std::string>& argv);
  Child(Child&&) noexcept;
  Child& operator=(Child&&) noexcept;
  Child(const Child&) = delete;
  ~Child();  // SIGKILLs and reaps a child still running

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }  // -1 if pidfd_open is unavailable
  // Non-blocking reap; nullopt while it runs.
  std::optional<ExitInfo> try_reap();
  void kill(int sig) const;

 private:
  Child(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
};

}  // namespace proofpipe::coord
