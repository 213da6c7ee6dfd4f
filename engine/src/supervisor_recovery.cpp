// Supervision (docs/pipeline.md, docs/shm-layout.md): spawning workers, learning
// of deaths from the children themselves and handing each one, after the
// reap, to the Scheduler (which reclaims its slots and settles its
// partition), respawning with capped backoff, hang checks and shutdown.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "proofpipe/common/fault.hpp"
#include "proofpipe/ipc/worker.hpp"
#include "proofpipe/witness_gen/generator.hpp"
#include "supervisor.hpp"

namespace proofpipe::engine {

using ipc::MsgHeader;
using ipc::MsgType;

// Five deaths in a row without finishing a unit of work: the seat is in a
// crash loop (bad binary, bad key, a cap far too small) and is retired.
constexpr uint32_t kCrashLoopLimit = 5;
// A seat none of whose workers ever got through set-up (HELLO), exiting with
// the set-up or usage code: the cause is almost always one that repeats (no
// CUDA device for --backend cuda, an unreadable key, a bad binary), so it is
// retired after one retry rather than five.
constexpr uint32_t kSetupFailureLimit = 2;
// Respawn backoff: 100 ms doubling per consecutive death, at most 5 s.
constexpr double kBackoffBaseS = 0.1;
constexpr double kBackoffCapS = 5.0;
// How long SHUTDOWN may take before stragglers are SIGKILLed.
constexpr double kShutdownGraceS = 3.0;

static std::string seat_name(const SeatProcess& w) { return fmt::format("{}.{}", ipc::role_name(w.role), w.seat); }

Status Supervisor::spawn(SeatProcess& w) {
  const char* exe_name = w.role == ipc::Role::kSynth ? "proofpipe-synth-worker" : "proofpipe-gpu-worker";
  const std::filesystem::path exe = cfg_.bin_dir / exe_name;
  if (::access(exe.c_str(), X_OK) != 0) {
    return make_error(ErrorCode::kNotFound, "worker executable '{}' not found or not executable (build target {})",
                      exe.string(), exe_name);
  }
  w.incarnation = next_incarnation_++;
  SpawnOptions opt;
  opt.argv = {exe.string(),
              "--endpoint",
              "ipc://" + (run_dir_ / "control").string(),
              "--ring",
              ring_prefix_,
              "--seat",
              std::to_string(w.seat),
              "--incarnation",
              std::to_string(w.incarnation),
              "--parent",
              std::to_string(::getpid()),
              "--backend",
              cfg_.backend};
  for (const auto& key : cfg_.keys) opt.argv.insert(opt.argv.end(), {"--zkey", key.string()});
  if (w.role == ipc::Role::kSynth) {
    opt.argv.insert(opt.argv.end(), {"--generate-timeout-ms", std::to_string(cfg_.generate_timeout_ms),
                                     "--generate-stall-ms", std::to_string(uint64_t(cfg_.hang_timeout_s * 1000))});
  }
  opt.env = worker_env(w);
  const uint64_t cap = w.role == ipc::Role::kSynth ? cfg_.synth_mem_max : cfg_.gpu_mem_max;
  w.leaf.reset();
  if (cgroups_ && cgroups_->version() != CgroupVersion::kUnavailable) {
    PP_ASSIGN_OR_RETURN(CgroupLeaf leaf, cgroups_->make_leaf(fmt::format("{}.{}", seat_name(w), w.incarnation), cap));
    w.leaf.emplace(std::move(leaf));
    opt.before_exec = [leaf = *w.leaf](pid_t pid) { return leaf.add(pid); };
  } else if (w.role == ipc::Role::kSynth) {
    opt.rlimit_as = cap;  // never on the gpu worker: CUDA reserves huge address ranges
  }
  auto child = Child::spawn(opt);
  if (!child) {
    if (w.leaf) w.leaf->remove();
    w.leaf.reset();
    return child.status();
  }
  ring_->set_seat_owner(w.seat, uint32_t(child->pid()), w.incarnation);
  spdlog::debug("spawned {} pid {} incarnation {}", seat_name(w), child->pid(), w.incarnation);
  w.child.emplace(std::move(*child));
  w.peer = ipc::routing_id(w.role, w.seat, w.incarnation);
  scheduler_->seat_started(w.seat, w.incarnation);
  w.respawn_at = -1;
  w.kill_reason.clear();
  w.cancel_kill = false;
  reporter_.seat_started(w.seat);
  return Status::ok();
}

// The environment of a worker: ours, with --gpus's device for a proving
// worker, except that destructive fault entries
// (all but delay and spike) without a ~partition filter reach only the first
// incarnation of each seat, so a test that kills a worker once sees the run
// recover; PROOFPIPE_FAULTS_ALL_INCARNATIONS=1 arms them in every incarnation.
std::vector<std::string> Supervisor::worker_env(const SeatProcess& w) const {
  // --gpus: proving worker i (the i-th gpu seat) sees only gpus[i % n].
  const bool pin_device = w.role == ipc::Role::kProver && !cfg_.gpus.empty();
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    if (kv.rfind("PROOFPIPE_FAULTS=", 0) == 0) continue;
    if (pin_device && kv.rfind("CUDA_VISIBLE_DEVICES=", 0) == 0) continue;
    env.emplace_back(kv);
  }
  if (pin_device) {
    const size_t gpu_index = w.seat - cfg_.synth_workers;
    env.push_back("CUDA_VISIBLE_DEVICES=" + cfg_.gpus[gpu_index % cfg_.gpus.size()]);
  }
  const char* faults = std::getenv("PROOFPIPE_FAULTS");
  if (faults == nullptr || *faults == '\0') return env;
  const char* all = std::getenv("PROOFPIPE_FAULTS_ALL_INCARNATIONS");
  const bool first = reporter_.incarnations(w.seat) == 0;
  auto specs = parse_faults(faults);
  if (!specs || first || (all != nullptr && std::string_view(all) == "1")) {
    env.push_back(std::string("PROOFPIPE_FAULTS=") + faults);  // a malformed value: the worker reports it
    return env;
  }
  std::erase_if(*specs, [](const FaultSpec& f) {
    return f.action != FaultAction::kDelay && f.action != FaultAction::kSpike && f.partition < 0;
  });
  if (!specs->empty()) env.push_back("PROOFPIPE_FAULTS=" + format_faults(*specs));
  return env;
}

