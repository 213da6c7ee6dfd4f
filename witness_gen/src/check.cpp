// check_generator and probe_wasm (proofpipe/witness_gen/check.hpp).
#include "proofpipe/witness_gen/check.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

extern char** environ;

namespace proofpipe::witness_gen {
namespace {

// The scalar-field primes of the two curves, as getRawPrime reports them.
constexpr std::string_view kBn128Prime = "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";
constexpr std::string_view kBls12381Prime = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";

// Instantiates the module with circom's four runtime imports doing nothing
// (none is called by the reporting functions) and prints
// "<words> <prime hex> <witness size>". The prime is read word by word from
// the shared memory, highest word first, as witness_calculator.js does.
constexpr const char* kProbeScript =
    "const m=new WebAssembly.Module(require('fs').readFileSync(process.argv[1]));"
    "const f=()=>{};"
    "const e=new WebAssembly.Instance(m,{runtime:{exceptionHandler:f,printErrorMessage:f,"
    "writeBufferMessage:f,showSharedRWMemory:f}}).exports;"
    "for(const k of['getFieldNumLen32','getRawPrime','readSharedRWMemory','getWitnessSize'])"
    "if(typeof e[k]!=='function'){process.stdout.write('missing '+k+'\\n');process.exit(0);}"
    "const n=e.getFieldNumLen32();e.getRawPrime();let p=0n;"
    "for(let i=n-1;i>=0;i--)p=(p<<32n)|BigInt(e.readSharedRWMemory(i)>>>0);"
    "process.stdout.write(n+' '+p.toString(16)+' '+e.getWitnessSize()+'\\n');";

constexpr auto kProbeTimeout = std::chrono::seconds(30);
constexpr size_t kMaxProbeOutput = 64 << 10;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The last non-empty line of `text`, for an error message.
std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const size_t nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

// Runs `argv` with stdin closed-off (/dev/null) and stdout and stderr into
// one pipe; its output and exit status. Killed after kProbeTimeout.
Result<std::pair<int, std::string>> run_capture(const std::vector<std::string>& args) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, "pipe: {}", std::strerror(errno));
  Fd rd{p[0]};
  Fd wr{p[1]};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, wr.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, wr.fd, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error(ErrorCode::kIo, "cannot start '{}': {}", args[0], std::strerror(rc));
  ::close(wr.fd);
  wr.fd = -1;

  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + kProbeTimeout;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{rd.fd, POLLIN, 0};
    const int n = ::poll(&pfd, 1, int(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    std::array<char, 4096> buf{};
    const ssize_t got = ::read(rd.fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (out.size() < kMaxProbeOutput) out.append(buf.data(), size_t(got));
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return make_error(ErrorCode::kIo, "'{}' took over {} s", args[0], kProbeTimeout.count());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return std::make_pair(code, std::move(out));
}

}  // namespace

std::string_view curve_of_prime(std::string_view prime_hex) {
  if (prime_hex == kBn128Prime) return "bn128";
  if (prime_hex == kBls12381Prime) return "bls12381";
  return {};
}

Result<WasmFacts> probe_wasm(const std::string& node, const std::string& wasm) {
  // The magic first: a file that is not WebAssembly at all is named as such,
  // not reported through node's compile error.
  Fd fd{::open(wasm.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return make_error(ErrorCode::kIo, "--witness-gen wasm:'{}': {}", wasm, std::strerror(errno));
  std::array<unsigned char, 8> head{};
  const ssize_t got = ::read(fd.fd, head.data(), head.size());
  constexpr std::array<unsigned char, 4> kMagic{0x00, 0x61, 0x73, 0x6d};  // "\0asm"
  if (got < 8 || std::memcmp(head.data(), kMagic.data(), kMagic.size()) != 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "--witness-gen wasm:'{}' is not a WebAssembly module (no \\0asm magic)", wasm);
  }
  PP_ASSIGN_OR_RETURN(auto ran, run_capture({node, "-e", kProbeScript, wasm}));
  const auto& [code, out] = ran;
  if (code != 0) {
    return make_error(ErrorCode::kInvalidArgument, "--witness-gen wasm:'{}': node cannot load it: {}", wasm,
                      last_line(out));
  }
  const std::string line = last_line(out);
  if (line.starts_with("missing ")) {
    return make_error(ErrorCode::kInvalidArgument,
                      "--witness-gen wasm:'{}' is not circom's witness calculator: it exports no {}", wasm,
                      line.substr(8));
  }
  WasmFacts facts;
  std::istringstream in(line);
  if (!(in >> facts.field_words >> facts.prime_hex >> facts.witness_size)) {
    return make_error(ErrorCode::kIo, "--witness-gen wasm:'{}': unexpected probe output '{}'", wasm, line);
  }
  return facts;
}

Status check_generator(const std::vector<std::string>& command, const KeyExpectation& key) {
  // resolve_generator's wasm command is {node, generate_witness.js, <circuit>.wasm}.
  if (command.size() != 3 || !command[2].ends_with(".wasm")) return Status::ok();
  const std::string& wasm = command[2];
  PP_ASSIGN_OR_RETURN(const WasmFacts facts, probe_wasm(command[0], wasm));
  const std::string_view curve = curve_of_prime(facts.prime_hex);
  if (curve != key.curve) {
    const std::string gen_field = curve.empty() ? "the field of prime 0x" + facts.prime_hex : std::string(curve);
    return make_error(ErrorCode::kInvalidArgument,
                      "generator '{}' makes {} witnesses, {} is for {}: nothing proved (circom -p picks the "
                      "curve)",
                      wasm, gen_field, key.what, key.curve);
  }
  if (facts.witness_size != key.n_vars) {
    return make_error(ErrorCode::kInvalidArgument,
                      "generator '{}' makes witnesses of {} values, {} expects nVars = {}: it is another "
                      "circuit's generator, nothing proved",
                      wasm, facts.witness_size, key.what, key.n_vars);
  }
  return Status::ok();
}

}  // namespace proofpipe::witness_gen
