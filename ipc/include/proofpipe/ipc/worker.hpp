// What every worker process shares: its command line (set by the
// coordinator's spawner, never typed by users), its exit codes, and the
// session that ties it to the run: the ring mapping, the DEALER socket, the
// seat heartbeat, and the check that the coordinator is still its parent.
//
// Liveness means progress. The heartbeat thread beats only when the work
// counted progress (common/progress.hpp) since its last beat, so a main
// thread that blocks for good stops the beats while every thread runs:
//
//   main thread (the work)              heartbeat thread, every 100 ms
//   serve: recv / 500 ms timeout --+
//   synthesis, proving: each stage -+-> progress count  --moved?--> yes: beat(now)
//   parallel_for: each task index  -+   (one atomic)        |       into the seat record
//   (pool threads, for main)                                no: no beat
//                                                                   |
//   coordinator, every loop turn (check_hangs):                     v
//     now - last_beat_ms > --hang-timeout (before HELLO: the    SeatRecord
//     longer set-up deadline) -> SIGKILL, reclaim, requeue      last_beat_ms
//
// A `stall` fault (fault.hpp) is exactly the case a beat from a thread of its
// own would miss. The largest gap between beats, and the step it was spent in, are
// logged (debug) when the worker ends, to set --hang-timeout against.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/ipc/messages.hpp"
#include "proofpipe/shm/ring.hpp"

namespace CLI {
class App;
}

namespace proofpipe::ipc {

// Worker exit codes: each names one cause in the coordinator's death log.
// (kFaultExitCode = 77 in common/fault.hpp is an injected `exit` fault.)
inline constexpr int kWorkerExitOk = 0;          // SHUTDOWN received
inline constexpr int kWorkerExitUsage = 64;      // bad command line (a bug in the spawner)
inline constexpr int kWorkerExitSetup = 65;      // ring, zkey or endpoint could not be opened
inline constexpr int kWorkerExitOrphaned = 66;   // the coordinator is gone
inline constexpr int kWorkerExitProtocol = 67;   // the control plane failed (socket error)
inline constexpr int kWorkerExitDevice = 68;     // a sticky GPU error (kDeviceLost): only a new process recovers
inline constexpr int kWorkerExitGenerator = 69;  // its witness generator died of a signal (docs/witness-gen.md)
const char* worker_exit_name(int code);

struct WorkerArgs {
  std::string endpoint;            // ipc://<run dir>/control
  std::string ring;                // shm name prefix
  std::vector<std::string> zkeys;  // --zkey, repeated: the keys a partition's `key` field indexes
  unsigned seat = 0;
  unsigned incarnation = 0;
  long parent = 0;                        // the coordinator's pid
  std::string backend = "auto";           // gpu worker
  uint64_t generate_timeout_ms = 600000;  // synth worker: --witness-gen-timeout, per generator run
  uint64_t generate_stall_ms = 0;         // synth worker: --hang-timeout, a generator without CPU or output (0: none)
};
void add_worker_options(CLI::App& app, WorkerArgs& args);

class WorkerSession {
 public:
  // Sets PR_SET_PDEATHSIG, checks the parent, arms fault points, opens the
  // ring, connects and starts the heartbeat (so a set-up that hangs is seen
  // by the coordinator's hang check). On error the caller logs and exits
  // with kWorkerExitSetup.
  static Result<std::unique_ptr<WorkerSession>> start(Role role, const WorkerArgs& args);
  ~WorkerSession();

  // Says HELLO: the worker's own set-up (key, backend) is done and it takes
  // work. The coordinator dispatches only after it, and tells a worker that
  // dies before it ("set-up failed", retried once) from one that crashes
  // while working (restarted up to 5 times in a row). `body`: what the
  // worker proves with (the GPU worker's backend name), for the run summary.
  // Beats first: from HELLO on the coordinator holds the seat to
  // --hang-timeout, and the last set-up step may have been a long one.
  Status ready(std::string body = {});

  shm::Ring& ring() { return ring_; }
  uint8_t seat() const { return seat_; }
  // Fills in role, seat, incarnation, pid.
  Status send(MsgType type, MsgHeader h = {}, std::string body = {});
  // Next message from the coordinator; nullopt when none came in `timeout`.
  // Errors are fatal (socket gone).
  Result<std::optional<Message>> recv(std::chrono::milliseconds timeout);
  bool parent_alive() const;

 private:
  WorkerSession(Role role, const WorkerArgs& args, shm::Ring ring, Dealer dealer);

  Role role_;
  uint8_t seat_;
  uint32_t incarnation_;
  pid_t parent_;
  shm::Ring ring_;
  Dealer dealer_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ready_{false};  // HELLO said: set-up is over
  std::thread heartbeat_;
};

// The worker loop both workers share: waits for messages (checking that the
// coordinator is still the parent every 500 ms), returns kWorkerExitOk on
// SHUTDOWN, passes messages of type `type` to `handle` (an error from it is
// fatal: kWorkerExitDevice for kDeviceLost, else kWorkerExitProtocol), logs
// and ignores anything else.
int serve(WorkerSession& session, MsgType type, const std::function<Status(const Message&)>& handle);

// A worker's main(): parses the command line (kWorkerExitUsage on a bad one),
// names the logger "<role>.<seat>" and returns run(args).
int worker_main(int argc, char** argv, Role role, int (*run)(const WorkerArgs&));

}  // namespace proofpipe::ipc
