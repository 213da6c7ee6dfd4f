// generate_witness (witness.hpp): one circom generator run per attempt in a
// fresh child placed in its own capped cgroup leaf (or under RLIMIT_AS where
// no cgroup is writable), with run --inputs's retry rule.
//
//   caller ── fork ──> witness child (in its leaf before it runs anything)
//                        └─ witness_gen::run_generator: node generate_witness.js
//                           or the native generator, its .wtns in a memfd
//   <────── the .wtns copied into the caller's memfd; exit code = how it ended
#include "proofpipe/engine/witness.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cgroup.hpp"
#include "proofpipe/witness_gen/generator.hpp"

namespace proofpipe::engine {
namespace {

// The witness child's own exit codes (not the generator's).
constexpr int kChildOk = 0, kChildInputFailure = 65, kChildKilled = 66, kChildCrashed = 67, kChildNoStart = 68;

void write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += size_t(n);
  }
}

// Copies the whole of `from` (a memfd) into `to` from its start.
bool copy_fd(int from, int to) {
  if (::lseek(from, 0, SEEK_SET) != 0 || ::lseek(to, 0, SEEK_SET) != 0 || ::ftruncate(to, 0) != 0) return false;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (::write(to, buf, size_t(n)) != n) return false;
  }
}

// The child: waits until the parent has placed it in its cgroup (or closed
// the pipe), then runs the generator as run's synthesis workers do and
// reports how it ended through its exit code and `msg_fd`.
[[noreturn]] void witness_child(int go_fd, int msg_fd, int wtns_fd, uint64_t rlimit_as,
                                const ipc::GenerateRequest& req) {
  // Dies with proofpipe (and its generator with it, run_generator's own rule).
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() == 1) ::_exit(kChildNoStart);
  char go = 0;
  if (::read(go_fd, &go, 1) != 1) ::_exit(kChildNoStart);
  if (rlimit_as != 0) {
    const struct rlimit limit { rlimit_as, rlimit_as };
    ::setrlimit(RLIMIT_AS, &limit);
  }
  auto run = witness_gen::run_generator(req, [] {});
  if (!run) {
    write_all(msg_fd, run.status().message());
    ::_exit(kChildNoStart);
  }
  if (run->end == witness_gen::GeneratorRun::End::kOk) {
    const bool copied = copy_fd(run->witness_fd, wtns_fd);
    if (!copied) write_all(msg_fd, std::string("cannot copy the witness: ") + std::strerror(errno));
    ::_exit(copied ? kChildOk : kChildCrashed);
  }
  write_all(msg_fd, run->describe());
  switch (run->end) {
    case witness_gen::GeneratorRun::End::kInputFailure:
    case witness_gen::GeneratorRun::End::kTimedOut: ::_exit(kChildInputFailure);  // it would loop again
    case witness_gen::GeneratorRun::End::kKilled: ::_exit(kChildKilled);
    default: ::_exit(kChildCrashed);
  }
}

struct Attempt {
  enum class End { kOk, kInputFailure, kRetry } end = End::kRetry;
  std::string message;
};

// One generator run in a fresh child, placed in `leaf` when there is one.
Result<Attempt> attempt_witness(const ipc::GenerateRequest& req, const CgroupLeaf* leaf, uint64_t rlimit_as,
                                int wtns_fd) {
  int go[2], msg[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, "pipe: {}", std::strerror(errno));
  if (::pipe2(msg, O_CLOEXEC) != 0) {
    ::close(go[0]);
    ::close(go[1]);
    return make_error(ErrorCode::kIo, "pipe: {}", std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go[1]);
    ::close(msg[0]);
    witness_child(go[0], msg[1], wtns_fd, rlimit_as, req);
  }
  ::close(go[0]);
  ::close(msg[1]);
  if (pid < 0) {
    ::close(go[1]);
    ::close(msg[0]);
    return make_error(ErrorCode::kIo, "fork: {}", std::strerror(errno));
  }
  // Into its cap before it runs anything; closing the pipe unplaced makes it exit.
  const Status placed = leaf != nullptr ? leaf->add(pid) : Status::ok();
  if (placed) write_all(go[1], "g");
  ::close(go[1]);
  std::string message;
  char buf[4096];
  for (ssize_t n; (n = ::read(msg[0], buf, sizeof buf)) != 0;) {
    if (n > 0) message.append(buf, size_t(n));
    if (n < 0 && errno != EINTR) break;
  }
  ::close(msg[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!placed) return placed;
  const bool oom = leaf != nullptr && leaf->oom_kills() > 0;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kChildOk) return Attempt{Attempt::End::kOk, ""};
  if (oom)
    return Attempt{Attempt::End::kRetry, "OOM-killed under its memory cap" + (message.empty() ? "" : ": " + message)};
  if (code == kChildInputFailure) return Attempt{Attempt::End::kInputFailure, message};
  if (WIFSIGNALED(status)) {
    return Attempt{Attempt::End::kRetry, fmt::format("the witness child was killed by signal {}", WTERMSIG(status))};
  }
  return Attempt{Attempt::End::kRetry, message.empty() ? fmt::format("the witness child exited {}", code) : message};
}

}  // namespace

Result<int> generate_witness(const ipc::GenerateRequest& req, uint64_t mem_max, unsigned max_attempts,
                             std::string_view input) {
  std::string why;
  CgroupRun cgroups = CgroupRun::create(uint64_t(::getpid()), &why);
  const bool have_cgroup = cgroups.version() != CgroupVersion::kUnavailable;
  if (!have_cgroup) {
    std::fprintf(stderr,
                 "proofpipe: warning: no writable memory cgroup (%s): --mem-max is RLIMIT_AS on the generator\n",
                 why.c_str());
  }
  const int wtns_fd = ::memfd_create("proofpipe-witness", MFD_CLOEXEC);
  if (wtns_fd < 0) return make_error(ErrorCode::kIo, "memfd_create: {}", std::strerror(errno));
  std::string last;
  for (unsigned attempt = 1; attempt <= max_attempts; ++attempt) {
    std::optional<CgroupLeaf> leaf;
    if (have_cgroup) {
      auto l = cgroups.make_leaf(fmt::format("witness.{}", attempt), mem_max);
      if (!l) {
        ::close(wtns_fd);
        return l.status();
      }
      leaf = std::move(l).value();
    }
    auto a = attempt_witness(req, leaf ? &*leaf : nullptr, have_cgroup ? 0 : mem_max, wtns_fd);
    if (leaf) leaf->remove();
    if (!a || a->end == Attempt::End::kInputFailure) {
      ::close(wtns_fd);
      if (!a) return a.status();
      return make_error(ErrorCode::kInvalidArgument, "input '{}': {}", input, a->message);
    }
    if (a->end == Attempt::End::kOk) return wtns_fd;
    last = a->message;
  }
  ::close(wtns_fd);
  return make_error(ErrorCode::kInternal, "input '{}': no witness after {} attempts: {}", input, max_attempts, last);
}

}  // namespace proofpipe::engine
