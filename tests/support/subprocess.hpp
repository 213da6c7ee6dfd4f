// Runs a shell command for integration tests and captures its combined
// stdout+stderr and exit code. Paths to our executables and to the pinned
// snarkjs come from compile definitions set in tests/CMakeLists.txt.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace proofpipe::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr interleaved
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), got);
  int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline std::string quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// build/bin/<name>
inline std::filesystem::path bin_path(const std::string& name) { return std::filesystem::path(PP_BIN_DIR) / name; }

// The pinned snarkjs CLI from node_modules (scripts/setup.sh installs it).
inline std::string snarkjs() {
  return "node " + quote(std::filesystem::path(PP_SOURCE_DIR) / "node_modules/snarkjs/build/cli.cjs");
}

inline std::filesystem::path data_dir() { return std::filesystem::path(PP_TEST_DATA_DIR); }

// The quoted path of our own CLI.
inline std::string proofpipe() { return quote(bin_path("proofpipe")); }

// A fresh temporary directory per test, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proofpipe-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? std::filesystem::path(tmpl) : std::filesystem::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace proofpipe::test
