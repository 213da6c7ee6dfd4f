// What the cgroup layer (cgroup.hpp) and `proofpipe doctor` read and write of
// the kernel's cgroup files, behind a small interface so that tests can put a
// fake kernel under them (tests/engine/fake_cgroup_kernel.hpp: a tree in a temporary
// folder whose writes are checked against the kernel's rules), and the probe
// that finds this process's memory cgroup from /proc/self/cgroup and
// /proc/mounts given as text.
//
// Delegation (cgroup v2): proofpipe creates cgroups only under the cgroup it
// was started in, and only when that cgroup was handed to it:
//   - systemd Delegate=yes marks the unit's cgroup with the extended
//     attribute trusted.delegate (or user.delegate) = "1" (systemd >= 251)
//     and, for a unit with User=, chowns its cgroup.procs and
//     cgroup.subtree_control to that user;
//   - a container with its own cgroup namespace sees its cgroup as "/".
// Anything else belongs to someone else (systemd moves processes and
// rewrites controllers there), so it is left alone: RLIMIT_AS instead.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cgroup.hpp"
#include "proofpipe/common/status.hpp"

namespace proofpipe::engine {

// The kernel's files. The base class is the real one (open/write/mkdir/rmdir
// under the real /sys/fs/cgroup); a test's fake overrides the calls that
// change the tree and checks each against the kernel's rules.
class CgroupFs {
 public:
  virtual ~CgroupFs() = default;
  // The whole small file (cgroupfs files report size 0, so it is read to EOF);
  // nullopt when it cannot be opened (absent, a link).
  virtual std::optional<std::string> read(const std::filesystem::path& file) const;
  // One write(2) of `value`, as the kernel wants it: the error names the
  // file and the errno text ("Device or resource busy").
  virtual Status write(const std::filesystem::path& file, const std::string& value);
  virtual Status make_dir(const std::filesystem::path& dir);
  virtual Status remove_dir(const std::filesystem::path& dir);
  virtual bool exists(const std::filesystem::path& p) const;
  // The sub-cgroups of `dir` (names).
  virtual std::vector<std::string> children(const std::filesystem::path& dir) const;
  // Whether `dir` carries a delegation mark for this process (see above).
  virtual bool delegation_marked(const std::filesystem::path& dir) const;
  // SIGKILLs every process listed in `dir`/cgroup.procs, round by round
  // until it lists none (one may fork meanwhile), for at most `wait_ms`.
  // Only under /sys/fs/cgroup: a pid read from any other file (a test's
  // fake tree) is never signalled. False: some were still there.
  virtual bool kill_members(const std::filesystem::path& dir, int wait_ms) const;
};
CgroupFs& real_cgroup_fs();

// What the layer is given: the kernel's files, and the texts of
// /proc/self/cgroup and /proc/mounts with the mount points resolved under
// `sysroot` ("/" for real; a test's temporary folder).
struct CgroupEnv {
  CgroupFs* fs = nullptr;
  std::string proc_self_cgroup;
  std::string proc_mounts;
  std::filesystem::path sysroot = "/";
  pid_t self = 0;
  // How long removing a v2 leaf waits for `populated 0` in its cgroup.events
  // after its worker was reaped (the kernel empties it asynchronously; an
  // OOM group kill may still be taking down a worker's children).
  int populated_wait_ms = kPopulatedWaitMs;
  // This process, the real files.
  static CgroupEnv system();
};

// Where this process's memory cgroup is and what may be done there.
struct CgroupProbe {
  CgroupVersion version = CgroupVersion::kUnavailable;  // of the memory controller
  std::filesystem::path own;                            // our cgroup's directory (resolved under sysroot)
  std::string own_path;                                 // as /proc/self/cgroup names it
  bool memory = false;     // v2: "memory" in own/cgroup.controllers (v1: the controller is mounted)
  bool pids = false;       // v2: "pids" there too
  bool delegated = false;  // v2: ours to create cgroups under (v1: no such notion; true)
  bool writable = false;   // own/cgroup.procs can be written by us (access(2))
  bool has_peak = false;   // v2: memory.peak exists (kernel >= 5.19)
  std::string why;         // when unusable: what is missing, in one clause
  bool usable() const { return version != CgroupVersion::kUnavailable && why.empty(); }
};
CgroupProbe probe_cgroups(const CgroupEnv& env);

// "key value" lines (memory.events, cgroup.events): the value of `key`, 0 when absent.
uint64_t cgroup_keyed_value(const std::string& text, const std::string& key);
// Whitespace-separated words (cgroup.controllers, cgroup.subtree_control).
std::vector<std::string> cgroup_words(const std::string& text);

}  // namespace proofpipe::engine
