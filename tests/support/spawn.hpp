// `proofpipe <subcommand> args...` as a child of the test, for tests that
// signal or kill it: its stdout and stderr appended to a log file,
// `extra_env` before the inherited environment, and optionally in a
// process group of its own (so the test can signal it and its workers).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

extern char** environ;

namespace proofpipe::test {

// The child's pid, or -1 if it could not be spawned. The child gets
// SIGKILL if the test process dies first (a ctest timeout, a crash): a
// resident `serve` must never outlive the test that started it. Its own
// workers follow it (they watch their parent).
inline pid_t spawn_proofpipe(const std::string& subcommand, const std::vector<std::string>& args,
                             const std::vector<std::string>& extra_env, const std::filesystem::path& log,
                             bool own_group = false) {
  const std::string exe = bin_path("proofpipe").string();
  std::vector<std::string> argv_s = {exe, subcommand};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = extra_env;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid > 0) note_started(pid);
  if (pid != 0) return pid;  // -1 on error
  // The child: only async-signal-safe calls until execve.
  if (own_group) ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the test died before the prctl
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(127);
  ::execve(exe.c_str(), argv.data(), envp.data());
  ::_exit(127);
}

}  // namespace proofpipe::test
