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

#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::coord {

std::string ExitInfo::describe() const {
  if (signal != 0) return fmt::format("killed by SIG{}", ::sigabbrev_np(signal) ? ::sigabbrev_np(signal) : "?");
  return fmt::format("exit {} ({})", exit_code, ipc::worker_exit_name(exit_code));
}

Result<Child> Child::spawn(const std::vector<std::string>& argv) {
  // Everything the child needs is prepared before fork: after it only
  // async-signal-safe calls are allowed (we may have threads).
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return make_error(ErrorCode::kIo, "fork: {}", std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(ipc::kWorkerExitOrphaned);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  const int fd = int(::syscall(SYS_pidfd_open, pid, 0));
  return Child(pid, fd);
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

}  // namespace proofpipe::coord
