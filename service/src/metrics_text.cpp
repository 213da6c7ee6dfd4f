// Renders ServiceMetrics in the Prometheus text format 0.0.4 (metrics_text.hpp).
// Every family is written with its HELP and TYPE lines even when it has no
// sample yet, so a scrape always shows the same set of names.
#include "metrics_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace proofpipe::service {
namespace {

using Labels = std::map<std::string, std::string>;

// {a="x",b="y"}, or nothing for no labels; `extra` (le) goes last.
std::string label_text(const Labels& labels, const std::string& extra = {}) {
  std::string out;
  for (const auto& [k, v] : labels) {
    out += out.empty() ? "{" : ",";
    out += fmt::format("{}=\"{}\"", k, escape_label_value(v));
  }
  if (!extra.empty()) out += (out.empty() ? "{" : ",") + extra;
  return out.empty() ? out : out + "}";
}

class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    // HELP text escapes \ and newline (not quotes), by the format's rules.
    std::string h;
    for (char c : help) h += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, h, name, type);
  }
  void sample(std::string_view name, const Labels& labels, double v, const std::string& extra = {}) {
    out_ += fmt::format("{}{} {}\n", name, label_text(labels, extra), metric_value(v));
  }
  // A family of labelled samples.
  void counts(std::string_view name, std::string_view type, std::string_view help,
              const std::vector<ServiceMetrics::Count>& counts) {
    family(name, type, help);
    for (const auto& c : counts) sample(name, c.labels, c.value);
  }
  // One unlabelled sample.
  void single(std::string_view name, std::string_view type, std::string_view help, double v) {
    family(name, type, help);
    sample(name, {}, v);
  }
  void histograms(std::string_view name, std::string_view help, const std::vector<double>& bounds,
                  const std::vector<ServiceMetrics::Histogram>& hs) {
    family(name, "histogram", help);
    const std::string bucket = fmt::format("{}_bucket", name);
    for (const auto& h : hs) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < bounds.size(); ++i) {
        cumulative += i < h.buckets.size() ? h.buckets[i] : 0;
        sample(bucket, h.labels, double(cumulative), fmt::format("le=\"{}\"", metric_value(bounds[i])));
      }
      // The +Inf bucket holds every observation: it is the count, whatever
      // the per-bound counts add up to.
      sample(bucket, h.labels, double(h.count), "le=\"+Inf\"");
      sample(fmt::format("{}_sum", name), h.labels, h.sum);
      sample(fmt::format("{}_count", name), h.labels, double(h.count));
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::string metric_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_metrics(const ServiceMetrics& m) {
  Writer w;
  w.counts("proofpipe_proofs_total", "counter",
           "Partitions ended, by key and result (done, failed, cancelled; stale: a commit the shared queue refused).",
           m.proofs);
  w.histograms("proofpipe_partition_seconds", "Seconds of each proved partition by stage (total, wait, synth, prove).",
               m.seconds_bounds, m.partition_seconds);
  w.counts("proofpipe_queue_depth", "gauge", "Partitions this node claimed and not yet granted, by job priority.",
           m.queue_depth);
  w.single("proofpipe_cluster_queue_depth", "gauge", "Partitions queued in the shared queue, claimed by no node.",
           m.cluster_queue_depth);
  w.single("proofpipe_ledger_partitions", "gauge",
           "Partitions the engine holds in memory: open ones, and ended ones until an older one ends.",
           m.ledger_partitions);
  w.counts("proofpipe_stored_bytes", "gauge",
           "Bytes the queue holds: stored proofs, and the journal's files (or the shared queue's tables).",
           m.stored_bytes);
  w.single("proofpipe_expired_jobs_total", "counter", "Ended jobs removed by --retain since the service started.",
           m.expired_jobs);
  w.family("proofpipe_node_info", "gauge", "This service's node id (--node-id).");
  if (!m.node.empty()) w.sample("proofpipe_node_info", {{"node", m.node}}, 1);
  w.counts("proofpipe_workers", "gauge", "Worker processes by role and state.", m.workers);
  w.counts("proofpipe_slots", "gauge", "Ring slots by state.", m.slots);
  w.single("proofpipe_restarts_total", "counter", "Worker restarts since the service started.", m.restarts);
  w.single("proofpipe_oom_kills_total", "counter", "Workers killed by their memory cap.", m.oom_kills);
  w.counts("proofpipe_memory_bytes", "gauge", "Memory per process: rss now and peak (its high-water mark).",
           m.memory_bytes);
  w.single("proofpipe_memory_total_bytes", "gauge", "Resident memory of the whole service now.", m.total_memory_bytes);
  w.single("proofpipe_memory_total_peak_bytes", "gauge", "High-water mark of the whole service's sampled memory.",
           m.total_memory_peak_bytes);
  w.single("proofpipe_memory_max_bytes", "gauge", "The --mem-max cap of the whole service (0: none).",
           m.memory_max_bytes);
  w.single("proofpipe_uptime_seconds", "gauge", "Seconds since the service started.", m.uptime_seconds);
  return w.take();
}

}  // namespace proofpipe::service
