// The Reporter (reporter.hpp). Peak-accurate sampling (docs/metrics.md):
// every --sample-ms and at
// every pipeline event, each process's RSS and high-water mark (procfs) and
// each worker's cgroup usage and peak, the ring by slot state, and the
// ledger. After reading a high-water mark the sampler resets it (VmHWM via
// clear_refs, v1 cgroup max_usage_in_bytes), so each sample's "peak" is the
// maximum since the previous sample: a spike between two samples is still
// reported. Also the `proofpipe status` reply and the terminal progress bar.
#include "reporter.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "procfs.hpp"
#include "proofpipe/common/logging.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/provenance.hpp"
#include "proofpipe/engine/timings.hpp"

namespace proofpipe::engine {

using nlohmann::json;
using shm::SlotState;

Reporter::Reporter(const PipelineConfig& cfg, const Ledger& ledger, std::chrono::steady_clock::time_point t0)
    : cfg_(cfg), ledger_(ledger), t0_(t0) {}

double Reporter::now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

Status Reporter::open(const shm::Ring& ring, const Scheduler& scheduler, std::span<const SeatView> seats,
                      ProgressMode progress) {
  ring_ = &ring;
  scheduler_ = &scheduler;
  report_.slots = cfg_.slots;
  report_.slot_size = ring.slot_size();
  report_.ring_bytes = ring.payload_bytes();
  for (const SeatView& v : seats) {
    SeatReport r;
    r.role = v.role;
    r.seat = v.seat;
    report_.seats.push_back(std::move(r));
  }
  if (!cfg_.metrics.empty()) {
    // Created anew, never through a link planted at the name (safe_file.hpp).
    PP_RETURN_IF_ERROR(open_new_stream(cfg_.metrics, "--metrics", metrics_));
  }
  progress_ = progress;
  tty_ = progress == ProgressMode::kBar;
  // 30 s: a log watcher (nohup, journald) sees life during a partition of
  // minutes. Tests shorten it rather than wait.
  if (const char* env = std::getenv("PROOFPIPE_PROGRESS_INTERVAL_S")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v >= 0.1) plain_interval_s_ = v;
  }
  next_plain_s_ = plain_interval_s_;
  return Status::ok();
}

void Reporter::seat_started(uint8_t seat) {
  SeatReport& r = report_.seats[seat];
  r.incarnations += 1;
  r.backend.clear();  // this incarnation's, once it says HELLO
  r.devices.clear();
  r.intake.clear();
}

void Reporter::gpu_hello(uint8_t seat, ipc::GpuHello hello) {
  SeatReport& r = report_.seats[seat];
  r.backend = std::move(hello.backend);
  r.devices = std::move(hello.devices);
  r.intake = std::move(hello.intake);
}

void Reporter::seat_exited(uint8_t seat, uint64_t peak_rss_bytes, const CgroupLeaf* leaf) {
  SeatReport& r = report_.seats[seat];
  if (leaf != nullptr) {
    r.oom_kills += leaf->oom_kills();
    r.cgroup_peak_bytes = std::max(r.cgroup_peak_bytes, leaf->peak_bytes());
  }
  r.peak_rss_bytes = std::max(r.peak_rss_bytes, peak_rss_bytes);
}

void Reporter::seat_died(uint8_t seat, const std::string& line) {
  clear_progress_line();
  report_.seats[seat].deaths.push_back(line);
}

void Reporter::committed(const Partition& p) {
  ++committed_;
  if (!tty_) {
    std::fprintf(stderr, "proofpipe: [%zu/%zu] %s proved (attempt %u): %s\n", committed_, ledger_.size(),
                 p.stem.c_str(), p.attempt, times_line(p).c_str());
  }
}

void Reporter::end_progress_line() const {
  if (tty_) std::fprintf(stderr, "\n");
}

void Reporter::clear_progress_line() const {
  if (tty_) std::fprintf(stderr, "%s", kClearLine);
}

