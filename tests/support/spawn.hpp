// `proofpipe <subcommand> args...` as a child of the test, for tests that
// signal or kill it: its stdout and stderr appended to a log file,
// `extra_env` before the inherited environment, and optionally in a
// process group of its own (so the test can signal it and its workers).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

extern char** environ;

namespace proofpipe::test {

// The child's pid, or -1 if it could not be spawned.
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
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

}  // namespace proofpipe::test
