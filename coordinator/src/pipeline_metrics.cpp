// Peak-accurate sampling (issue 6, docs/metrics.md): every --sample-ms and at
// every pipeline event, each process's RSS and high-water mark (procfs) and
// each worker's cgroup usage and peak, the ring by slot state, and the
// ledger. After reading a high-water mark the sampler resets it (VmHWM via
// clear_refs, v1 cgroup max_usage_in_bytes), so each sample's "peak" is the
// maximum since the previous sample: a spike between two samples is still
// reported. Also the `proofpipe status` reply and the terminal progress bar.
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pipeline_impl.hpp"
#include "procfs.hpp"
#include "proofpipe/common/sizes.hpp"

namespace proofpipe::coord {

using nlohmann::json;
using shm::SlotState;

void Pipeline::sample_if_due() {
  if (now() < next_sample_s_) return;
  next_sample_s_ = now() + cfg_.sample_ms / 1000.0;  // event samples do not move the timer
  sample("sample");
}

void Pipeline::sample(const char* event, std::optional<uint32_t> partition) {
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
  add_process("coordinator", ::getpid(), nullptr, &report_.coordinator_peak_rss_bytes, nullptr);
  for (auto& w : workers_) {
    if (!w.child) continue;
    add_process(fmt::format("{}.{}", ipc::role_name(w.role), w.seat), w.child->pid(), w.leaf ? &*w.leaf : nullptr,
                &w.report.peak_rss_bytes, &w.report.cgroup_peak_bytes);
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
  if (metrics_.is_open()) metrics_ << rec.dump() << '\n' << std::flush;
  last_sample_ = std::move(rec);
}

json Pipeline::status_json() const {
  json workers = json::array();
  for (const auto& w : workers_) {
    const SeatState& seat = scheduler_->seat(w.seat);
    std::string state = w.child ? (seat.partition ? (w.role == ipc::Role::kSynth ? "writing" : "proving")
                                                  : (seat.hello ? "idle" : "starting"))
                                : (w.retired ? "retired" : "restarting");
    json row = {{"worker", fmt::format("{}.{}", ipc::role_name(w.role), w.seat)},
                {"pid", w.child ? w.child->pid() : 0},
                {"incarnation", w.incarnation},
                {"state", state},
                {"partition", seat.partition ? int64_t(*seat.partition) : int64_t{-1}},
                {"restarts", w.report.incarnations > 0 ? w.report.incarnations - 1 : 0},
                {"oom_kills", w.report.oom_kills},
                {"peak", std::max(w.report.peak_rss_bytes, w.report.cgroup_peak_bytes)}};
    if (w.role == ipc::Role::kGpu && seat.hello) {  // what the live incarnation said it proves with
      row["backend"] = w.report.backend;
      row["devices"] = w.report.devices;
    }
    if (last_sample_.contains("processes")) {
      for (const auto& p : last_sample_["processes"]) {
        if (p["worker"] == row["worker"] && w.child && p["pid"] == w.child->pid()) row["rss"] = p["rss"];
      }
    }
    workers.push_back(std::move(row));
  }
  const size_t done = ledger_.count(PartState::kDone);
  return {{"pid", ::getpid()},
          {"elapsed_s", now()},
          {"workers", workers},
          {"slots", last_sample_.value("slots", json::object())},
          {"slot_count", ring_->slot_count()},
          {"slot_bytes", ring_->slot_size()},
          {"ring_bytes", ring_->payload_bytes()},
          {"partitions",
           {{"total", ledger_.size()},
            {"done", done},
            {"failed", ledger_.count(PartState::kFailed)},
            {"pending", ledger_.count(PartState::kPending)},
            {"in_flight", ledger_.count(PartState::kWriting) + ledger_.count(PartState::kReady) +
                              ledger_.count(PartState::kProving)}}},
          {"s_per_proof", done ? now() / double(done) : 0.0},
          {"memory",
           {{"total_rss", last_sample_.value("total_rss", uint64_t{0})},
            {"max_total_rss", report_.max_total_rss_bytes},
            {"max_total_peak", report_.max_total_peak_bytes},
            {"mem_budget", cfg_.mem_budget}}}};
}

void Pipeline::show_progress() {
  if (!tty_) return;
  const size_t done = ledger_.count(PartState::kDone), failed = ledger_.count(PartState::kFailed);
  const size_t total = ledger_.size();
  const double t = now(), rate = done ? double(done) / t : 0.0;
  const double eta = rate > 0 ? double(total - done - failed) / rate : 0.0;
  constexpr int kWidth = 30;
  const int filled = total ? int(kWidth * (done + failed) / total) : kWidth;
  std::fprintf(stderr, "\r[%-*s] %zu/%zu proved%s, %.2f proofs/s, ETA %.0f s, peak %s   ", kWidth,
               std::string(size_t(filled), '#').c_str(), done, total,
               failed ? fmt::format(" ({} failed)", failed).c_str() : "", rate, eta,
               format_size(report_.max_total_peak_bytes).c_str());
  std::fflush(stderr);
}

}  // namespace proofpipe::coord
