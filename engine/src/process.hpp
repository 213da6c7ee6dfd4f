// One child process (one worker incarnation): spawned with fork+exec, watched
// through a pidfd (pollable, immune to pid reuse), reaped with wait4 so its
// peak RSS comes back with its exit status.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::engine {

struct ExitInfo {
  int exit_code = -1;           // when it exited
  int signal = 0;               // when a signal killed it
  uint64_t peak_rss_bytes = 0;  // ru_maxrss of the incarnation
  // Filled in by the supervisor from what it knows beyond the wait status.
  bool oom_killed = false;     // the incarnation's cgroup counted an OOM kill
  uint64_t cap_bytes = 0;      // its memory cap, for the message
  std::string killed_because;  // the coordinator sent the SIGKILL ("no heartbeat for 30 s")
  // "exit 65 (worker set-up failed)", "killed by SIGKILL", "OOM-killed by its cgroup"
  std::string describe() const;
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the executable's path
  std::vector<std::string> env;   // the whole environment, "K=V"
  uint64_t rlimit_as = 0;         // RLIMIT_AS for the child; 0: unchanged
  // Runs in the parent after fork and before the child may exec (it waits
  // on a pipe): where the child is moved into its cgroup, so that nothing it
  // runs is ever charged outside its cap. An error kills the child.
  std::function<Status(pid_t)> before_exec;
};

class Child {
 public:
  // fork + exec. The child gets PR_SET_PDEATHSIG(SIGKILL) before exec, so it
  // dies with the coordinator even if it never runs a line of its own code.
  // stdin is /dev/null; stdout/stderr are inherited.
  static Result<Child> spawn(const SpawnOptions& options);
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

}  // namespace proofpipe::engine
