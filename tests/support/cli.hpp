// The CLI calls the integration suites share: our prove/verify/run, snarkjs's
// verify, and a look at /dev/shm for rings the test's own runs left behind
// (a proofpipe service or run of someone else's may make and remove rings
// there meanwhile: those are not the test's to judge).
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "support/descendant.hpp"
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
// `proofpipe run <args>` with optional environment assignments (or a
// wrapper such as `timeout ...`) before it, stopped with SIGTERM after
// `limit` if one is given (exit code 124). `exec env` keeps the shell's pid,
// which run_command notes, for what it runs: without a wrapper that is the
// coordinator, whose pid names its ring and cgroups.
inline CommandResult pp_run(const std::string& args, const std::string& env = "",
                            std::chrono::seconds limit = std::chrono::seconds::zero()) {
  return run_command("exec env " + env + (env.empty() ? "" : " ") + proofpipe() + " run " + args, limit);
}

// The proofpipe rings under /dev/shm ("proofpipe-<pid>-<run id hex>-ctl"
// and "-data"), and the mark of the processes the test had started by then.
struct RingSnapshot {
  std::set<std::string> names;
  size_t started = 0;
};
inline RingSnapshot shm_rings() {
  RingSnapshot s;
  s.started = started_mark();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("proofpipe-", 0) == 0) s.names.insert(n);
  }
  return s;
}

// The coordinator pid a ring's name carries, 0 if it carries none.
inline pid_t ring_pid(const std::string& name) {
  const size_t from = std::string("proofpipe-").size(), end = name.find('-', from);
  if (end == std::string::npos || end == from || end - from > 9) return 0;
  if (name.find_first_not_of("0123456789", from) != end) return 0;
  return pid_t(std::stol(name.substr(from, end - from)));
}

// Rings present now that were not in `before` and were made by a
// coordinator the test started since then (a run may also remove stale
// rings of dead coordinators, so only additions count as leftovers).
inline std::set<std::string> new_rings(const RingSnapshot& before) {
  std::set<std::string> added;
  for (const auto& n : shm_rings().names) {
    if (!before.names.count(n) && started_by_test(ring_pid(n), before.started)) added.insert(n);
  }
  return added;
}

}  // namespace proofpipe::test
