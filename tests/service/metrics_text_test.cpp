// GET /metrics's text (service/src/metrics_text.hpp) read back by an
// independent parser: Python's prometheus_client (Debian's
// python3-prometheus-client) must see every family with its type, labels and
// values, histogram buckets cumulative up to +Inf, and a label value holding
// a quote, a backslash and a newline unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "metrics_text.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

using nlohmann::json;
using namespace proofpipe::service;

// Debian's interpreter: the module is a Debian package, and a python3 earlier
// on PATH (pyenv, a venv) may not have it.
constexpr const char* kPython = "/usr/bin/python3";

// {family name: {"type": t, "samples": [[name, {labels}, value], ...]}} as
// prometheus_client parses `text`.
json parse_with_prometheus_client(const std::string& text) {
  TempDir tmp;
  std::ofstream(tmp / "m.txt", std::ios::binary) << text;
  std::ofstream(tmp / "p.py") << R"(import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for f in text_string_to_metric_families(open(sys.argv[1]).read()):
    out[f.name] = {"type": f.type, "help": f.documentation,
                   "samples": [[s.name, s.labels, None if math.isnan(s.value) else
                                ("+Inf" if s.value == math.inf else s.value)] for s in f.samples]}
print(json.dumps(out))
)";
  const auto r = run_command(std::string(kPython) + " " + quote(tmp / "p.py") + " " + quote(tmp / "m.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.output;
  return j;
}

ServiceMetrics sample_metrics() {
  ServiceMetrics m;
  m.proofs = {{{{"key", "main"}, {"result", "done"}}, 12},
              {{{"key", "main"}, {"result", "failed"}}, 1},
              {{{"key", "odd \"q\" \\ back\nslash"}, {"result", "done"}}, 2}};
  m.seconds_bounds = {0.5, 1, 2.5};
  m.partition_seconds = {{{{"stage", "total"}}, {1, 2, 3, 4}, 31.5, 10}, {{{"stage", "prove"}}, {5, 0, 0, 0}, 1.25, 5}};
  m.queue_depth = {{{{"priority", "0"}}, 3}, {{{"priority", "-5"}}, 1}};
  m.workers = {{{{"role", "synth"}, {"state", "idle"}}, 2}};
  m.slots = {{{{"state", "free"}}, 3}};
  m.restarts = 2;
  m.oom_kills = 1;
  m.memory_bytes = {{{{"process", "coordinator"}, {"kind", "rss"}}, 123456789}};
  m.total_memory_bytes = 5e9;
  m.total_memory_peak_bytes = 6.5e9;
  m.memory_max_bytes = 8589934592;
  m.uptime_seconds = 12.25;
  return m;
}

// The samples of a family whose labels include `want`.
std::vector<json> samples(const json& fams, const std::string& family, const std::string& name, const json& want) {
  std::vector<json> out;
  for (const auto& s : fams.at(family).at("samples")) {
    bool match = s[0] == name;
    for (const auto& [k, v] : want.items()) match = match && s[1].contains(k) && s[1][k] == v;
    if (match) out.push_back(s);
  }
  return out;
}

TEST(MetricsText, PrometheusClientReadsEveryFamilyBack) {
  const std::string text = render_metrics(sample_metrics());
  const json f = parse_with_prometheus_client(text);
  ASSERT_TRUE(f.is_object()) << text;
  // prometheus_client names a counter's family without its _total suffix.
  EXPECT_EQ(f.at("proofpipe_proofs")["type"], "counter");
  EXPECT_EQ(f.at("proofpipe_restarts")["type"], "counter");
  EXPECT_EQ(f.at("proofpipe_oom_kills")["type"], "counter");
  EXPECT_EQ(f.at("proofpipe_partition_seconds")["type"], "histogram");
  for (const char* g : {"proofpipe_queue_depth", "proofpipe_workers", "proofpipe_slots", "proofpipe_memory_bytes",
                        "proofpipe_memory_total_bytes", "proofpipe_memory_total_peak_bytes",
                        "proofpipe_memory_max_bytes", "proofpipe_uptime_seconds", "proofpipe_ledger_partitions"})
    EXPECT_EQ(f.at(g)["type"], "gauge") << g;

  auto s = samples(f, "proofpipe_proofs", "proofpipe_proofs_total", {{"key", "main"}, {"result", "failed"}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0][2], 1.0);
  // The label value with a quote, a backslash and a newline comes back as it was.
  s = samples(f, "proofpipe_proofs", "proofpipe_proofs_total", {{"key", "odd \"q\" \\ back\nslash"}});
  ASSERT_EQ(s.size(), 1u) << text;
  EXPECT_EQ(s[0][2], 2.0);

  // Buckets are cumulative and end at +Inf with the count.
  const json total = {{"stage", "total"}};
  const std::vector<std::pair<std::string, double>> want = {{"0.5", 1}, {"1", 3}, {"2.5", 6}, {"+Inf", 10}};
  for (const auto& [le, count] : want) {
    json w = total;
    w["le"] = le;
    s = samples(f, "proofpipe_partition_seconds", "proofpipe_partition_seconds_bucket", w);
    ASSERT_EQ(s.size(), 1u) << le << "\n" << text;
    EXPECT_EQ(s[0][2], count) << le;
  }
  EXPECT_EQ(samples(f, "proofpipe_partition_seconds", "proofpipe_partition_seconds_sum", total).at(0)[2], 31.5);
  EXPECT_EQ(samples(f, "proofpipe_partition_seconds", "proofpipe_partition_seconds_count", total).at(0)[2], 10.0);
  json prove_inf = {{"stage", "prove"}, {"le", "+Inf"}};
  EXPECT_EQ(samples(f, "proofpipe_partition_seconds", "proofpipe_partition_seconds_bucket", prove_inf).at(0)[2], 5.0);

  EXPECT_EQ(samples(f, "proofpipe_queue_depth", "proofpipe_queue_depth", {{"priority", "-5"}}).at(0)[2], 1.0);
  EXPECT_EQ(samples(f, "proofpipe_memory_max_bytes", "proofpipe_memory_max_bytes", json::object()).at(0)[2],
            8589934592.0);
  EXPECT_EQ(
      samples(f, "proofpipe_memory_total_peak_bytes", "proofpipe_memory_total_peak_bytes", json::object()).at(0)[2],
      6.5e9);
  EXPECT_EQ(samples(f, "proofpipe_restarts", "proofpipe_restarts_total", json::object()).at(0)[2], 2.0);
  EXPECT_EQ(samples(f, "proofpipe_uptime_seconds", "proofpipe_uptime_seconds", json::object()).at(0)[2], 12.25);
}

TEST(MetricsText, EmptyMetricsStillNameEveryFamily) {
  const json f = parse_with_prometheus_client(render_metrics(ServiceMetrics{}));
  // 12, the node's id, the cluster's queue depth, the ledger's size, what the queue stores.
  EXPECT_EQ(f.size(), 17u) << f.dump(1);
  EXPECT_TRUE(f.at("proofpipe_proofs")["samples"].empty());
  EXPECT_TRUE(f.at("proofpipe_node_info")["samples"].empty());  // no node id: no sample
}

TEST(MetricsText, ValuesAndEscapes) {
  EXPECT_EQ(metric_value(3), "3");
  EXPECT_EQ(metric_value(0.25), "0.25");
  EXPECT_EQ(metric_value(1e21), "1e+21");
  EXPECT_EQ(metric_value(INFINITY), "+Inf");
  EXPECT_EQ(metric_value(-INFINITY), "-Inf");
  EXPECT_EQ(metric_value(NAN), "NaN");
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  const std::string text = render_metrics(sample_metrics());
  EXPECT_NE(text.find("# TYPE proofpipe_proofs_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("proofpipe_partition_seconds_bucket{stage=\"total\",le=\"+Inf\"} 10\n"), std::string::npos)
      << text;
  ServiceMetrics node;
  node.node = "host-1";
  node.cluster_queue_depth = 7;
  const std::string n = render_metrics(node);
  EXPECT_NE(n.find("proofpipe_node_info{node=\"host-1\"} 1\n"), std::string::npos) << n;
  EXPECT_NE(n.find("proofpipe_cluster_queue_depth 7\n"), std::string::npos) << n;
}

}  // namespace
}  // namespace proofpipe::test