RunReport Reporter::finish(uint64_t dropped, bool interrupted, std::string abort_reason) {
  report_.wall_s = now();
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  // ru_maxrss counts only since the sampler's last VmHWM reset: keep the max.
  report_.coordinator_peak_rss_bytes = std::max(report_.coordinator_peak_rss_bytes, uint64_t(ru.ru_maxrss) * 1024);
  if (cgroup_run_ != nullptr && cgroup_run_->mem_max() != 0) {
    report_.mem_max = cgroup_run_->mem_max();
    report_.parent_cgroup_peak_bytes = std::max(report_.parent_cgroup_peak_bytes, cgroup_run_->peak_bytes());
  }
  report_.stale_messages = dropped + scheduler_->counts().stale_messages;
  report_.malformed_messages = scheduler_->counts().malformed_messages;
  report_.duplicate_proofs = scheduler_->counts().duplicate_proofs;
  report_.interrupted = interrupted;
  report_.abort_reason = std::move(abort_reason);
  return report_;
}

void Reporter::sample_occupancy() {
  const double t = now();
  if (busy_) busy_s_ += t - last_turn_s_;
  last_turn_s_ = t;
  busy_ = ledger_.in_flight() != 0 || ledger_.next_pending().has_value();
  uint32_t filled = 0;
  for (uint32_t s = 0; s < ring_->slot_count(); ++s) {
    const SlotState st = ring_->slots().load(s).state;
    filled += st == SlotState::kWriting || st == SlotState::kReady;
  }
  uint32_t waiting = 0;
  for (size_t s = 0; s < scheduler_->seat_count(); ++s) waiting += scheduler_->seat(uint8_t(s)).waiting;
  report_.max_slots_filled = std::max(report_.max_slots_filled, filled);
  if (ledger_.next_pending()) report_.max_waiting_for_grant = std::max(report_.max_waiting_for_grant, waiting);
}

void Reporter::sample_if_due(std::span<const SeatView> seats) {
  if (now() < next_sample_s_) return;
  next_sample_s_ = now() + cfg_.sample_ms / 1000.0;  // event samples do not move the timer
  sample(seats, "sample");
}

