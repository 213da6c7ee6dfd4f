// Provenance of a run (provenance.hpp).
#include "proofpipe/engine/provenance.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "proofpipe/common/blake2b.hpp"
#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/version.hpp"

namespace proofpipe::engine {
namespace fs = std::filesystem;
namespace {

// The command line as given, from the kernel: arguments joined by spaces,
// each with spaces or quotes in it single-quoted.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line, arg;
  while (std::getline(in, arg, '\0')) {
    const bool quote = arg.empty() || arg.find_first_of(" \t'\"\\$") != std::string::npos;
    line += (line.empty() ? "" : " ") + (quote ? "'" + arg + "'" : arg);
  }
  return line;
}

std::string hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

std::string absolute_path(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? p : a.lexically_normal()).string();
}

}  // namespace

std::string version_string() { return fmt::format("{} ({})", kReleaseVersion, kGitDescribe); }

Result<std::string> blake2b_file(const fs::path& file) {
  // O_NOFOLLOW: the key was checked as a regular file; a link swapped in since is not read.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return make_error(ErrorCode::kIo, "cannot read '{}': {}", file.string(), std::strerror(errno));
  Blake2b h;
  std::vector<uint8_t> buf(size_t{4} << 20);  // 4 MiB reads: one pass, few system calls
  for (;;) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      return make_error(ErrorCode::kIo, "cannot read '{}': {}", file.string(), std::strerror(err));
    }
    if (got == 0) break;
    h.update(std::span<const uint8_t>(buf.data(), size_t(got)));
  }
  ::close(fd);
  return h.final_hex();
}

Provenance::Provenance(fs::path zkey, std::string curve, std::vector<fs::path> witnesses, fs::path out)
    : zkey_(std::move(zkey)),
      out_(std::move(out)),
      curve_(std::move(curve)),
      witnesses_(std::move(witnesses)),
      started_(std::chrono::system_clock::now()),
      hash_(std::async(std::launch::async, [file = zkey_] { return blake2b_file(file); })) {}

nlohmann::json Provenance::finish(const std::vector<std::string>& proved_stems) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(zkey_, ec);
  const Result<std::string> hash = hash_.get();
  nlohmann::json witnesses = nlohmann::json::array();
  for (const auto& w : witnesses_) witnesses.push_back(absolute_path(w));
  nlohmann::json proofs = nlohmann::json::array();
  const std::string out = absolute_path(out_);
  for (const auto& stem : proved_stems) {
    proofs.push_back({{"proof", (fs::path(out) / (stem + ".proof.json")).string()},
                      {"public", (fs::path(out) / (stem + ".public.json")).string()}});
  }
  return {{"version", version_string()},
          {"git_describe", kGitDescribe},
          {"command_line", command_line()},
          {"started_at", iso8601_utc(started_)},
          {"ended_at", iso8601_utc(std::chrono::system_clock::now())},
          {"hostname", hostname()},
          {"curve", curve_},
          {"zkey",
           {{"path", absolute_path(zkey_)},
            {"size_bytes", ec ? 0 : uint64_t(size)},
            {"blake2b_256", hash ? *hash : "unavailable: " + hash.status().message()}}},
          {"witnesses", witnesses},
          {"outputs", {{"out", out}, {"summary", (fs::path(out) / "summary.json").string()}, {"proofs", proofs}}}};
}

}  // namespace proofpipe::engine
