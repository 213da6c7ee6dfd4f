// run_generator (generator.hpp): the child process, its output, its end.
#include "proofpipe/witness_gen/generator.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "node_error.hpp"
#include "proofpipe/common/safe_file.hpp"

extern char** environ;

namespace proofpipe::witness_gen {
namespace {

// The child's fixed descriptors: the generator is told /dev/fd/N.
constexpr int kChildOutFd = 3;
constexpr int kChildInFd = 4;
// How much of its output is kept (the end of it: the error comes last), and
// how many lines of that reach the partition's cause.
constexpr size_t kKeepBytes = 8192;
constexpr size_t kCauseLines = 6;
constexpr size_t kLineChars = 300;
// The poll period: how often its CPU time is looked at for progress, and
// the deadline checked.
constexpr int kPollMs = 100;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

Status sys_error(const char* what) {
  return make_error(ErrorCode::kIo, "witness generator: {}: {}", what, std::strerror(errno));
}

Status write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("write the input memfd");
    bytes.remove_prefix(size_t(n));
  }
  return Status::ok();
}

// utime + stime of `pid` in clock ticks (0 once it is gone): its CPU moving
// is the progress the heartbeat counts.
uint64_t cpu_ticks(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return 0;
  const size_t paren = line.rfind(')');  // the name may hold spaces and ')'
  if (paren == std::string::npos) return 0;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  // Fields 3.. after the name; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return utime + stime;
}

// `line` with every stretch of it that is the input's text replaced by
// "<input text>": the generator's words stay, the file's do not. The line is
// cut at its double quotes (node's JSON.parse quotes the text it could not
// parse, a quote that may run over several lines) and each piece of at least
// 4 characters, without node's "..." cut marks, is looked up in the input
// (a piece without quotes is the whole line: node also prints the offending
// source line alone).
std::string redact_line(const std::string& line, std::string_view input) {
  static constexpr std::string_view kMark = "<input text>";
  std::string out;
  size_t from = 0;
  for (;;) {
    const size_t quote = line.find('"', from);
    std::string_view piece = std::string_view(line).substr(from, quote == std::string::npos ? quote : quote - from);
    std::string_view core = piece;
    while (!core.empty() && (core.back() == '.' || core.back() == ' ')) core.remove_suffix(1);
    while (!core.empty() && core.front() == ' ') core.remove_prefix(1);
    if (core.size() >= 4 && input.find(core) != std::string_view::npos) {
      out += std::string(piece.substr(0, size_t(core.data() - piece.data()))) + std::string(kMark) +
             std::string(piece.substr(size_t(core.data() - piece.data()) + core.size()));
    } else {
      out += piece;
    }
    if (quote == std::string::npos) break;
    out += '"';
    from = quote + 1;
  }
  return out;
}

// The last lines worth reading: node's stack frames ("    at ..."), its
// version line and caret lines dropped, each line trimmed, kept clear of the
// input's text (redact_line) and cut.
std::string tail_lines(const std::string& text, std::string_view input) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    line = line.substr(b, line.find_last_not_of(" \t\r") + 1 - b);
    if (line.rfind("at ", 0) == 0 || line.rfind("Node.js v", 0) == 0 || line == "^") continue;
    lines.push_back(std::move(line));
  }
  const size_t first = lines.size() > kCauseLines ? lines.size() - kCauseLines : 0;
  std::string out;
  for (size_t i = first; i < lines.size(); ++i) {
    std::string kept = redact_line(lines[i], input);
    if (kept.size() > kLineChars) kept = kept.substr(0, kLineChars) + "...";
    out += (out.empty() ? "" : " | ") + kept;
  }
  return out;
}