void Reporter::sample(std::span<const SeatView> seats, const char* event, std::optional<uint32_t> partition) {
  const double t = now();
  json workers = json::array();
  uint64_t total_rss = 0, total_peak = 0;
  // `peak_rss` and `cgroup_peak` (may be null) keep the lifetime maxima: the
  // per-sample marks are reset here, so only their running maximum survives.
  auto add_process = [&](const std::string& name, pid_t pid, const CgroupLeaf* leaf, uint64_t* peak_rss,
                         uint64_t* cgroup_peak) {
    const auto mem = read_proc_memory(pid);
    if (!mem) return;
    reset_proc_hwm(pid);
    json w = {{"worker", name}, {"pid", pid}, {"rss", mem->rss}, {"rss_shmem", mem->rss_shmem}, {"peak", mem->hwm}};
    uint64_t peak = mem->hwm;
    if (leaf != nullptr) {
      const uint64_t cg_peak = leaf->peak_bytes();
      leaf->reset_peak();
      w["cgroup_usage"] = leaf->usage_bytes();
      w["cgroup_peak"] = cg_peak;
      peak = std::max(peak, cg_peak);
      if (cgroup_peak) *cgroup_peak = std::max(*cgroup_peak, cg_peak);
    }
    *peak_rss = std::max(*peak_rss, mem->hwm);
    total_rss += mem->rss;
    total_peak += peak;
    workers.push_back(std::move(w));
  };
  add_process("coordinator", ::getpid(), cgroup_run_ ? cgroup_run_->coordinator_leaf() : nullptr,
              &report_.coordinator_peak_rss_bytes, &report_.coordinator_cgroup_peak_bytes);
  for (const SeatView& w : seats) {
    if (w.pid == 0) continue;
    SeatReport& r = report_.seats[w.seat];
    add_process(fmt::format("{}.{}", ipc::role_name(w.role), w.seat), w.pid, w.leaf, &r.peak_rss_bytes,
                &r.cgroup_peak_bytes);
  }
  uint32_t by_state[6] = {};
  for (uint32_t s = 0; s < ring_->slot_count(); ++s) {
    const auto st = ring_->slots().load(s).state;
    by_state[uint8_t(st) < 6 ? uint8_t(st) : 0] += 1;
  }
  const uint64_t held = uint64_t(by_state[uint8_t(SlotState::kWriting)] + by_state[uint8_t(SlotState::kReady)] +
                                 by_state[uint8_t(SlotState::kConsuming)]) *
                        ring_->slot_size();
  report_.max_total_rss_bytes = std::max(report_.max_total_rss_bytes, total_rss);
  report_.max_total_peak_bytes = std::max(report_.max_total_peak_bytes, total_peak);
  report_.samples += 1;
  json rec = {{"t", t},
              {"kind", std::string(event) == "sample" ? "sample" : "event"},
              {"event", event},
              {"partition", partition ? int64_t(*partition) : int64_t{-1}},
              {"processes", std::move(workers)},
              {"total_rss", total_rss},
              {"total_peak", total_peak},
              {"slots",
               {{"free", by_state[uint8_t(SlotState::kFree)]},
                {"writing", by_state[uint8_t(SlotState::kWriting)]},
                {"ready", by_state[uint8_t(SlotState::kReady)]},
                {"consuming", by_state[uint8_t(SlotState::kConsuming)]},
                {"quarantined", by_state[uint8_t(SlotState::kQuarantined)]}}},
              {"slot_count", ring_->slot_count()},
              {"ring_bytes", ring_->payload_bytes()},
              {"ring_bytes_held", held},
              {"done", ledger_.count(PartState::kDone)},
              {"failed", ledger_.count(PartState::kFailed)},
              {"partitions", ledger_.size()},
              {"restarts", report_.restarts}};
  // BUFFERS-style line: now and the maxima so far.
  spdlog::debug("BUFFERS {} slots free {} writing {} ready {} consuming {} | rss {} (max {}) peak {} (max {})", event,
                by_state[1], by_state[2], by_state[3], by_state[4], format_size(total_rss),
                format_size(report_.max_total_rss_bytes), format_size(total_peak),
                format_size(report_.max_total_peak_bytes));
  if (cgroup_run_ != nullptr && cgroup_run_->mem_max() != 0) {
    // The parent counts each page once (the ring, the key's page cache), the
    // per-process sums above do not: these are the figures --mem-max bounds.
    const uint64_t usage = cgroup_run_->usage_bytes(), peak = cgroup_run_->peak_bytes();
    report_.max_total_cgroup_bytes = std::max(report_.max_total_cgroup_bytes, usage);
    report_.parent_cgroup_peak_bytes = std::max(report_.parent_cgroup_peak_bytes, peak);
    rec["cgroup_total"] = usage;
    rec["cgroup_total_peak"] = peak;
    rec["mem_max"] = cgroup_run_->mem_max();
  }
  // A commit carries the partition's timings (timings.hpp).
  if (partition && std::string(event) == "commit") rec["times"] = times_json(ledger_.at(*partition), t);
  if (metrics_.is_open()) metrics_ << rec.dump() << '\n' << std::flush;
  last_sample_ = std::move(rec);
}

