// The CLI calls the integration suites share: our prove/verify/run, snarkjs's
// verify, and a look at /dev/shm for rings a run left behind.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "support/subprocess.hpp"

namespace proofpipe::test {

inline CommandResult pp_prove(const std::filesystem::path& zkey, const std::filesystem::path& wtns,
                              const std::filesystem::path& proof, const std::filesystem::path& pub) {
  return run_command(proofpipe() + " prove " + quote(zkey) + " " + quote(wtns) + " " + quote(proof) + " " + quote(pub));
}
inline CommandResult pp_verify(const std::filesystem::path& vk, const std::filesystem::path& pub,
                               const std::filesystem::path& proof) {
  return run_command(proofpipe() + " verify " + quote(vk) + " " + quote(pub) + " " + quote(proof));
}
inline CommandResult snarkjs_verify(const std::filesystem::path& vk, const std::filesystem::path& pub,
                                    const std::filesystem::path& proof) {
  return run_command(snarkjs() + " groth16 verify " + quote(vk) + " " + quote(pub) + " " + quote(proof));
}
// `proofpipe run <args>` with optional environment assignments before it.
inline CommandResult pp_run(const std::string& args, const std::string& env = "") {
  return run_command(env + (env.empty() ? "" : " ") + proofpipe() + " run " + args);
}

// Names under /dev/shm that a proofpipe ring uses ("proofpipe-<pid>-<run id hex>-ctl" and "-data").
inline std::set<std::string> shm_rings() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("proofpipe-", 0) == 0) names.insert(n);
  }
  return names;
}

// Rings present now that were not in `before` (a run may also remove stale
// rings of dead coordinators, so only additions count as leftovers).
inline std::set<std::string> new_rings(const std::set<std::string>& before) {
  std::set<std::string> added;
  for (const auto& n : shm_rings()) {
    if (!before.count(n)) added.insert(n);
  }
  return added;
}

}  // namespace proofpipe::test