// What the wait status alone cannot say: an OOM kill (the leaf's counter,
// less the kills already charged to a generator) or a SIGKILL the
// coordinator sent itself. Reads the leaf's figures; child_gone removes it.
ExitInfo Supervisor::classify(SeatProcess& w, ExitInfo info) {
  info.killed_because = w.kill_reason;
  if (w.leaf) {
    info.oom_killed = new_oom(w) && info.signal == SIGKILL;
    info.cap_bytes = w.role == ipc::Role::kSynth ? cfg_.synth_mem_max : cfg_.gpu_mem_max;
  }
  reporter_.seat_exited(w.seat, info.peak_rss_bytes, w.leaf ? &*w.leaf : nullptr);
  return info;
}

bool Supervisor::new_oom(SeatProcess& w) {
  if (!w.leaf) return false;
  const uint64_t ooms = w.leaf->oom_kills();
  if (ooms <= w.ooms_counted) return false;
  w.ooms_counted = ooms;
  return true;
}

void Supervisor::child_gone(SeatProcess& w, pid_t pid) {
  // A synthesis worker killed while its generator ran (a cancel, a crash, a
  // stop) could not remove that run's working directory: cleared here.
  if (w.role == ipc::Role::kSynth) witness_gen::remove_work_dirs_of(pid);
  if (w.leaf) {
    w.leaf->remove();  // kills what the worker left in it first
    w.leaf.reset();
  }
  w.ooms_counted = 0;  // the next incarnation's leaf counts from 0
}

void Supervisor::reap_children() {
  std::vector<std::pair<SeatProcess*, ExitInfo>> dead;
  for (auto& w : workers_) {
    if (!w.child) continue;
    if (auto info = w.child->try_reap()) dead.emplace_back(&w, *info);
  }
  if (dead.empty()) return;
  // Messages a worker sent before it died are taken first: a SEALED or a
  // PROOF already on the socket saves redoing the work.
  drain_messages();
  for (auto& [w, info] : dead) {
    const ExitInfo full = classify(*w, info);
    child_gone(*w, w->child->pid());
    w->child.reset();
    ring_->clear_seat(w->seat);
    if (!stopping_) on_death(*w, full);
  }
}