// What a generator says when it ran out of memory (a failed allocation under
// RLIMIT_AS, V8's heap limit, the wasm memory not growing): not the input's
// fault, so not deterministic.
bool says_out_of_memory(const std::string& text) {
  for (const char* mark : {"bad_alloc", "out of memory", "Out of memory", "Cannot allocate memory",
                           "could not allocate memory", "WebAssembly.Memory"}) {
    if (text.find(mark) != std::string::npos) return true;
  }
  return false;
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(char* const* argv, char* const* envp, const char* work_dir, pid_t parent, int out_fd,
                             int in_fd, int log_fd, int null_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the worker died before the prctl
  // The OOM killer's first choice inside the worker's cgroup (1000 is the
  // most; raising one's own needs no privilege, and its children inherit
  // it): a generator past the cap is killed, the worker reports it and
  // takes the next partition. Best effort: a failure leaves the kernel's
  // default choice, the largest process, which is the generator anyway.
  if (const int adj = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); adj >= 0) {
    [[maybe_unused]] const ssize_t w = ::write(adj, "1000", 4);
    ::close(adj);
  }
  // Its own process group, which the worker kills whole at the run's end
  // (the parent sets it too, so neither order races).
  if (::setpgid(0, 0) != 0 || ::chdir(work_dir) != 0) ::_exit(127);
  // Out of the way of 0..4 first, then into place (dup2 clears CLOEXEC).
  const int out_hi = ::fcntl(out_fd, F_DUPFD, 10);
  const int in_hi = ::fcntl(in_fd, F_DUPFD, 10);
  const int log_hi = ::fcntl(log_fd, F_DUPFD, 10);
  const int null_hi = ::fcntl(null_fd, F_DUPFD, 10);
  if (out_hi < 0 || in_hi < 0 || log_hi < 0 || null_hi < 0) ::_exit(127);
  if (::dup2(null_hi, 0) < 0 || ::dup2(log_hi, 1) < 0 || ::dup2(log_hi, 2) < 0 || ::dup2(out_hi, kChildOutFd) < 0 ||
      ::dup2(in_hi, kChildInFd) < 0) {
    ::_exit(127);
  }
  ::close_range(kChildInFd + 1, ~0u, 0);  // nothing else of the worker's (sockets, the ring's descriptors)
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  ::execve(argv[0], argv, envp);
  static const char kMsg[] = "proofpipe-synth-worker: cannot execute the witness generator\n";
  [[maybe_unused]] const ssize_t n = ::write(2, kMsg, sizeof kMsg - 1);
  ::_exit(127);
}

// The allow-listed part of this process's environment (kEnvAllowList), with
// HOME and TMPDIR pointing at the run's private directory.
std::vector<std::string> child_environment(const std::string& work_dir) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    for (const std::string_view allowed : kEnvAllowList) {
      const bool prefix = allowed.ends_with('_');
      if (prefix ? name.starts_with(allowed) : name == allowed) {
        env.emplace_back(entry);
        break;
      }
    }
  }
  env.push_back("HOME=" + work_dir);
  env.push_back("TMPDIR=" + work_dir);
  return env;
}

std::filesystem::path work_parent_or_default(const std::filesystem::path& given) {
  if (!given.empty()) return given;
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp == '/' ? tmp : "/tmp";
}

// The name every run in process `pid` starts its directory's name with.
std::string work_dir_prefix(pid_t pid) { return fmt::format("proofpipe-gen-{}-", pid); }

// A fresh 0700 directory (mkdtemp) for one run, named after this process
// (remove_work_dirs_of finds it if the process dies before removing it).
Result<std::string> make_work_dir(const std::filesystem::path& given) {
  const std::filesystem::path parent = work_parent_or_default(given);
  std::string templ = (parent / (work_dir_prefix(::getpid()) + "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    return make_error(ErrorCode::kIo, "witness generator: cannot make its working directory under '{}': {}",
                      parent.string(), std::strerror(errno));
  }
  return templ;
}

// The pids /proc lists as children of this process's threads: in a
// subreaper (become_subreaper) that includes every orphaned descendant.
std::vector<pid_t> own_children() {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in(it->path() / "children");
    for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  }
  return pids;
}

