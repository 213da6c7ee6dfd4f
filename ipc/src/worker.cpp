// WorkerSession: a worker's link to its run (worker.hpp).
#include "proofpipe/ipc/worker.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "proofpipe/common/fault.hpp"
#include "proofpipe/common/logging.hpp"
#include "proofpipe/common/progress.hpp"

namespace proofpipe::ipc {

// The heartbeat looks at the progress count every 100 ms: a stalled worker
// is noticed within the coordinator's timeout (seconds) while the look costs
// nothing next to a proof.
constexpr auto kBeatInterval = std::chrono::milliseconds(100);

namespace {
// The figure to hold against the coordinator's deadlines (set-up's, and
// --hang-timeout for the work): logged when each part ends.
void log_longest_gap(const char* part, ProgressWatch& watch) {
  spdlog::debug("heartbeat: longest gap between beats in {}: {:.3f} s (in '{}')", part,
                double(watch.longest_gap_ms()) / 1000, watch.longest_gap_phase());
  watch.reset_longest();
}
}  // namespace

const char* worker_exit_name(int code) {
  switch (code) {
    case kWorkerExitOk: return "clean exit";
    case kWorkerExitUsage: return "bad worker command line";
    case kWorkerExitSetup: return "worker set-up failed";
    case kWorkerExitOrphaned: return "coordinator gone";
    case kWorkerExitProtocol: return "control-plane error";
    case kWorkerExitDevice: return "GPU device error";
    case kWorkerExitGenerator: return "its witness generator crashed";
    case kFaultExitCode: return "injected exit fault";
    default: return "error exit";
  }
}

void add_worker_options(CLI::App& app, WorkerArgs& a) {
  app.add_option("--endpoint", a.endpoint, "coordinator endpoint (ipc://...)")->required();
  app.add_option("--ring", a.ring, "shared-memory ring name prefix")->required();
  app.add_option("--zkey", a.zkeys, "proving key (repeated: one per key the run serves)")->required();
  app.add_option("--seat", a.seat, "seat number")->required()->check(CLI::Range(0u, 254u));
  app.add_option("--incarnation", a.incarnation, "incarnation id")->required();
  app.add_option("--parent", a.parent, "coordinator pid")->required();
  app.add_option("--backend", a.backend, "auto|cpu|cuda (gpu worker)");
  app.add_option("--generate-timeout-ms", a.generate_timeout_ms,
                 "wall-clock limit per witness generator run (synthesis worker)");
  app.add_option("--generate-stall-ms", a.generate_stall_ms,
                 "a witness generator with no CPU time and no output this long is killed (synthesis worker)");
}

Result<std::unique_ptr<WorkerSession>> WorkerSession::start(Role role, const WorkerArgs& args) {
  // Die with the coordinator; then close the race where it died before the
  // prctl (we would have been re-parented already).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != pid_t(args.parent)) {
    return make_error(ErrorCode::kUnavailable, "coordinator {} is not our parent (parent {})", args.parent,
                      ::getppid());
  }
  PP_RETURN_IF_ERROR(arm_faults_from_env());
  PP_ASSIGN_OR_RETURN(shm::Ring ring, shm::Ring::open(args.ring));
  if (args.seat >= ring.seat_count()) {
    return make_error(ErrorCode::kInvalidArgument, "seat {} outside the ring's {} seats", args.seat, ring.seat_count());
  }
  PP_ASSIGN_OR_RETURN(Dealer dealer, Dealer::connect(args.endpoint, routing_id(role, args.seat, args.incarnation)));
  return std::unique_ptr<WorkerSession>(new WorkerSession(role, args, std::move(ring), std::move(dealer)));
}

WorkerSession::WorkerSession(Role role, const WorkerArgs& args, shm::Ring ring, Dealer dealer)
    : role_(role),
      seat_(uint8_t(args.seat)),
      incarnation_(args.incarnation),
      parent_(pid_t(args.parent)),
      ring_(std::move(ring)),
      dealer_(std::move(dealer)) {
  ring_.beat(seat_, shm::monotonic_ms());
  heartbeat_ = std::thread([this] {
    ProgressWatch watch(shm::monotonic_ms());
    bool in_setup = true;
    while (!stop_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(kBeatInterval);
      const uint64_t now = shm::monotonic_ms();
      if (!fault_hung() && watch.moved(now)) ring_.beat(seat_, now);
      if (in_setup && ready_.load(std::memory_order_relaxed) && watch.last_beat_ms() == now) {
        log_longest_gap("set-up", watch);  // its last step ended with the HELLO beat
        in_setup = false;
      }
    }
    log_longest_gap(in_setup ? "set-up" : "work", watch);
  });
}

WorkerSession::~WorkerSession() {
  stop_ = true;
  if (heartbeat_.joinable()) heartbeat_.join();
}

Status WorkerSession::ready(std::string body) {
  note_progress("ready");
  ready_ = true;
  ring_.beat(seat_, shm::monotonic_ms());
  ring_.set_seat_phase(seat_, shm::SeatPhase::kWorking);
  return send(MsgType::kHello, {}, std::move(body));
}

Status WorkerSession::send(MsgType type, MsgHeader h, std::string body) {
  h.type = type;
  h.role = role_;
  h.seat = seat_;
  h.incarnation = incarnation_;
  h.pid = uint32_t(::getpid());
  return dealer_.send(Message{h, std::move(body)});
}

Result<std::optional<Message>> WorkerSession::recv(std::chrono::milliseconds timeout) { return dealer_.recv(timeout); }

bool WorkerSession::parent_alive() const { return ::getppid() == parent_; }

int serve(WorkerSession& s, MsgType type, const std::function<Status(const Message&)>& handle) {
  for (;;) {
    note_progress("serve");  // idle or not, the loop turns: at least every 500 ms
    auto msg = s.recv(std::chrono::milliseconds(500));
    if (!msg) {
      spdlog::error("{}", msg.status().message());
      return kWorkerExitProtocol;
    }
    if (!msg->has_value()) {
      if (!s.parent_alive()) return kWorkerExitOrphaned;
      continue;
    }
    const Message& m = **msg;
    if (m.header.type == MsgType::kShutdown) return kWorkerExitOk;
    if (m.header.type != type) {
      spdlog::warn("unexpected {}", describe(m.header));
      continue;
    }
    if (Status st = handle(m); !st) {
      spdlog::error("{}", st.message());
      return st.code() == ErrorCode::kDeviceLost ? kWorkerExitDevice : kWorkerExitProtocol;
    }
  }
}

int worker_main(int argc, char** argv, Role role, int (*run)(const WorkerArgs&)) {
  WorkerArgs args;
  CLI::App app{std::string("proofpipe ") + role_name(role) + " worker (spawned by `proofpipe run`)"};
  add_worker_options(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    app.exit(err);
    return kWorkerExitUsage;
  }
  init_logging(std::string(role_name(role)) + "." + std::to_string(args.seat));
  return run(args);
}

}  // namespace proofpipe::ipc
