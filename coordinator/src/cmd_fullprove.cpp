// `proofpipe fullprove <input.json> <circuit.wasm | circuit_js folder |
// native generator> <circuit.zkey> <proof.json> <public.json>`, in
// snarkjs's argument order: the witness is made by the circom generator in
// a child process under a memory cap, with run --inputs's rules for its
// failures (docs/witness-gen.md, "The retry rule"), then proved, verified
// and written by `prove` itself, straight from a memfd (nothing on disk).
//
//   proofpipe ── fork ──> witness child (in its own capped cgroup leaf, or
//                         under RLIMIT_AS where no cgroup is writable)
//                           └─ run_generator: node generate_witness.js or
//                              the native generator, its .wtns in a memfd
//   <────── the .wtns copied into the parent's memfd, exit code = the end
//
// A generator that fails on the input by itself (exit code, its own abort)
// fails at once; one killed, crashed or out of memory is tried again, up to
// --max-attempts. A witness for the other curve than the key's is refused
// (exit 2) before anything is proved.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "cgroup.hpp"
#include "cli_error.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/coordinator/commands.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "witness_gen.hpp"
#include "witness_gen_setup.hpp"

namespace proofpipe::cli {
namespace {

namespace fs = std::filesystem;

// The witness child's own exit codes (not the generator's).
constexpr int kChildOk = 0, kChildInputFailure = 65, kChildKilled = 66, kChildCrashed = 67, kChildNoStart = 68;

// The generator argument as run's --witness-gen spec: a folder or a .wasm
// is circom's WebAssembly generator, anything else a native executable.
std::string generator_spec(const std::string& arg) {
  std::error_code ec;
  if (fs::is_directory(arg, ec) || arg.ends_with(".wasm")) return "wasm:" + arg;
  return "native:" + arg;
}

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
  auto run = synth::run_generator(req, [] {});
  if (!run) {
    write_all(msg_fd, run.status().message());
    ::_exit(kChildNoStart);
  }
  if (run->end == synth::GeneratorRun::End::kOk) {
    const bool copied = copy_fd(run->witness_fd, wtns_fd);
    if (!copied) write_all(msg_fd, std::string("cannot copy the witness: ") + std::strerror(errno));
    ::_exit(copied ? kChildOk : kChildCrashed);
  }
  write_all(msg_fd, run->describe());
  switch (run->end) {
    case synth::GeneratorRun::End::kInputFailure: ::_exit(kChildInputFailure);
    case synth::GeneratorRun::End::kKilled: ::_exit(kChildKilled);
    default: ::_exit(kChildCrashed);
  }
}

struct Attempt {
  enum class End { kOk, kInputFailure, kRetry } end = End::kRetry;
  std::string message;
};

// One generator run in a fresh child, placed in `leaf` when there is one.
Result<Attempt> attempt_witness(const ipc::GenerateRequest& req, const coord::CgroupLeaf* leaf, uint64_t rlimit_as,
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

int run_fullprove(const FullproveArgs& args) {
  // The key's curve first: a bad key fails before a generator runs.
  auto key_curve = formats::zkey_curve(args.zkey);
  if (!key_curve) return fail(key_curve.status());
  auto command = coord::resolve_generator(generator_spec(args.generator));
  if (!command) return fail(command.status());
  auto inputs = coord::list_inputs({args.input});
  if (!inputs) return fail(inputs.status());
  auto cap = parse_size(args.mem_max);
  if (!cap) return fail(cap.status());

  // The cap: a cgroup leaf per attempt, else RLIMIT_AS (as run does for its
  // synthesis workers, and with the same caveat for node: docs/witness-gen.md).
  std::string why;
  coord::CgroupRun cgroups = coord::CgroupRun::create(uint64_t(::getpid()), &why);
  const bool have_cgroup = cgroups.version() != coord::CgroupVersion::kUnavailable;
  if (!have_cgroup) {
    std::fprintf(stderr,
                 "proofpipe: warning: no writable memory cgroup (%s): --mem-max is RLIMIT_AS on the generator\n",
                 why.c_str());
  }
  const int wtns_fd = ::memfd_create("proofpipe-fullprove-witness", MFD_CLOEXEC);
  if (wtns_fd < 0) return fail(fmt::format("memfd_create: {}", std::strerror(errno)));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{wtns_fd};

  const ipc::GenerateRequest req{*command, (*inputs)[0].string()};
  std::string last;
  bool made = false;
  for (unsigned attempt = 1; attempt <= args.max_attempts && !made; ++attempt) {
    std::optional<coord::CgroupLeaf> leaf;
    if (have_cgroup) {
      auto l = cgroups.make_leaf(fmt::format("witness.{}", attempt), *cap);
      if (!l) return fail(l.status());
      leaf = std::move(l).value();
    }
    auto a = attempt_witness(req, leaf ? &*leaf : nullptr, have_cgroup ? 0 : *cap, wtns_fd);
    if (leaf) leaf->remove();
    if (!a) return fail(a.status());
    if (a->end == Attempt::End::kInputFailure) return fail(fmt::format("input '{}': {}", args.input, a->message));
    made = a->end == Attempt::End::kOk;
    last = a->message;
  }
  if (!made) {
    return fail(fmt::format("input '{}': no witness after {} attempts: {}", args.input, args.max_attempts, last));
  }

  // The witness's curve against the key's, before anything is proved.
  const std::string wtns = fmt::format("/dev/fd/{}", wtns_fd);
  auto wtns_curve = formats::wtns_curve(wtns);
  if (!wtns_curve) return fail(wtns_curve.status());
  if (*wtns_curve != *key_curve) {
    return fail(fmt::format("generator '{}' makes {} witnesses, zkey '{}' is for {}: nothing proved", args.generator,
                            curves::curve_name(*wtns_curve), args.zkey, curves::curve_name(*key_curve)));
  }
  return run_prove(ProveArgs{args.zkey, wtns, args.proof, args.public_json, args.backend});
}

}  // namespace proofpipe::cli