// Processes the generator started that left its group (setsid) and were
// re-parented to this subreaper: killed and reaped, round by round (one may
// fork while it is being killed), for at most 2 s. A synthesis worker has
// no other children, so every child left here is the generator's.
void kill_strays() {
  int reaper = 0;
  if (::prctl(PR_GET_CHILD_SUBREAPER, &reaper, 0, 0, 0) != 0 || reaper == 0) return;
  for (int round = 0; round < 200; ++round) {
    const std::vector<pid_t> left = own_children();
    if (left.empty()) return;
    for (const pid_t pid : left) ::kill(pid, SIGKILL);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    ::usleep(10'000);
  }
}

// Owns the running generator: however run_generator returns, its process
// group is killed, the leader reaped, any stray of it killed (in a
// subreaper) and the working directory removed.
class ChildGuard {
 public:
  explicit ChildGuard(std::string work_dir) : work_dir_(std::move(work_dir)) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() {
    if (pid_ > 0) {
      kill_group();
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    kill_strays();
    std::error_code ec;  // the generator's files too; remove_all never follows a link
    std::filesystem::remove_all(work_dir_, ec);
  }
  void started(pid_t pid) { pid_ = pid; }
  // SIGKILL to the whole group. Only while the leader is unreaped: its pid,
  // the group's id, cannot have been reused.
  void kill_group() const {
    if (pid_ > 0) ::kill(-pid_, SIGKILL);
  }
  // The leader was reaped by the caller (after kill_group).
  void reaped() { pid_ = -1; }

 private:
  std::string work_dir_;
  pid_t pid_ = -1;
};

}  // namespace

void remove_work_dirs_of(pid_t pid, const std::filesystem::path& parent_given) {
  const std::filesystem::path parent = work_parent_or_default(parent_given);
  const std::string prefix = work_dir_prefix(pid);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(parent, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    if (!it->path().filename().string().starts_with(prefix)) continue;
    struct stat st {};
    // Only a directory of ours (lstat: a link of that name is left alone);
    // remove_all does not follow links inside it.
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    std::error_code rm;
    std::filesystem::remove_all(it->path(), rm);
  }
}

Status become_subreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return sys_error("prctl(PR_SET_CHILD_SUBREAPER)");
  return Status::ok();
}

std::string GeneratorRun::describe() const {
  std::string how;
  if (end == End::kTimedOut) {
    how = fmt::format("ran past --witness-gen-timeout ({} s) and was killed with its process group",
                      double(timeout.count()) / 1000);
  } else if (end == End::kStalled) {
    how = fmt::format("stalled: no CPU time and no output for {} s (--hang-timeout); killed with its process group",
                      double(timeout.count()) / 1000);
  } else if (signal != 0) {
    how = fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
  } else {
    how = fmt::format("exited with code {}", exit_code);
  }
  // The error alone: node's file:line and JavaScript source line are not the user's business.
  return output.empty() ? "witness generator " + how
                        : fmt::format("witness generator {}: {}", how, error_from_output(output));
}

