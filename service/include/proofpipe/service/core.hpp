// What the HTTP API (http_api.hpp) asks of the service (service.hpp): the
// requests of docs/api.md as plain calls, with no HTTP in them, so the API
// layer is tested against a fake and the service without sockets.
//
//   HTTP thread                      ServiceCore                      engine thread
//   POST /v1/jobs ---> submit() --> intake: check + copy witnesses,
//                                   JobQueue::submit (durable) -----> new partitions (wake)
//   DELETE /v1/jobs/ID -> cancel() --> JobQueue::cancel (durable) ---> drop its partitions;
//                                   returns once the engine dispatches none of them
//   GET ... ---------> job(), jobs(), proof(), keys(), health(), metrics(): reads only
//
// Errors map to HTTP statuses (http_api.cpp): kInvalidArgument, kBadFormat,
// kNotFound (an unknown key, a missing file) -> 400; kPermissionDenied (a path
// outside --allow-dir) -> 403; kUnavailable (draining) -> 503;
// kResourceExhausted (too large) -> 413; anything else -> 500.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/service/job_queue.hpp"

namespace proofpipe::service {

struct UploadedWitness {
  std::string filename;  // as the client named it ("w01.wtns"): the partition name is its stem
  std::string bytes;
};

struct SubmitRequest {
  std::optional<std::string> id;  // [A-Za-z0-9._-]{1,128}; none: the service makes one
  std::string key;
  int64_t priority = 0;
  std::vector<std::string> paths;        // JSON form: witness files on the server (under --allow-dir)
  std::vector<UploadedWitness> uploads;  // multipart form: the files themselves
  // Or circom input JSON instead of witnesses (docs/witness-gen.md): inline
  // objects of the JSON form ("<name>.json", the object as JSON text) or
  // uploaded files; the key's --witness-gen makes each partition's witness.
  std::vector<UploadedWitness> inputs;
};

struct KeyInfo {
  std::string name;
  std::string path;
  std::string curve;  // "bls12381" or "bn128": the zkey's
  uint64_t constraints = 0, n_vars = 0, n_public = 0, domain_size = 0;
  uint64_t file_bytes = 0;  // the .zkey
  uint64_t slot_bytes = 0;  // one partition's record in the ring
  bool inputs = false;      // takes circom inputs: the service has a --witness-gen for it
};

struct Health {
  bool ready = false;  // keys loaded, every worker said HELLO, not draining
  bool draining = false;
  std::string why_not;  // when not ready: "draining", "waiting for 2 workers' HELLO", ...
};

// The figures /metrics exposes (metrics_text.hpp renders them).
struct ServiceMetrics {
  struct Count {
    std::map<std::string, std::string> labels;
    double value = 0;
  };
  std::vector<Count> proofs;           // proofpipe_proofs_total{key, result="done|failed|cancelled"}
  std::vector<double> seconds_bounds;  // histogram upper bounds (le), ascending; +Inf is implied
  struct Histogram {
    std::map<std::string, std::string> labels;  // {stage="total|wait|synth|prove"}
    std::vector<uint64_t> buckets;              // per bound, NOT cumulative; one more for +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  std::vector<Histogram> partition_seconds;  // proofpipe_partition_seconds
  std::vector<Count> queue_depth;            // proofpipe_queue_depth{priority}
  std::vector<Count> workers;                // proofpipe_workers{role, state}
  std::vector<Count> slots;                  // proofpipe_slots{state}
  double restarts = 0, oom_kills = 0;        // *_total counters
  std::vector<Count> memory_bytes;           // proofpipe_memory_bytes{process, kind="rss|peak"}
  double total_memory_bytes = 0;             // all processes now
  double total_memory_peak_bytes = 0;        // its high-water mark (sampled)
  double memory_max_bytes = 0;               // --mem-max; 0: none
  double uptime_seconds = 0;
  std::string node;                 // proofpipe_node_info{node}: this service's --node-id
  double cluster_queue_depth = 0;   // partitions queued in the shared queue (every node's)
  double ledger_partitions = 0;     // partitions the engine holds in memory (ended ones until dropped)
  std::vector<Count> stored_bytes;  // proofpipe_stored_bytes{what="proofs|journal"}: what the queue holds
  double expired_jobs = 0;          // proofpipe_expired_jobs_total: removed by --retain
};

class ServiceCore {
 public:
  virtual ~ServiceCore() = default;
  virtual Result<SubmitResult> submit(const SubmitRequest& request) = 0;
  virtual Result<std::optional<Job>> job(std::string_view id) = 0;
  virtual Result<std::vector<Job>> jobs(std::optional<JobState> state, size_t limit) = 0;
  // Returns once the engine will dispatch no partition of the job (docs/api.md).
  virtual Result<std::optional<Job>> cancel(std::string_view id) = 0;
  // nullopt: no such job or partition, or not proved (yet).
  virtual Result<std::optional<ProofFiles>> proof(std::string_view id, std::string_view name) = 0;
  virtual std::vector<KeyInfo> keys() const = 0;
  virtual Health health() const = 0;
  virtual ServiceMetrics metrics() const = 0;
};

}  // namespace proofpipe::service