void Supervisor::on_death(SeatProcess& w, const ExitInfo& info) {
  const std::string who = seat_name(w);
  const std::string cause = fmt::format("{} {}", who, info.describe());
  std::string held = "holding nothing";
  const bool held_partition = scheduler_->seat(w.seat).partition.has_value();
  if (const auto part = scheduler_->seat(w.seat).partition) {
    const Partition& p = ledger_.at(*part);
    held = fmt::format("holding {} (job {}/{} attempt {}, slot {})", p.stem, p.job, p.index, p.attempt,
                       p.slot ? fmt::to_string(*p.slot) : std::string("none"));
  }
  const std::string line = fmt::format("{} (incarnation {}) died: {}; {}", who, w.incarnation, info.describe(), held);
  reporter_.seat_died(w.seat, line);
  spdlog::error("{}", line);
  // Past try_reap: the Scheduler may reclaim every slot word naming this seat.
  execute(scheduler_->seat_died(w.seat, cause, now()));
  if (w.cancel_kill) {  // our doing, not a crash: no backoff, not counted toward retirement
    w.respawn_at = now();
    return;
  }

  // A death while the seat held a partition is charged to that partition
  // (Scheduler::seat_died counted the attempt; --max-attempts ends it): a
  // poison input fails alone and never retires the seat that met it. The
  // seat comes back after the base back-off, its crash loop count untouched.
  if (held_partition) {
    w.respawn_at = now() + kBackoffBaseS;
    return;
  }
  w.consecutive_deaths += 1;
  const bool setup_exit = info.exit_code == ipc::kWorkerExitSetup || info.exit_code == ipc::kWorkerExitUsage;
  if (setup_exit && !w.ever_hello && w.consecutive_deaths >= kSetupFailureLimit) {
    retire(w, fmt::format("its set-up failed {} times in a row ({}; the reason is in its log above)",
                          w.consecutive_deaths, info.describe()));
    return;
  }
  if (w.consecutive_deaths >= kCrashLoopLimit) {
    retire(w, fmt::format("it died {} times in a row outside partition work (last: {})", w.consecutive_deaths,
                          info.describe()));
    return;
  }
  const double backoff = std::min(kBackoffCapS, kBackoffBaseS * std::pow(2.0, w.consecutive_deaths - 1));
  w.respawn_at = now() + backoff;
}

// A batch gives a retired seat up (abort_if_no_workers ends the run once a
// role has none). A service whose seats of that role have worked never gives
// up: it tries the seat again after 30 s, doubling to 10 minutes (a full
// disk, a driver reset pass), and says so in /readyz meanwhile; its queue is
// kept and other seats go on.
void Supervisor::retire(SeatProcess& w, std::string why) {
  constexpr double kReviveBaseS = 30, kReviveCapS = 600;
  w.retired = true;
  w.retired_because = std::move(why);
  // Not for a seat whose role never got through its set-up: that is the
  // service's configuration, and abort_if_no_workers stops it.
  const bool role_worked = std::any_of(workers_.begin(), workers_.end(),
                                       [&](const SeatProcess& o) { return o.role == w.role && o.ever_hello; });
  if (host_ == nullptr || !role_worked) {
    spdlog::error("{}: {}: not restarted", seat_name(w), w.retired_because);
    return;
  }
  const double wait = std::min(kReviveCapS, kReviveBaseS * std::pow(2.0, std::min<uint32_t>(w.revivals, 16)));
  w.revivals += 1;
  w.respawn_at = now() + wait;
  spdlog::error("{}: {}: retired; tried again in {:.0f} s", seat_name(w), w.retired_because, wait);
}

void Supervisor::respawn_due() {
  for (auto& w : workers_) {
    if (w.child || (w.retired && host_ == nullptr) || w.respawn_at < 0 || now() < w.respawn_at) continue;
    if (Status st = spawn(w); !st) {
      spdlog::error("cannot restart {}: {}", seat_name(w), st.message());
      retire(w, "it could not be restarted: " + st.message());
      continue;
    }
    // A retired seat tried again gets a fresh crash-loop count (a set-up
    // that fails twice more retires it again, with a longer wait).
    if (w.retired) w.consecutive_deaths = 0;
    reporter_.restarted();
    spdlog::warn("{} restarted (incarnation {})", seat_name(w), w.incarnation);
    sample("restart");
  }
}

// Liveness is progress (ipc/worker.hpp): a seat's beat is the last time its
// work moved, so a worker whose main thread is stuck while its other threads
// run is seen too. At work the limit is --hang-timeout; in set-up (the seat
// record's phase, until HELLO) 10 times that, at least 5 minutes: loading a
// key of tens of GB or uploading it to a device has long steps that count
// no progress, and a set-up that never ends is still caught.
void Supervisor::check_hangs() {
  constexpr double kSetupFactor = 10, kSetupMinS = 300;
  const uint64_t now_ms = shm::monotonic_ms();
  const auto work_ms = uint64_t(cfg_.hang_timeout_s * 1000);
  const auto setup_ms = uint64_t(std::max(cfg_.hang_timeout_s * kSetupFactor, kSetupMinS) * 1000);
  for (auto& w : workers_) {
    if (!w.child) continue;
    const shm::SeatStatus st = ring_->seat_status(w.seat);
    const bool in_setup = st.phase == shm::SeatPhase::kSetup;
    if (st.last_beat_ms == 0 || now_ms < st.last_beat_ms + (in_setup ? setup_ms : work_ms)) continue;
    w.kill_reason = fmt::format("no heartbeat for {:.1f} s{}", double(now_ms - st.last_beat_ms) / 1000,
                                in_setup ? " in its set-up" : "");
    spdlog::error("{} sent {}: killing it", seat_name(w), w.kill_reason);
    w.child->kill(SIGKILL);       // its death is handled when it is reaped
    ring_->beat(w.seat, now_ms);  // once
  }
}