Result<GeneratorRun> run_generator(const ipc::GenerateRequest& req, const std::function<void()>& progress,
                                   const GeneratorLimits& limits) {
  GeneratorRun run;
  // Never through a link: a link planted among the inputs could name a file
  // only the service's user may read, and a generator may quote what it read.
  auto input = read_regular_file(req.input, kMaxInputBytes, "input", /*follow_links=*/false);
  if (!input) {
    run.end = GeneratorRun::End::kInputFailure;
    struct stat st {};
    const bool link = ::lstat(req.input.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    run.output = link ? fmt::format("input '{}' is a symbolic link: refused (links are not followed)", req.input)
                      : input.status().message();
    return run;
  }
  Fd in_fd(::memfd_create("proofpipe-input", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (in_fd.get() < 0) return sys_error("memfd_create");
  PP_RETURN_IF_ERROR(write_all(in_fd.get(), *input));
  // Sealed: the generator reads its input and cannot change it (its output
  // is later kept clear of these bytes).
  if (::fcntl(in_fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return sys_error("seal the input memfd");
  const size_t input_size = input->size();
  input->clear();
  input->shrink_to_fit();
  Fd out_fd(::memfd_create("proofpipe-witness", MFD_CLOEXEC));
  if (out_fd.get() < 0) return sys_error("memfd_create");
  Fd null_fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (null_fd.get() < 0) return sys_error("open /dev/null");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return sys_error("pipe");
  Fd log_read(pipe_fds[0]), log_write(pipe_fds[1]);

  // Everything the child needs, made before the fork (the worker has threads).
  PP_ASSIGN_OR_RETURN(const std::string work_dir, make_work_dir(limits.work_parent));
  ChildGuard guard(work_dir);
  std::vector<std::string> args = req.command;
  args.push_back(fmt::format("/dev/fd/{}", kChildInFd));
  args.push_back(fmt::format("/dev/fd/{}", kChildOutFd));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = child_environment(work_dir);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork");
  if (pid == 0) {
    exec_child(argv.data(), envp.data(), work_dir.c_str(), parent, out_fd.get(), in_fd.get(), log_write.get(),
               null_fd.get());
  }
  guard.started(pid);
  ::setpgid(pid, pid);  // also done by the child; EACCES once it has exec'd is fine
  log_write.reset();
  // in_fd stays open: its bytes are what the output is kept clear of.
  ::fcntl(log_read.get(), F_SETFL, O_NONBLOCK);

  std::string output;
  const auto drain = [&] {
    char buf[4096];
    ssize_t n = 0;
    bool got = false;
    while ((n = ::read(log_read.get(), buf, sizeof buf)) > 0) {
      output.append(buf, size_t(n));
      if (output.size() > kKeepBytes) output.erase(0, output.size() - kKeepBytes);
      got = true;
    }
    return got;
  };
  uint64_t last_ticks = 0;
  auto last_moved = start;
  int wstatus = 0;
  bool hung_up = false;  // it closed its output (or exited): poll the clock only
  bool timed_out = false, stalled = false;
  for (;;) {
    pollfd pfd{log_read.get(), POLLIN, 0};
    ::poll(&pfd, hung_up ? 0 : 1, kPollMs);
    hung_up = hung_up || (pfd.revents & (POLLHUP | POLLERR)) != 0;
    bool moved = drain();
    const uint64_t ticks = cpu_ticks(pid);
    moved = moved || ticks != last_ticks;
    last_ticks = ticks;
    const auto now = std::chrono::steady_clock::now();
    if (moved) last_moved = now;
    progress();  // the worker is alive and watching; the generator is judged below
    // Seen ended but not reaped (WNOWAIT): its group id stays its own while
    // the group is killed, so no process it started outlives the run.
    siginfo_t info{};
    if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
      return sys_error("waitid");
    if (info.si_pid == pid) break;
    if (now - start >= limits.timeout) {
      timed_out = true;
      break;
    }
    if (limits.stall.count() > 0 && now - last_moved >= limits.stall) {
      stalled = true;
      break;
    }
  }
  guard.kill_group();
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return sys_error("waitpid");
  }
  guard.reaped();
  drain();
  {
    // The input, mapped from its memfd (no second copy in the worker).
    void* map = input_size == 0 ? MAP_FAILED : ::mmap(nullptr, input_size, PROT_READ, MAP_PRIVATE, in_fd.get(), 0);
    const std::string_view input_text =
        map == MAP_FAILED ? std::string_view() : std::string_view(static_cast<const char*>(map), input_size);
    run.output = tail_lines(output, input_text);
    if (map != MAP_FAILED) ::munmap(map, input_size);
  }

  const bool oom_text = says_out_of_memory(output);
  if (timed_out) {
    run.end = GeneratorRun::End::kTimedOut;
    run.timeout = limits.timeout;
  } else if (stalled) {
    run.end = GeneratorRun::End::kStalled;
    run.timeout = limits.stall;
  } else if (WIFEXITED(wstatus)) {
    run.exit_code = WEXITSTATUS(wstatus);
    if (run.exit_code == 0) {
      run.end = GeneratorRun::End::kOk;
      run.witness_fd = out_fd.release();
    } else {
      run.end = oom_text ? GeneratorRun::End::kCrashed : GeneratorRun::End::kInputFailure;
    }
  } else if (WIFSIGNALED(wstatus)) {
    run.signal = WTERMSIG(wstatus);
    if (run.signal == SIGKILL) {
      run.end = GeneratorRun::End::kKilled;
    } else if (run.signal == SIGABRT && !oom_text) {
      run.end = GeneratorRun::End::kInputFailure;
    } else {
      run.end = GeneratorRun::End::kCrashed;
    }
  }
  return run;
}

}  // namespace proofpipe::witness_gen
