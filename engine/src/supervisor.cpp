// The Supervisor's set-up, event loop and scheduling (supervisor.hpp).
// Messages are handled in supervisor_messages.cpp; deaths, reclaim and
// shutdown in supervisor_recovery.cpp; figures, sampling and status by the Reporter
// (reporter.cpp).
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "proofpipe/common/logging.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/outputs.hpp"
#include "proofpipe/engine/run_dir.hpp"
#include "stale.hpp"
#include "supervisor.hpp"

namespace proofpipe::engine {

using shm::SlotState;

// 100 ms: the longest the loop sleeps without an event; it bounds how late a
// respawn or hang check runs, and costs nothing while proofs take seconds.
constexpr int kPollMs = 100;
// Unix socket paths hold 107 bytes (sun_path is 108 with the NUL).
constexpr size_t kMaxIpcPath = 107;

// The next SIGINT/SIGTERM waiting on the (non-blocking) signalfd; 0: none.
static uint32_t next_signal(int fd) {
  signalfd_siginfo info{};
  return ::read(fd, &info, sizeof info) == ssize_t(sizeof info) ? info.ssi_signo : 0;
}

Supervisor::Supervisor(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys, Host* host)
    : cfg_(cfg),
      ledger_(ledger),
      keys_(keys),
      host_(host),
      t0_(std::chrono::steady_clock::now()),
      reporter_(cfg, ledger, t0_) {}

Supervisor::~Supervisor() {
  for (SeatProcess& w : workers_) {
    if (!w.child) continue;
    const pid_t pid = w.child->pid();
    w.child.reset();  // the Child's destructor SIGKILLs and reaps it
    child_gone(w, pid);
  }
  workers_.clear();
  router_.reset();
  ring_.reset();
  if (!ring_prefix_.empty()) (void)shm::Ring::unlink(ring_prefix_);
  // Only run.json and the socket, then rmdir if this run made it (run_dir.hpp).
  if (!run_dir_.empty()) remove_run_files(run_dir_, run_dir_created_);
  if (signal_fd_ >= 0) {
    // SIGINT/SIGTERM stay blocked for the rest of the process: what is left
    // of it writes summary.json and exits (130 if interrupted), and a signal
    // let through now would kill it half-way by its default action (exit
    // 143, no summary, the cgroups left). Those that came during the
    // shutdown are drained and logged; any later one dies with the process.
    while (const uint32_t sig = next_signal(signal_fd_)) {
      spdlog::warn("signal {} received while stopping: clean-up goes on", sig);
    }
    ::close(signal_fd_);
  }
}

double Supervisor::now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

Status Supervisor::setup() {
  // SIGINT/SIGTERM become an event in the poll set: the loop then stops the
  // workers and removes the ring and run directory before exiting. Blocked
  // before anything is made, so no signal finds a half-made run to leave
  // behind; they stay blocked until the process exits (~Supervisor).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal_fd_ = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0)
    return make_error(ErrorCode::kIo, "cannot watch for SIGINT/SIGTERM (signalfd): {}", std::strerror(errno));
  // The private run directory (0700): it holds the control socket, so only
  // this user's processes can talk to the coordinator.
  {
    PP_ASSIGN_OR_RETURN(
        RunDir dir, cfg_.run_dir.empty() ? RunDir::create_private(default_run_base()) : RunDir::adopt(cfg_.run_dir));
    // From here the destructor cleans it up (run_dir_created_: rmdir too).
    run_dir_ = dir.path();
    run_dir_created_ = dir.made();
    dir.release();
  }
  const std::string socket_path = (run_dir_ / "control").string();
  if (socket_path.size() > kMaxIpcPath) {
    return make_error(ErrorCode::kInvalidArgument,
                      "run directory path too long for a unix socket: '{}' ({} > {} bytes)", socket_path,
                      socket_path.size(), kMaxIpcPath);
  }
  const std::string endpoint = "ipc://" + socket_path;

  PP_ASSIGN_OR_RETURN(uint64_t run_id, shm::make_run_id());
  // The coordinator's pid in the name lets the next run recognise a ring
  // whose coordinator was killed (stale.cpp).
  clean_stale_runs();
  // Before the ring: under --mem-max the coordinator joins the capped parent
  // first, so the ring's pages (allocated here, charged to us) count in it.
  PP_RETURN_IF_ERROR(setup_memory_caps(run_id));
  ring_prefix_ = shm::ring_prefix(long(::getpid()), run_id);
  const uint32_t seats = cfg_.synth_workers + cfg_.gpu_workers;
  PP_ASSIGN_OR_RETURN(shm::Ring ring, shm::Ring::create(ring_prefix_, cfg_.slots, cfg_.slot_size, seats, run_id));
  ring_.emplace(std::move(ring));
  PP_ASSIGN_OR_RETURN(ipc::Router router, ipc::Router::bind(endpoint));
  router_.emplace(std::move(router));

  std::vector<size_t> proof_bytes;
  for (const auto& key : keys_) proof_bytes.push_back(key->proof_bytes());
  scheduler_.emplace(ledger_, ring_->slots(), cfg_.synth_workers, cfg_.gpu_workers, std::move(proof_bytes));
  // --backend cuda (also implied by --gpus): a device that cannot be used is
  // a set-up error of the run, found before any partition starts. It costs
  // the synthesis of the first records during the proving workers' set-up.
  if (host_ == nullptr && cfg_.backend == "cuda") scheduler_->grants_after_gpu_hello();
  PP_RETURN_IF_ERROR(write_run_info(run_dir_ / "run.json", ::getpid(), ring_prefix_, endpoint, *ring_, cfg_.out));
  // "proving worker" unless devices were named: the backend may well be the CPU.
  const std::string on_gpus = cfg_.gpus.empty() ? "" : fmt::format(" on GPUs {}", fmt::join(cfg_.gpus, ","));
  const char* provers = cfg_.gpus.empty() ? "proving" : "gpu";
  std::fprintf(stderr, "proofpipe: ring %u slots x %s = %s (%s); %u synth worker%s, %u %s worker%s%s; %zu partitions\n",
               cfg_.slots, format_size(ring_->slot_size()).c_str(), format_size(ring_->payload_bytes()).c_str(),
               cfg_.slots_reason.c_str(), cfg_.synth_workers, cfg_.synth_workers == 1 ? "" : "s", cfg_.gpu_workers,
               provers, cfg_.gpu_workers == 1 ? "" : "s", on_gpus.c_str(), ledger_.size());
  spdlog::info("run dir {} ring {} ({})", run_dir_.string(), ring_prefix_, ring_->describe());

  workers_.resize(seats);
  for (uint32_t s = 0; s < seats; ++s) {
    workers_[s].role = s < cfg_.synth_workers ? ipc::Role::kSynth : ipc::Role::kProver;
    workers_[s].seat = uint8_t(s);
  }
  // A service's log is no place for progress lines: it has /metrics.
  // PROOFPIPE_NO_PROGRESS turns the bar into the plain lines.
  ProgressMode progress = ProgressMode::kNone;
  if (host_ == nullptr) {
    progress =
        ::isatty(2) == 1 && std::getenv("PROOFPIPE_NO_PROGRESS") == nullptr ? ProgressMode::kBar : ProgressMode::kPlain;
  }
  // Before the workers are spawned: they inherit it (logging.hpp).
  if (progress == ProgressMode::kBar) clear_line_before_logs();
  PP_RETURN_IF_ERROR(reporter_.open(*ring_, *scheduler_, seat_views(), progress));
  for (SeatProcess& w : workers_) PP_RETURN_IF_ERROR(spawn(w));
  sample("start");
  return Status::ok();
}

Status Supervisor::setup_memory_caps(uint64_t run_id) {
  std::string why;
  cgroups_.emplace(CgroupRun::create(run_id, &why, cfg_.mem_max));
  // A bound that cannot be enforced must not be claimed.
  if (cfg_.mem_max != 0 && cgroups_->version() == CgroupVersion::kUnavailable)
    return make_error(ErrorCode::kInvalidArgument, "--mem-max needs a writable memory cgroup ({})", why);
  const bool capped = cfg_.synth_mem_max != 0 || cfg_.gpu_mem_max != 0;
  auto cap = [](uint64_t b) { return b ? format_size(b) : std::string("none"); };
  if (cgroups_->version() != CgroupVersion::kUnavailable) {
    reporter_.set_memory_caps(cgroups_->describe());
    reporter_.set_run_cgroup(&*cgroups_);
    spdlog::info("worker cgroups under {} ({})", cgroups_->dir().string(), reporter_.memory_caps());
  } else {
    reporter_.set_memory_caps(capped ? "RLIMIT_AS on synthesis workers (no writable cgroup)"
                                     : "none (no writable cgroup)");
    if (capped) {
      std::fprintf(stderr,
                   "proofpipe: warning: no writable memory cgroup (%s): --synth-mem-max is enforced as RLIMIT_AS, "
                   "--gpu-mem-max is not enforced, and OOM kills cannot be told from other kills\n",
                   why.c_str());
    }
  }
  if (cfg_.mem_max != 0) {
    std::fprintf(stderr, "proofpipe: memory: %s (%s)\n", cfg_.mem_plan.c_str(), reporter_.memory_caps().c_str());
  } else if (capped) {
    std::fprintf(stderr, "proofpipe: memory caps: synth %s, gpu %s per process (%s)\n", cap(cfg_.synth_mem_max).c_str(),
                 cap(cfg_.gpu_mem_max).c_str(), reporter_.memory_caps().c_str());
  }
  return Status::ok();
}

Result<RunReport> Supervisor::run() {
  PP_RETURN_IF_ERROR(setup());
  loop();
  sample("end");
  reporter_.end_progress_line();
  shutdown_workers();
  for (uint32_t s = 0; s < ring_->slot_count(); ++s) {
    const shm::SlotWord w = ring_->slots().load(s);
    if (w.state != SlotState::kFree)
      spdlog::warn("slot {} ends {} (epoch {})", s, shm::slot_state_name(w.state), w.epoch);
  }
  if (!setup_error_.empty()) return make_error(ErrorCode::kUnavailable, "{}", setup_error_);
  return reporter_.finish(router_->dropped(), interrupted_, abort_reason_);
}

// A batch ends when its ledger is finished (or on a signal, below); a
// host's loop ends when the host says so.
bool Supervisor::keep_looping() {
  if (host_ == nullptr) return !ledger_.finished();
  host_->on_turn(*this);
  return abort_reason_.empty() && !host_->should_stop(*this);
}

Readiness Supervisor::readiness() const {
  if (!ever_all_hello_) {
    for (uint8_t s = 0; s < workers_.size(); ++s) {
      if (!scheduler_->seat(s).alive || !scheduler_->seat(s).hello)
        return {false, "waiting for every worker's HELLO (keys loading)"};
    }
  }
  for (ipc::Role role : {ipc::Role::kSynth, ipc::Role::kProver}) {
    bool any = false, all_retired = true;
    std::string why;
    for (const SeatProcess& w : workers_) {
      if (w.role != role) continue;
      any = any || (scheduler_->seat(w.seat).alive && scheduler_->seat(w.seat).hello);
      all_retired = all_retired && w.retired;
      if (w.retired) why = w.retired_because;
    }
    if (any) continue;
    const char* name = role == ipc::Role::kProver ? "proving" : "synthesis";
    if (!all_retired) return {false, fmt::format("no {} worker ready (restarting)", name)};
    return {false, fmt::format("no {} worker: every seat is retired ({}); each is tried again with back-off, the "
                               "queue is kept",
                               name, why)};
  }
  return {true, ""};
}

void Supervisor::loop() {
  while (keep_looping()) {
    execute(scheduler_->schedule(now()));
    reporter_.sample_occupancy();
    poll_events(std::min<int>(kPollMs, int(cfg_.sample_ms)));
    drain_messages();
    reap_children();
    execute(scheduler_->reconcile(now()));
    // A resident owner's ended partitions leave the ledger (its memory stays
    // flat); a batch keeps them all for its summary.
    if (host_ != nullptr) ledger_.drop_ended_before(scheduler_->lowest_named());
    respawn_due();
    check_hangs();
    abort_if_no_workers();
    if (!setup_error_.empty()) return;
    reporter_.sample_if_due(seat_views());
    reporter_.show_progress();
    if (interrupted_ && host_ == nullptr) {
      fail_remaining(std::string(kInterruptedCause));
      return;
    }
  }
}

void Supervisor::poll_events(int timeout_ms) {
  std::vector<int> fds;
  if (signal_fd_ >= 0) fds.push_back(signal_fd_);
  if (host_ != nullptr && host_->wake_fd() >= 0) fds.push_back(host_->wake_fd());
  for (const auto& w : workers_) {
    if (w.child && w.child->pidfd() >= 0) fds.push_back(w.child->pidfd());
  }
  if (Status st = router_->poll(fds, timeout_ms); !st) spdlog::warn("{}", st.message());
  if (signal_fd_ >= 0) {
    while (const uint32_t sig = next_signal(signal_fd_)) {
      if (host_ != nullptr) {
        spdlog::warn("signal {} received", sig);
        interrupted_ = true;
        host_->on_signal(*this);
        continue;
      }
      spdlog::warn("signal {} received: {}", sig, interrupted_ ? "already stopping" : "stopping");
      interrupted_ = true;
    }
  }
}

std::vector<SeatView> Supervisor::seat_views() const {
  std::vector<SeatView> views;
  views.reserve(workers_.size());
  for (const SeatProcess& w : workers_) {
    views.push_back(
        {w.role, w.seat, w.incarnation, w.child ? w.child->pid() : 0, w.leaf ? &*w.leaf : nullptr, w.retired});
  }
  return views;
}

void Supervisor::sample(const char* event, std::optional<uint32_t> partition) {
  reporter_.sample(seat_views(), event, partition);
}

Result<RunReport> run(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys, Host* host) {
  Supervisor supervisor(cfg, ledger, keys, host);
  return supervisor.run();
}

}  // namespace proofpipe::engine