void Supervisor::cancel_partition(uint32_t index) {
  if (!ledger_.holds(index)) return;  // ended and dropped: nothing left to cancel
  scheduler_->cancel(index);
  const Partition& p = ledger_.at(index);
  if (p.input.empty() || p.state != PartState::kWriting) return;
  for (auto& w : workers_) {
    if (w.role != ipc::Role::kSynth || !w.child || scheduler_->seat(w.seat).partition != index) continue;
    w.kill_reason = fmt::format("its partition {} was cancelled while it generated the witness", p.stem);
    w.cancel_kill = true;
    spdlog::warn("{}: {}: killing it (and its generator) and restarting it", seat_name(w), w.kill_reason);
    w.child->kill(SIGKILL);  // its death is handled when it is reaped; the partition ends "cancelled"
  }
}

void Supervisor::abort_if_no_workers() {
  for (ipc::Role role : {ipc::Role::kSynth, ipc::Role::kProver}) {
    const bool any = std::any_of(workers_.begin(), workers_.end(),
                                 [&](const SeatProcess& w) { return w.role == role && !w.retired; });
    if (any || (host_ == nullptr && ledger_.finished())) continue;
    // A service keeps serving with every seat of a role retired, once one
    // of them has worked: they are tried again (retire()), readiness says
    // why, its queue waits. Only a role none of whose seats ever got
    // through its set-up (no usable GPU, a key it cannot read, a cap too
    // small for the key) is a configuration error, which stops it at start.
    const bool ever = std::any_of(workers_.begin(), workers_.end(),
                                  [&](const SeatProcess& w) { return w.role == role && w.ever_hello; });
    if (host_ != nullptr && ever) continue;
    std::string why;
    for (const SeatProcess& w : workers_) {
      if (w.role == role) why = w.retired_because;  // the last seat's reason; seats of a role fail alike
    }
    abort_reason_ = fmt::format("no {} worker left ({})", role == ipc::Role::kProver ? "proving" : "synth", why);
    if (host_ != nullptr) return;  // the loop ends; serve exits 2 and keeps its queue
    const bool never_granted = ledger_.count(PartState::kPending) == ledger_.size();
    if (role == ipc::Role::kProver && cfg_.backend == "cuda" && never_granted &&
        std::none_of(workers_.begin(), workers_.end(),
                     [&](const SeatProcess& w) { return w.role == role && w.ever_hello; })) {
      // Nothing was started (grants wait for a HELLO): a set-up error, exit 2.
      const std::string devices = cfg_.gpus.empty() ? "" : fmt::format(" on GPUs {}", fmt::join(cfg_.gpus, ","));
      setup_error_ = fmt::format("--backend cuda: no proving worker could use a CUDA device{}: {}", devices, why);
      return;
    }
    fail_remaining(abort_reason_);
    return;
  }
}

void Supervisor::fail_remaining(const std::string& cause) { scheduler_->fail_remaining(cause); }

void Supervisor::shutdown_workers() {
  stopping_ = true;
  for (auto& w : workers_) {
    if (w.child) send(w, MsgType::kShutdown, MsgHeader{});
  }
  const double deadline = now() + kShutdownGraceS;
  for (;;) {
    bool any = false;
    for (auto& w : workers_) {
      if (!w.child) continue;
      if (auto reaped = w.child->try_reap()) {
        const ExitInfo info = classify(w, *reaped);
        if (info.exit_code != ipc::kWorkerExitOk) spdlog::warn("{} ended: {}", seat_name(w), info.describe());
        child_gone(w, w.child->pid());
        w.child.reset();
        ring_->clear_seat(w.seat);
      } else {
        any = true;
      }
    }
    if (!any) return;
    if (now() > deadline) {
      for (auto& w : workers_) {
        if (!w.child) continue;
        spdlog::warn("{} did not stop within {:.0f} s: killing it", seat_name(w), kShutdownGraceS);
        w.child->kill(SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace proofpipe::engine