EngineSnapshot Reporter::snapshot(std::span<const SeatView> seats) const {
  EngineSnapshot s;
  for (const SeatView& w : seats) {
    const SeatState& seat = scheduler_->seat(w.seat);
    const SeatReport& r = report_.seats[w.seat];
    const bool running = w.pid != 0;
    WorkerSnapshot row;
    row.role = w.role;
    row.seat = w.seat;
    row.name = fmt::format("{}.{}", ipc::role_name(w.role), w.seat);
    row.pid = running ? w.pid : 0;
    // The seat's life count, as summary.json's "incarnations" (1: its first child).
    row.incarnation = r.incarnations;
    row.state = running ? (seat.partition ? (w.role == ipc::Role::kSynth ? "writing" : "proving")
                                          : (seat.hello ? "idle" : "starting"))
                        : (w.retired ? "retired" : "restarting");
    row.partition = seat.partition;
    row.partition_name = seat.partition ? ledger_.at(*seat.partition).stem : std::string();
    row.restarts = r.incarnations > 0 ? r.incarnations - 1 : 0;
    row.oom_kills = r.oom_kills;
    row.peak = std::max(r.peak_rss_bytes, r.cgroup_peak_bytes);
    if (w.role == ipc::Role::kProver && seat.hello) {  // what the live incarnation said it proves with
      row.backend = r.backend;
      row.devices = r.devices;
    }
    if (running && last_sample_.contains("processes")) {
      for (const auto& p : last_sample_["processes"]) {
        if (p["worker"] == row.name && p["pid"] == w.pid) row.rss = p["rss"].get<uint64_t>();
      }
    }
    s.workers.push_back(std::move(row));
  }
  // Every partition in flight, by name, with the stage times so far.
  for (uint32_t i = ledger_.open_begin(); i < ledger_.size(); ++i) {
    const Partition& p = ledger_.at(i);
    if (p.state == PartState::kWriting || p.state == PartState::kReady || p.state == PartState::kProving) {
      s.in_flight.push_back({p.stem, p.state, partition_times(p, now()),
                             p.input.empty() ? std::nullopt : std::optional<double>(p.generate_s)});
    }
  }
  s.pid = ::getpid();
  s.zkey = cfg_.keys.empty() ? std::string() : cfg_.keys.front().string();
  s.started = std::chrono::system_clock::now() -
              std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::steady_clock::now() - t0_);
  s.elapsed_s = now();
  s.eta_s = progress_figures().eta_s;
  if (last_sample_.contains("slots")) {
    for (const auto& [state, n] : last_sample_["slots"].items()) s.slots[state] = n.get<uint64_t>();
  }
  s.slot_count = ring_->slot_count();
  s.slot_bytes = ring_->slot_size();
  s.ring_bytes = ring_->payload_bytes();
  s.total = ledger_.size();
  s.done = ledger_.count(PartState::kDone);
  s.failed = ledger_.count(PartState::kFailed);
  s.pending = ledger_.count(PartState::kPending);
  s.in_flight_count = ledger_.in_flight();
  s.s_per_proof = s.done ? now() / double(s.done) : 0.0;
  s.busy_s = busy_s_ + (busy_ ? now() - last_turn_s_ : 0.0);
  s.memory.total_rss = last_sample_.value("total_rss", uint64_t{0});
  s.memory.max_total_rss = report_.max_total_rss_bytes;
  s.memory.max_total_peak = report_.max_total_peak_bytes;
  s.memory.mem_budget = cfg_.mem_budget;
  s.memory.mem_max = cfg_.mem_max;
  s.memory.cgroup_total = last_sample_.value("cgroup_total", uint64_t{0});
  s.memory.max_total_cgroup = report_.max_total_cgroup_bytes;
  s.memory.cgroup_total_peak = report_.parent_cgroup_peak_bytes;
  return s;
}

std::string progress_line(const ProgressFigures& f) {
  const double rate = f.done && f.elapsed_s > 0 ? double(f.done) / f.elapsed_s : 0.0;
  constexpr int kWidth = 30;
  const int filled = f.total ? int(kWidth * (f.done + f.failed) / f.total) : kWidth;
  return fmt::format("[{:<{}}] {}/{} proved{}, {} in flight, {:.2f} proofs/s, elapsed {}, ETA {}, peak {}   ",
                     std::string(size_t(filled), '#'), kWidth, f.done, f.total,
                     f.failed ? fmt::format(" ({} failed)", f.failed) : "", f.in_flight, rate, hms(f.elapsed_s),
                     f.eta_s ? hms(*f.eta_s) : "unknown", format_size(f.max_total_peak_bytes));
}

std::string plain_progress_line(const ProgressFigures& f) {
  return fmt::format("proofpipe: progress: {}/{} proved, {} failed, {} in flight, elapsed {}, ETA {}", f.done, f.total,
                     f.failed, f.in_flight, hms(f.elapsed_s), f.eta_s ? hms(*f.eta_s) : "unknown");
}

ProgressFigures Reporter::progress_figures() const {
  ProgressFigures f;
  f.done = ledger_.count(PartState::kDone);
  f.failed = ledger_.count(PartState::kFailed);
  f.in_flight = ledger_.in_flight();
  f.total = ledger_.size();
  f.elapsed_s = now();
  f.eta_s = estimate_eta(ledger_, f.elapsed_s, cfg_.synth_workers, cfg_.gpu_workers);
  f.max_total_peak_bytes = report_.max_total_peak_bytes;
  return f;
}

void Reporter::show_progress() {
  if (progress_ == ProgressMode::kPlain && now() >= next_plain_s_) {
    next_plain_s_ = now() + plain_interval_s_;
    std::fprintf(stderr, "%s\n", plain_progress_line(progress_figures()).c_str());
    return;
  }
  if (!tty_) return;
  // Log lines clear the line first (logging.hpp): the bar is drawn again here.
  std::fprintf(stderr, "\r%s", progress_line(progress_figures()).c_str());
  std::fflush(stderr);
}

}  // namespace proofpipe::engine
