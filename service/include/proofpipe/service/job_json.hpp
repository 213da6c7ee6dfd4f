// The JSON shapes of the service's API (docs/api.md, "JSON shapes"): a Job
// with its partitions and a KeyInfo, in one spelling that the server writes
// and the clients (`submit`, `jobs`, `cancel`) parse back. Times travel as
// ISO 8601 UTC strings with milliseconds ("2025-01-02T03:04:05.678Z", null
// while not yet), the per-partition stage times as plain seconds.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/core.hpp"
#include "proofpipe/service/job_queue.hpp"

namespace proofpipe::service {

// 0 (not yet) is null; anything else "YYYY-MM-DDThh:mm:ss.mmmZ".
nlohmann::json time_to_json(double unix_seconds);
// The inverse: null -> 0; a string not in the form above is kBadFormat.
Result<double> time_from_json(const nlohmann::json& j);

// with_partitions: GET/POST/DELETE of one job carry them; the list does not.
nlohmann::json job_to_json(const Job& job, bool with_partitions);
nlohmann::json key_to_json(const KeyInfo& key);

// The clients' side. A missing field or one of the wrong type is
// kBadFormat naming it. The witness path and the queue's seq are the
// server's own and not in the JSON: they come back empty and 0.
Result<Job> job_from_json(const nlohmann::json& j);
Result<KeyInfo> key_from_json(const nlohmann::json& j);

// One line of JSON: invalid UTF-8 in a string (a file name, an id) becomes
// U+FFFD instead of an exception.
std::string dump_json(const nlohmann::json& j);

}  // namespace proofpipe::service
