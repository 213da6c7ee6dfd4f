// ServiceMetrics (proofpipe/service/core.hpp) as GET /metrics answers it: the
// Prometheus text exposition format, version 0.0.4 — "# HELP" and "# TYPE"
// once per family, label values escaped (\\, \", \n), counters ending in
// _total, histograms as cumulative _bucket{le=...} lines up to +Inf, then
// _sum and _count. The families and their labels are listed in docs/api.md.
#pragma once

#include <string>
#include <string_view>

#include "proofpipe/service/core.hpp"

namespace proofpipe::service {

// The Content-Type of the answer.
inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_metrics(const ServiceMetrics& m);

// A sample value as the format writes it: shortest round-trip decimal,
// "+Inf", "-Inf", "NaN".
std::string metric_value(double v);

// A label value with \, " and newline escaped.
std::string escape_label_value(std::string_view v);

}  // namespace proofpipe::service
