// Where the running executable really is: /proc/self/exe with every link
// resolved, so a copy, a moved prefix or a link to the binary finds what was
// installed beside the binary itself. Never $PATH, argv[0], the working
// directory or the environment: the engine starts its workers from here,
// `demo` finds its circuit and `serve` its PostgreSQL queue module, and a
// caller running as root must not be pointed elsewhere by its environment.
#pragma once

#include <filesystem>
#include <optional>
#include <system_error>

namespace proofpipe {

// The executable's path; nullopt when /proc is not mounted.
inline std::optional<std::filesystem::path> own_executable() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return exe;
}

// The folder the executable is in (bin/ of the build tree or of a prefix).
inline std::optional<std::filesystem::path> own_bin_dir() {
  auto exe = own_executable();
  if (!exe) return std::nullopt;
  return exe->parent_path();
}

}  // namespace proofpipe
