// Child processes (process.hpp).
#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "proofpipe/common/sizes.hpp"
#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::engine {

std::string ExitInfo::describe() const {
  if (oom_killed) {
    return cap_bytes ? fmt::format("OOM-killed by its cgroup (memory cap {})", format_size(cap_bytes))
                     : "OOM-killed by its cgroup";
  }
  if (!killed_because.empty()) return "killed by the coordinator: " + killed_because;
  if (signal != 0) return fmt::format("killed by SIG{}", ::sigabbrev_np(signal) ? ::sigabbrev_np(signal) : "?");
  return fmt::format("exit {} ({})", exit_code, ipc::worker_exit_name(exit_code));
}

Result<Child> Child::spawn(const SpawnOptions& opt) {
  // Everything the child needs is prepared before fork: after it only
  // async-signal-safe calls are allowed (we have threads: ZeroMQ's).
  std::vector<char*> argv, envp;
  for (const auto& a : opt.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : opt.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int gate[2];
  if (::pipe2(gate, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, "pipe: {}", std::strerror(errno));
  const struct rlimit limit { rlim_t(opt.rlimit_as), rlim_t(opt.rlimit_as) };
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(gate[0]);
    ::close(gate[1]);
    return make_error(ErrorCode::kIo, "fork: {}", std::strerror(errno));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(ipc::kWorkerExitOrphaned);
    ::close(gate[1]);
    char go = 0;
    // The parent writes one byte once we are placed; EOF means it gave up.
    while (::read(gate[0], &go, 1) < 0 && errno == EINTR) {
    }
    if (go != 1) ::_exit(ipc::kWorkerExitSetup);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (opt.rlimit_as != 0) ::setrlimit(RLIMIT_AS, &limit);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(gate[0]);
  Child child(pid, int(::syscall(SYS_pidfd_open, pid, 0)));
  if (opt.before_exec) {
    if (Status st = opt.before_exec(pid); !st) {
      ::close(gate[1]);  // the child exits; ~Child reaps it
      return st;
    }
  }
  const char go = 1;
  const bool sent = ::write(gate[1], &go, 1) == 1;
  ::close(gate[1]);
  if (!sent) return make_error(ErrorCode::kIo, "cannot release the child: {}", std::strerror(errno));
  return child;
}

Child::Child(Child&& o) noexcept : pid_(o.pid_), pidfd_(o.pidfd_), reaped_(o.reaped_) {
  o.pid_ = -1;
  o.pidfd_ = -1;
}

Child& Child::operator=(Child&& o) noexcept {
  if (this != &o) {
    this->~Child();
    pid_ = o.pid_;
    pidfd_ = o.pidfd_;
    reaped_ = o.reaped_;
    o.pid_ = -1;
    o.pidfd_ = -1;
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
}

std::optional<ExitInfo> Child::try_reap() {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  int status = 0;
  struct rusage ru {};
  const pid_t r = ::wait4(pid_, &status, WNOHANG, &ru);
  if (r != pid_) return std::nullopt;
  reaped_ = true;
  ExitInfo info;
  if (WIFSIGNALED(status)) info.signal = WTERMSIG(status);
  if (WIFEXITED(status)) info.exit_code = WEXITSTATUS(status);
  info.peak_rss_bytes = uint64_t(ru.ru_maxrss) * 1024;
  return info;
}

void Child::kill(int sig) const {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

}  // namespace proofpipe::engine
