// The service's engine face (service.hpp): the PipelineHost the coordinator's
// loop calls every turn, the ledger observer that writes each transition to
// the journal, the proof store, the drain on SIGTERM, and the snapshot of
// health and metrics the HTTP threads read.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "intake.hpp"
#include "service.hpp"

namespace proofpipe::service {
namespace {

// /metrics is read every few seconds; the status JSON behind it samples every
// process. Twice a second is fresh enough and costs nothing next to a proof.
constexpr double kPublishEveryS = 0.5;
// Without a new job or a freed place, a node looks at the shared queue this
// often for work other nodes accepted (and, on one node, for nothing new):
// a fraction of a small proof's time, and 4 cheap queries a second.
constexpr double kClaimPollS = 0.25;
// The cluster's queue depth for /metrics: one count a second is plenty.
constexpr double kDepthEveryS = 1.0;
// A write the state disk refused for want of space is tried again after
// 0.25 s, doubling to at most 30 s: a full disk costs a few writes a minute,
// and one that gets space back resumes within 30 s.
constexpr double kFirstBackoffS = 0.25;
constexpr double kMaxBackoffS = 30;
// One "disk full" line per 10 s at most, whatever the number of writes waiting.
constexpr double kDiskLogEveryS = 10;
// --retain's removals and the stored bytes for /metrics: every 10 s, at most
// 4 batches of 250 jobs a pass (a batch is one transaction of a few ms on
// SQLite), so a backlog of 100,000 expired jobs clears in under 20 minutes
// without holding up the engine's loop.
constexpr double kHousekeepingEveryS = 10;
constexpr int kExpireBatches = 4;
constexpr size_t kExpireBatchJobs = 250;

// partition seconds: from a 2^10 toy (tens of ms) to a 2^27 partition on a
// CPU (most of an hour).
constexpr double kBounds[] = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
constexpr const char* kStages[] = {"total", "wait", "synth", "prove"};

double& count_for(std::vector<ServiceMetrics::Count>& counts, std::map<std::string, std::string> labels) {
  for (auto& c : counts) {
    if (c.labels == labels) return c.value;
  }
  counts.push_back({std::move(labels), 0});
  return counts.back().value;
}

}  // namespace

// The last write of a claim; the caller fills in the cause, times or proof.
Service::Unsent Service::ending(Unsent::Kind kind, const Claim& claim, const std::string& job_id,
                                const std::string& stem, double at) {
  Unsent u;
  u.kind = kind;
  u.claim = claim;
  u.job_id = job_id;
  u.stem = stem;
  u.at = at;
  return u;
}

namespace {

void observe(ServiceMetrics::Histogram& h, double seconds) {
  const size_t bucket =
      size_t(std::upper_bound(std::begin(kBounds), std::end(kBounds), seconds - 1e-12) - std::begin(kBounds));
  h.buckets[bucket] += 1;
  h.sum += seconds;
  h.count += 1;
}

}  // namespace

Result<size_t> Service::recover(engine::Ledger& ledger) {
  ledger_ = &ledger;
  ledger.set_observer([this](const engine::Partition& p, engine::LedgerEvent e, std::string_view cause) {
    on_ledger_event(p, e, cause);
  });
  counted_.seconds_bounds.assign(std::begin(kBounds), std::end(kBounds));
  for (const char* stage : kStages) {
    ServiceMetrics::Histogram h;
    h.labels = {{"stage", stage}};
    h.buckets.assign(std::size(kBounds) + 1, 0);
    counted_.partition_seconds.push_back(std::move(h));
  }
  PP_ASSIGN_OR_RETURN(const uint64_t depth, queue_.depth());
  cluster_depth_ = double(depth);
  return size_t(depth);
}

void Service::disk_trouble(const Status& st) {
  const double now = unix_now();
  send_backoff_s_ = std::clamp(send_backoff_s_ * 2, kFirstBackoffS, kMaxBackoffS);
  next_send_ = now + send_backoff_s_;
  if (!disk_full_) {
    disk_full_ = true;
    std::lock_guard lock(snap_mu_);
    disk_full_reason_ = st.message();
  }
  if (now - last_disk_log_ < kDiskLogEveryS) return;
  last_disk_log_ = now;
  spdlog::error("the state disk is full: {}; the writes wait and are retried (every {:.0f} s at most), no new claims",
                st.message(), kMaxBackoffS);
}

void Service::disk_recovered() {
  send_backoff_s_ = 0;
  next_send_ = 0;
  if (!disk_full_) return;
  disk_full_ = false;
  claim_due_ = true;
  {
    std::lock_guard lock(snap_mu_);
    disk_full_reason_.clear();
  }
  spdlog::info("the state disk takes writes again");
}

void Service::queue_trouble(std::string_view what, const Status& st) {
  // Once per distinct error: an unreachable queue fails every call until it is back.
  if (st.message() == last_trouble_) return;
  last_trouble_ = st.message();
  spdlog::warn("queue: {}: {}", what, st.message());
}

// Claims what this node has room for: the ledger holds at most claim_window
// partitions not yet ended, so the rest stays in the queue for other nodes.
void Service::claim_more(engine::EngineControl& pipeline) {
  // A full disk: what would be claimed could not be stored either. When
  // only claims were refused (their witness copies, on a shared queue), a
  // claim is also the probe that finds the space back, at the back-off's pace.
  if (draining() || (disk_full_ && (!unsent_.empty() || unix_now() < next_send_))) return;
  const engine::Ledger& ledger = pipeline.ledger();
  const size_t held = ledger.count(engine::PartState::kPending) + ledger.in_flight();
  const double now = pipeline.now();
  if (held >= cfg_.claim_window || (!claim_due_ && now < next_claim_)) return;
  claim_due_ = false;
  next_claim_ = now + kClaimPollS;
  ClaimRequest request;
  for (const ServiceKey& k : keys_) {
    request.keys.push_back(k.info.name);
    if (!k.generator.empty()) request.input_keys.push_back(k.info.name);
  }
  request.max_n = cfg_.claim_window - held;
  auto items = queue_.claim(request, unix_now());
  if (!items && out_of_space(items.status())) return disk_trouble(items.status());
  if (!items) return queue_trouble("claim", items.status());
  last_trouble_.clear();
  if (disk_full_ && unsent_.empty() && !items->empty()) disk_recovered();  // their copies were written
  for (const WorkItem& item : *items) add_work(pipeline, item, now);
}

// Keeps the leases running; a claim the queue says is cancelled, or held by
// another node now, is dropped (a partition already being proved finishes,
// and its commit is refused by the fence).
void Service::renew_claims(engine::EngineControl& pipeline) {
  const double now = pipeline.now();
  if (now < next_renew_) return;
  next_renew_ = now + cfg_.renew_every_s;
  std::vector<Claim> held;
  held.reserve(held_.size());
  for (const auto& [key, i] : held_) held.push_back({ref(i).job_seq, ref(i).index, ref(i).fence});
  auto renewal = queue_.renew(held, unix_now());
  if (!renewal) {
    next_renew_ = now + std::min(cfg_.renew_every_s, 1.0);  // retried soon: the lease is running out
    return queue_trouble("renew", renewal.status());
  }
  for (const auto* list : {&renewal->cancelled, &renewal->lost}) {
    for (const Claim& c : *list) {
      auto it = held_.find({c.job_seq, c.index});
      if (it == held_.end()) continue;
      const PartRef& r = ref(it->second);
      if (list == &renewal->lost) {
        spdlog::warn("job {} partition {}: claim lost (token {}): its lease ran out and another node took it", r.job_id,
                     ledger_->at(it->second).stem, c.fence);
      }
      pipeline.cancel_partition(it->second);
    }
  }
}

void Service::housekeeping(engine::EngineControl& pipeline) {
  if (pipeline.now() < next_housekeeping_) return;
  next_housekeeping_ = pipeline.now() + kHousekeepingEveryS;
  if (cfg_.retain_s > 0) {
    // Batches keep each transaction (and this turn of the loop) short; what
    // is left goes at the next pass.
    for (int batch = 0; batch < kExpireBatches; ++batch) {
      auto n = queue_.expire(unix_now() - cfg_.retain_s, kExpireBatchJobs);
      if (!n) {
        queue_trouble("expire", n.status());
        break;
      }
      counted_.expired_jobs += double(*n);
      if (*n < kExpireBatchJobs) break;
    }
  }
  // The answers the HTTP threads build (a list of 10,000 jobs is a few MB)
  // are freed into their threads' malloc arenas, which keep the pages: give
  // back what is free, so RSS follows what the service holds.
  ::malloc_trim(0);
  if (auto bytes = queue_.stored_bytes(); bytes) {
    count_for(counted_.stored_bytes, {{"what", "proofs"}}) = double(bytes->proofs);
    count_for(counted_.stored_bytes, {{"what", "journal"}}) = double(bytes->journal);
  }
}

bool Service::send(Unsent& w) {
  if (w.start_first) {
    auto n = queue_.start_attempt(w.claim, w.at);
    if (!n && (n.status().code() == ErrorCode::kUnavailable || out_of_space(n.status()))) {
      if (out_of_space(n.status())) disk_trouble(n.status());
      return false;
    }
    w.start_first = false;  // any other refusal: the write below says what is wrong
  }
  Status st;
  switch (w.kind) {
    case Unsent::Kind::kCommit: st = queue_.commit(w.claim, w.times, *w.proof, w.at); break;
    case Unsent::Kind::kFail: st = queue_.fail_partition(w.claim, w.cause, w.at); break;
    case Unsent::Kind::kRelease: st = queue_.release(w.claim, w.at); break;
  }
  if (st.code() == ErrorCode::kUnavailable) {
    queue_trouble("write", st);
    return false;
  }
  if (!st && w.kind != Unsent::Kind::kRelease && out_of_space(st)) {
    // Kept: the partition's proof (or its failure) is written once space
    // returns; the journal keeps the claim, so it is not proved again.
    disk_trouble(st);
    return false;
  }
  if (st) disk_recovered();
  if (st.code() == ErrorCode::kStale) {
    // Fencing: another node took the partition after this node's lease ran
    // out; its result is the one that counts. Nothing was written.
    spdlog::warn("job {} partition {}: {} refused: {}", w.job_id, w.stem,
                 w.kind == Unsent::Kind::kCommit ? "commit" : "write", st.message());
    if (w.kind == Unsent::Kind::kCommit) {
      count_for(counted_.proofs, {{"key", w.key}, {"result", "done"}}) -= 1;
      count_for(counted_.proofs, {{"key", w.key}, {"result", "stale"}}) += 1;
    }
  } else if (!st && w.kind == Unsent::Kind::kCommit) {
    // The proof could not be stored (an unwritable state directory): the
    // partition fails for good, with the reason, as any output that cannot
    // be written does.
    const std::string cause = "the proof could not be stored: " + st.message();
    spdlog::error("job {} partition {}: {}", w.job_id, w.stem, cause);
    count_for(counted_.proofs, {{"key", w.key}, {"result", "done"}}) -= 1;
    count_for(counted_.proofs, {{"key", w.key}, {"result", "failed"}}) += 1;
    if (Status failed = queue_.fail_partition(w.claim, cause, w.at); !failed)
      spdlog::error("journal: job {} partition {}: {}", w.job_id, w.stem, failed.message());
  } else if (!st) {
    // The journal is the service's memory: a write it refused (a full disk)
    // means this partition is proved again after a restart. Said loudly.
    spdlog::error("journal: job {} partition {}: {}", w.job_id, w.stem, st.message());
  }
  return true;
}

void Service::release_claims() {
  while (!unsent_.empty() && send(unsent_.front())) unsent_.pop_front();
  if (!unsent_.empty()) {
    spdlog::warn("queue: {} result{} not written (the queue is unreachable): {} partition{} will be proved again",
                 unsent_.size(), unsent_.size() == 1 ? "" : "s", unsent_.size(), unsent_.size() == 1 ? "" : "s");
  }
  for (const auto& [key, i] : held_) {
    const PartRef& r = ref(i);
    if (Status st = queue_.release({r.job_seq, r.index, r.fence}, unix_now()); !st) queue_trouble("release", st);
  }
  held_.clear();
}

// One journal partition into the ledger. Its witness is the service's own
// copy, checked at intake; only the public signals are read here (for the
// verification of its proof). An input's witness is generated by the
// synthesis worker with the key's generator, as `run --inputs` does
// (docs/witness-gen.md); its public signals arrive with its SEALED.
void Service::add_work(engine::EngineControl& engine, const WorkItem& item, double now) {
  const int k = key_index(item.key);
  if (k < 0) {
    // Started again without that --key: the job waits in the journal for a
    // service that has it (nothing is failed for a configuration change).
    spdlog::warn("job {}: key '{}' is not loaded by this service: partition {} stays queued", item.job_id, item.key,
                 item.name);
    return;
  }
  engine::Partition p;
  p.job = item.job_seq;
  p.key = uint8_t(k);
  p.priority = item.priority;
  p.stem = item.name;
  p.queued_s = now;
  const uint32_t n_public = keys_[size_t(k)].key->n_public();
  p.public_signals.resize(n_public);
  if (item.input) {
    // Claimed only with a generator (ClaimRequest::input_keys).
    p.input = item.witness;
    p.generator = keys_[size_t(k)].generator;
    p.signals_known = false;
  } else {
    if (Status st = keys_[size_t(k)].key->read_public(item.witness, p.public_signals); !st) {
      const std::string why = fmt::format("the stored witness cannot be read: {}", st.message());
      spdlog::error("job {}: {}: {}", item.job_id, item.name, why);
      Unsent w =
          ending(Unsent::Kind::kFail, {item.job_seq, item.index, item.fence}, item.job_id, item.name, unix_now());
      w.cause = why;
      if (!send(w)) unsent_.push_back(std::move(w));
      return;
    }
    p.wtns = item.witness;
  }
  const uint32_t index = engine.add_partition(std::move(p));
  PP_ASSERT(index == refs_base_ + refs_.size(), "the ledger and the service's references disagree");
  refs_.push_back({item.job_seq, item.index, item.fence, item.job_id, unix_now(), 0, std::nullopt});
  held_[{item.job_seq, item.index}] = index;
  JobRef& job = jobs_[item.job_seq];
  job.id = item.job_id;
  job.ledger_indices.push_back(index);
  job.open += 1;
}

void Service::on_ledger_event(const engine::Partition& p, engine::LedgerEvent e, std::string_view given_cause) {
  // A generator's failure names the input it read: the client's name for
  // it (<name>.json), not the copy under --state-dir.
  std::string shown(given_cause);
  if (!p.input.empty()) replace_all(shown, p.input.string(), p.stem + std::string(kInputSuffix));
  const std::string_view cause = shown;
  PartRef& r = ref(p.index);
  const double now = unix_now();
  const std::string& key = keys_[p.key].info.name;
  const Claim claim{r.job_seq, r.index, r.fence};
  Status st = Status::ok();
  std::optional<Unsent> end;  // the partition ended: its last write
  switch (e) {
    case engine::LedgerEvent::kAttemptStarted: {
      r.granted_unix = now;
      auto n = queue_.start_attempt(claim, now);
      st = n.status();
      // Not recorded for want of space: the partition's end writes it first
      // (the journal takes a proof or a failure only of an open attempt).
      r.start_unrecorded = !st && out_of_space(st);
      break;
    }
    case engine::LedgerEvent::kRequeued: st = queue_.fail_attempt(claim, cause, now); break;
    case engine::LedgerEvent::kFailed:
      // A cancelled job's partitions are cancelled in the queue already: the claim goes back.
      end = ending(p.cancelled ? Unsent::Kind::kRelease : Unsent::Kind::kFail, claim, r.job_id, p.stem, now);
      end->cause = cause;
      count_for(counted_.proofs, {{"key", key}, {"result", p.cancelled ? "cancelled" : "failed"}}) += 1;
      break;
    case engine::LedgerEvent::kDone: {
      PartTimes t;
      t.wait_s = std::max(0.0, r.granted_unix - r.added_unix);
      t.synth_s = p.synth_s;
      t.prove_s = p.prove_s;
      t.stages = p.stages;
      end = ending(Unsent::Kind::kCommit, claim, r.job_id, p.stem, now);
      end->times = t;
      end->proof = std::move(r.proof);
      end->key = key;
      count_for(counted_.proofs, {{"key", key}, {"result", "done"}}) += 1;  // until the queue refuses it
      const double stage_s[] = {now - r.added_unix, t.wait_s, t.synth_s, t.prove_s};
      for (size_t i = 0; i < std::size(stage_s); ++i) observe(counted_.partition_seconds[i], stage_s[i]);
      break;
    }
  }
  // An attempt's start or failure is bookkeeping: lost while the queue is
  // unreachable, it costs nothing but a line in the attempts table.
  if (!st && out_of_space(st)) {
    disk_trouble(st);  // said once per 10 s; the end's write clears it once it lands
  } else if (!st && st.code() != ErrorCode::kUnavailable) {
    spdlog::error("journal: job {} partition {}: {}", r.job_id, p.stem, st.message());
  }
  if (!end) return;
  end->start_first = end->kind != Unsent::Kind::kRelease && r.start_unrecorded;
  // Ends are kept until the queue takes them, in order (a commit after a
  // reconnect is checked against the fence then).
  if (!unsent_.empty() || !send(*end)) unsent_.push_back(std::move(*end));
  held_.erase({r.job_seq, r.index});
  claim_due_ = true;
  ended_.push_back(p.index);
  auto job = jobs_.find(r.job_seq);
  if (job != jobs_.end() && --job->second.open == 0) {
    // None of its partitions is held here any more: once the queue says
    // the job ended, its witness copies are nobody's (its proofs stay). A
    // job with partitions still queued (a key this service lacks) keeps them.
    queue_.forget_witnesses(job->second.id);
    jobs_.erase(job);
  }
}

void Service::cancel_job(engine::EngineControl& pipeline, const std::string& id) {
  for (auto& [seq, job] : jobs_) {
    if (job.id != id) continue;
    // A copy: cancelling ends partitions, and the observer may erase the job.
    const std::vector<uint32_t> indices = job.ledger_indices;
    for (uint32_t i : indices) pipeline.cancel_partition(i);
    return;
  }
  // None of its partitions is held here (all still queued, or claimed by
  // another node): nothing will end here to free its copies, so they go now.
  queue_.forget_witnesses(id);
}

void Service::on_turn(engine::EngineControl& pipeline) {
  uint64_t posts = 0;
  (void)!::read(wake_fd_, &posts, sizeof posts);
  for (uint32_t i : ended_) {
    if (ledger_->holds(i)) ledger_->forget_payload(i);
  }
  ended_.clear();
  // The engine dropped the partitions that ended below first_held(): their
  // references go too, so memory stays flat in the partitions served.
  for (; refs_base_ < ledger_->first_held(); ++refs_base_) refs_.pop_front();
  std::deque<Command> commands;
  {
    std::lock_guard lock(inbox_mu_);
    commands.swap(inbox_);
  }
  for (Command& c : commands) {
    if (c.kind == Command::Kind::kNewJob) {
      claim_due_ = true;
    } else {
      cancel_job(pipeline, c.job_id);
      c.done->set_value();
    }
  }
  if (unix_now() >= next_send_) {
    while (!unsent_.empty() && send(unsent_.front())) unsent_.pop_front();
  }
  renew_claims(pipeline);
  claim_more(pipeline);
  housekeeping(pipeline);
  if (pipeline.now() >= next_depth_) {
    next_depth_ = pipeline.now() + kDepthEveryS;
    if (auto depth = queue_.depth(); depth) cluster_depth_ = double(*depth);
  }
  // Readiness as soon as it changes (a client waits on /readyz), the rest
  // at most twice a second.
  if (pipeline.now() >= next_publish_ || pipeline.readiness().ready != ready_now_) {
    next_publish_ = pipeline.now() + kPublishEveryS;
    publish(pipeline);
  }
}

Status Service::store_proof(const engine::Partition& p, std::string_view proof) {
  // Kept until the ledger's commit reaches the queue, which stores it with
  // the partition's done mark (JobQueue::commit).
  const engine::PipelineKey& key = *keys_[p.key].key;
  PP_ASSIGN_OR_RETURN(std::string proof_json, key.proof_json(proof));
  ref(p.index).proof = ProofFiles{std::move(proof_json), key.public_json(p.public_signals)};
  return Status::ok();
}

void Service::on_signal(engine::EngineControl& pipeline) {
  std::lock_guard lock(snap_mu_);
  if (!draining_) {
    draining_ = true;
    drain_deadline_ = pipeline.now() + cfg_.drain_timeout_s;
    pipeline.hold_grants(true);
    spdlog::warn("draining: no new partitions start; {} in flight finish within {:.0f} s, the rest stays queued",
                 pipeline.ledger().in_flight(), cfg_.drain_timeout_s);
  } else if (!stop_now_) {
    stop_now_ = true;
    spdlog::warn("second signal: stopping now; partitions in flight stay queued in the journal");
  }
}

bool Service::should_stop(const engine::EngineControl& pipeline) {
  if (stop_now_) return true;
  if (!draining()) return false;
  const size_t in_flight = pipeline.ledger().in_flight();
  if (in_flight == 0) return true;
  if (pipeline.now() < drain_deadline_) return false;
  spdlog::warn("drain timeout ({:.0f} s): {} partition{} in flight stay{} queued in the journal", cfg_.drain_timeout_s,
               in_flight, in_flight == 1 ? "" : "s", in_flight == 1 ? "s" : "");
  return true;
}

void Service::publish(const engine::EngineControl& pipeline) {
  const engine::EngineSnapshot st = pipeline.snapshot();
  ServiceMetrics m = counted_;
  const engine::Ledger& ledger = pipeline.ledger();
  for (uint32_t i = ledger.open_begin(); i < ledger.size(); ++i) {
    const engine::Partition& p = ledger.at(i);
    if (p.state == engine::PartState::kPending)
      count_for(m.queue_depth, {{"priority", std::to_string(p.priority)}}) += 1;
  }
  for (const engine::WorkerSnapshot& w : st.workers) {
    count_for(m.workers, {{"role", ipc::role_name(w.role)}, {"state", w.state}}) += 1;
    m.restarts += w.restarts;
    m.oom_kills += double(w.oom_kills);
    if (w.rss) count_for(m.memory_bytes, {{"process", w.name}, {"kind", "rss"}}) = double(*w.rss);
    count_for(m.memory_bytes, {{"process", w.name}, {"kind", "peak"}}) = double(w.peak);
  }
  for (const auto& [state, n] : st.slots) count_for(m.slots, {{"state", state}}) = double(n);
  m.total_memory_bytes = double(st.memory.total_rss);
  m.total_memory_peak_bytes = double(st.memory.max_total_peak);
  m.memory_max_bytes = double(cfg_.mem_max);
  m.node = cfg_.node_id;
  m.cluster_queue_depth = cluster_depth_;
  m.ledger_partitions = double(ledger.size() - ledger.first_held());
  // Under --mem-max every process is in one parent cgroup: its usage counts
  // each page once (the per-process figures count shared ring and key pages
  // in every process that maps them).
  if (cfg_.mem_max != 0) {
    count_for(m.memory_bytes, {{"process", "service"}, {"kind", "cgroup"}}) = double(st.memory.cgroup_total);
    count_for(m.memory_bytes, {{"process", "service"}, {"kind", "cgroup_peak"}}) = double(st.memory.cgroup_total_peak);
  }
  engine::Readiness readiness = pipeline.readiness();
  ready_now_ = readiness.ready;
  std::lock_guard lock(snap_mu_);
  metrics_ = std::move(m);
  ready_ = readiness.ready;
  why_not_ = std::move(readiness.why);
}

}  // namespace proofpipe::service
