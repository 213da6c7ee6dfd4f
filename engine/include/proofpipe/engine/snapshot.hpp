// A typed picture of a running engine: its workers, slots, partitions and
// memory, filled by the Reporter at one moment. `proofpipe status` gets it
// as JSON over the run's control socket (status_json, docs/metrics.md) and
// the service renders /metrics from it, so both say the same thing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/engine/timings.hpp"

namespace proofpipe::engine {

struct WorkerSnapshot {
  ipc::Role role = ipc::Role::kSynth;
  uint8_t seat = 0;
  std::string name;  // "<role>.<seat>", as logs and summary.json name it ("synth.0", "gpu.2")
  pid_t pid = 0;     // 0: no child running
  uint32_t incarnation = 0;
  // starting, idle, writing, proving (a child runs); restarting, retired (none does)
  std::string state;
  std::optional<uint32_t> partition;  // the ledger index it holds
  std::string partition_name;
  uint32_t restarts = 0;
  uint64_t oom_kills = 0;
  uint64_t peak = 0;                            // max of its peak RSS and cgroup peak over its incarnations
  std::optional<uint64_t> rss;                  // the last sample's, while its child runs
  std::optional<std::string> backend, devices;  // a proving worker that said HELLO
};

struct InFlightSnapshot {
  std::string name;
  PartState state = PartState::kWriting;
  PartitionTimes times;              // so far
  std::optional<double> generate_s;  // --inputs: the part of synth_s spent generating
};

struct MemorySnapshot {
  uint64_t total_rss = 0, max_total_rss = 0, max_total_peak = 0;
  uint64_t mem_budget = 0, mem_max = 0;
  uint64_t cgroup_total = 0, max_total_cgroup = 0, cgroup_total_peak = 0;
};

struct EngineSnapshot {
  pid_t pid = 0;
  std::string zkey;  // the first key's path
  std::chrono::system_clock::time_point started;
  double elapsed_s = 0;
  std::optional<double> eta_s;
  std::vector<InFlightSnapshot> in_flight;
  std::vector<WorkerSnapshot> workers;
  std::map<std::string, uint64_t> slots;  // slots by state name, at the last sample
  uint32_t slot_count = 0;
  uint64_t slot_bytes = 0, ring_bytes = 0;
  size_t total = 0, done = 0, failed = 0, pending = 0, in_flight_count = 0;
  double s_per_proof = 0;    // run: elapsed / done; serve: busy_s / done
  std::string mode = "run";  // "run" or "serve": what the coordinator is
  double busy_s = 0;         // time with a partition pending or in flight
  MemorySnapshot memory;
};

// The JSON `proofpipe status --json` prints (docs/metrics.md, "status").
nlohmann::json status_json(const EngineSnapshot& s);

}  // namespace proofpipe::engine
