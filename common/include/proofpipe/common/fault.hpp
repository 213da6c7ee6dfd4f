// Fault points: named sites in the workers where a test can make the process
// die, hang or stall on purpose (docs/design/overview.md §5, docs/design/recovery.md §6).
//
//   PROOFPIPE_FAULTS=site[~partition]:action[@n],...   e.g. synth.mid_write:kill@2
//
// actions: kill (SIGKILL itself), exit (exit code kFaultExitCode), hang
// (sleep until killed, the heartbeat stopped too: the whole process looks
// frozen), stall (block the calling thread until killed while every other
// thread, the heartbeat's and the pool's, runs on: a deadlock or a kernel
// that never returns, which only the heartbeat's progress rule sees, see
// ipc/worker.hpp), oom (allocate and touch memory until the kernel kills
// it), delay=MS (sleep MS milliseconds, then go on: a slow stage that
// counts no progress, so one longer than --hang-timeout is killed as a
// stall), spike=MB (map, touch and unmap MB MiB at once: a short memory
// peak for the sampler),
// and at the sites that can return an error (fault_status), device_lost (a
// kDeviceLost error, as a sticky CUDA error gives: the GPU worker must exit
// with kWorkerExitDevice and be restarted) and error (a kInternal error, as
// a failed operation gives: the partition is requeued, no restart), and at
// the sites that hold bytes (fault_damage), corrupt (flip one bit of them:
// a stray write or a memory error after the record's checksum). Without @n
// the action fires every time the site is reached; with @n only on the n-th
// time (1-based, counted per process). ~partition restricts the entry to
// the site being reached while working on that partition (its index in the
// run), so one partition can be made to fail on every attempt. Unset, a site
// costs one load of a static flag.
//
// Which incarnations are armed is the coordinator's choice (pipeline.md):
// by default delay and ~partition entries reach every incarnation of a
// worker, the others only its first, so a run with a kill fault recovers.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe {

// Exit status of a worker stopped by an `exit` fault: distinct from every
// real worker exit code (ipc/worker.hpp), so the coordinator's log names it.
inline constexpr int kFaultExitCode = 77;

enum class FaultAction { kKill, kExit, kHang, kStall, kOom, kDelay, kSpike, kDeviceLost, kError, kCorrupt };

struct FaultSpec {
  std::string site;
  int partition = -1;  // -1: any
  FaultAction action = FaultAction::kKill;
  unsigned delay_ms = 0;  // kDelay only
  unsigned spike_mb = 0;  // kSpike only
  unsigned nth = 0;       // 0: every time
};

// Parses a PROOFPIPE_FAULTS value. kInvalidArgument naming the bad entry.
Result<std::vector<FaultSpec>> parse_faults(std::string_view text);
// The entries again in PROOFPIPE_FAULTS syntax (round trip of parse_faults).
std::string format_faults(const std::vector<FaultSpec>& specs);
// True once a `hang` fault fired in this process: the worker's heartbeat
// thread stops beating then, so the process looks frozen as a whole. (A
// `stall` leaves this false: its heartbeat thread runs, the work does not.)
bool fault_hung();

namespace detail {
extern bool g_faults_armed;
// can_return: the site returns the error of a device_lost/error entry;
// damageable: the bytes a corrupt entry may flip a bit of (empty: none).
Status fault_reached(const char* site, int partition, bool can_return, std::span<std::byte> damageable = {});
}  // namespace detail

// Reads PROOFPIPE_FAULTS once (call at process start). A malformed value is
// an error the caller reports; faults stay unarmed then.
Status arm_faults_from_env();

// A fault site. Sites are string literals named "<process>.<moment>";
// `partition` is the run index of the partition at hand (-1: none).
inline void fault_point(const char* site, int partition = -1) {
  if (detail::g_faults_armed) (void)detail::fault_reached(site, partition, false);
}

// A fault site where the code can return an error: as fault_point, and a
// device_lost or error entry that fires makes it return that error (at a
// plain fault_point those two only log that they cannot fire there).
[[nodiscard]] inline Status fault_status(const char* site, int partition = -1) {
  return detail::g_faults_armed ? detail::fault_reached(site, partition, true) : Status::ok();
}

// A fault site that holds bytes: as fault_point, and a corrupt entry that
// fires flips the lowest bit of the middle byte of `bytes`.
inline void fault_damage(const char* site, int partition, std::span<std::byte> bytes) {
  if (detail::g_faults_armed) (void)detail::fault_reached(site, partition, false, bytes);
}

}  // namespace proofpipe
