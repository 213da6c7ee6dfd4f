// Witness generation inside a synthesis worker (docs/witness-gen.md): runs a
// circom witness generator (node + circom's generate_witness.js, or the
// executable circom's --c output builds) as a child process of the worker,
// so it lives in the worker's cgroup and under its memory cap, and hands the
// .wtns it wrote back as a memfd. Nothing touches the disk:
//
//   worker                                        generator (child)
//   read_regular_file(input) -> memfd "input"  -> fd 4  (/dev/fd/4: input JSON)
//   memfd "witness"                             -> fd 3  (/dev/fd/3: out.wtns)
//   pipe <------------------------------------- fd 1, 2 (its messages)
//   poll every 100 ms: the worker beats while    PR_SET_PDEATHSIG SIGKILL: dies
//   it watches; no CPU time and no output for    with the worker
//   GeneratorLimits::stall is a stall            oom_score_adj 1000: the OOM
//                                                killer's first choice in the cgroup
//
// A killed worker takes its generator with it (PDEATHSIG) and both memfds
// vanish with the last process holding them.
//
// The generator is untrusted code fed untrusted input, so each run is
// fenced: its own process group, killed whole (SIGKILL) at every end of the
// run, and any process of its that left the group (setsid) killed too, the
// worker being their subreaper (become_subreaper); a wall-clock limit and a
// stall limit; a fresh 0700 working directory, removed after; an environment
// cut to kEnvAllowList; the input opened without following a link. Its
// failures cost the worker nothing: an OOM kill inside the worker's cgroup
// takes the generator (oom_score_adj 1000), not the worker, and the worker
// reports the failure and takes the next partition.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::witness_gen {

// The largest input JSON a worker reads (it holds one copy, in a memfd,
// while the generator runs): far above what circom circuits take.
inline constexpr uint64_t kMaxInputBytes = 256ull << 20;

// The default wall-clock limit per generator run (--witness-gen-timeout):
// far above a 2^20-constraint circuit's generation (seconds), short enough
// that a generator stuck in a signal-dependent loop frees its worker.
inline constexpr std::chrono::milliseconds kDefaultTimeout{10 * 60 * 1000};

// The variables a generator inherits, by name (an entry ending in '_' is a
// prefix: LC_*); every other one, the service's secrets included, is
// dropped. HOME and TMPDIR are not inherited: both are set to the run's
// private working directory.
//   PATH          circom's generate_witness.js is run by node, which may
//                 look up helpers; the command itself is an absolute path
//   LANG, LC_*    message language of the generator's errors
//   TZ            timestamps in its messages
//   NODE_OPTIONS  the operator's V8 settings (--max-old-space-size for
//                 large circuits); set by whoever starts proofpipe, never
//                 by a client
inline constexpr const char* kEnvAllowList[] = {"PATH", "LANG", "LC_", "TZ", "NODE_OPTIONS"};

// Removes the working directories generator runs in process `pid` made
// under `parent` (empty: as GeneratorLimits::work_parent): a synthesis
// worker killed (a cancel, a crash) while a generator ran leaves its
// directory behind, and its supervisor clears it when it reaps the worker.
// Only directories of that name owned by this user; no link is followed.
void remove_work_dirs_of(pid_t pid, const std::filesystem::path& parent = {});

struct GeneratorLimits {
  std::chrono::milliseconds timeout = kDefaultTimeout;  // wall clock, from the fork
  // No CPU time and no output for this long: stalled, killed (0: no limit).
  // The synthesis worker sets --hang-timeout: a generator that waits is
  // judged by the same patience as a worker that waits.
  std::chrono::milliseconds stall{0};
  // Where the private working directory is made: empty means $TMPDIR, else
  // /tmp (the synthesis workers use that default).
  std::filesystem::path work_parent;
};

// How a generator run ended, and what the worker does about it (the retry
// rule, docs/witness-gen.md). The worker survives every one of them:
//   kOk            exit 0: the witness is in `witness_fd`.
//   kInputFailure  exit != 0 without a signal, or SIGABRT (circom's native
//                  generator reports a failed assert and bad JSON by abort()),
//                  and its output does not say it ran out of memory; also an
//                  input file that cannot be read. Deterministic: the same
//                  input fails the same way again, so the partition fails
//                  at once (the coordinator still retries it if the worker's
//                  cgroup recorded an OOM kill meanwhile).
//   kKilled        SIGKILL: the kernel's OOM killer inside the worker's capped
//                  cgroup (or an operator): retried within --max-attempts; the
//                  coordinator reads the cgroup's OOM counter to say which.
//   kCrashed       any other signal, or an out-of-memory message: retried.
//   kTimedOut      ran past GeneratorLimits::timeout and was killed (its
//                  whole process group): retried (a contended host or a slow
//                  remote dependency passes), failed after --max-attempts.
//   kStalled       no CPU time and no output for GeneratorLimits::stall:
//                  killed, retried as kTimedOut.
struct GeneratorRun {
  enum class End { kOk, kInputFailure, kKilled, kCrashed, kTimedOut, kStalled };
  End end = End::kCrashed;
  int exit_code = 0;                     // when it exited
  int signal = 0;                        // when a signal ended it
  std::chrono::milliseconds timeout{0};  // kTimedOut, kStalled: the limit it ran past
  int witness_fd = -1;                   // kOk: a memfd holding the .wtns (the caller closes it)
  std::string output;                    // the last lines of its stdout and stderr, bounded
  // "witness generator exited with code 1: Error: Assert Failed. | ..."
  std::string describe() const;
};

// Makes this process the child subreaper of its descendants (prctl), so a
// generator's child that left its process group (setsid) is re-parented to
// it, not to init, and run_generator kills it at the run's end. A synthesis
// worker calls it once at start; it has no other children.
Status become_subreaper();

// Runs the generator `req.command` + [input, output] to its end. `progress`
// is called every poll (100 ms) while the worker watches it: the worker's
// heartbeat says the worker is alive, and the stall limit judges the
// generator. An error only when the child cannot be started (memfd, pipe,
// fork, the working directory). However it ends, no process of its group is
// left when this returns (nor, in a subreaper, any other child of this
// process), and its working directory is gone.
Result<GeneratorRun> run_generator(const ipc::GenerateRequest& req, const std::function<void()>& progress,
                                   const GeneratorLimits& limits = {});

}  // namespace proofpipe::witness_gen
