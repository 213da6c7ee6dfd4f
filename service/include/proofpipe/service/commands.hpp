// The service's subcommands, each returning the process exit code (the codes
// of proofpipe/coordinator/commands.hpp): `serve` runs the resident service;
// `submit`, `jobs` and `cancel` are its HTTP clients (docs/api.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proofpipe/coordinator/commands.hpp"

namespace proofpipe::cli {

struct ServeArgs {
  std::vector<std::string> keys;  // --key NAME=PATH.zkey, at least one
  std::string listen = "127.0.0.1:7300";
  std::string state_dir = "proofpipe-state";
  std::string token_file;               // bearer token; required off loopback
  std::vector<std::string> allow_dirs;  // witness paths must lie under one of these (default: uploads only)
  double drain_timeout_s = 60;
  std::string max_upload = "1GiB";  // one request body (a multipart upload of .wtns files)
  unsigned max_connections = 1024;  // open API connections; one address may hold half
  // The queue: "sqlite" (the journal in --state-dir) or a postgresql:// URL
  // shared by many nodes (docs/scale-out.md).
  std::string queue = "sqlite";
  std::string node_id;        // empty: <hostname>-<pid>
  std::string lease = "30s";  // a claim's lease on the shared queue
  // --witness-gen NAME=KIND:PATH: the key NAME's jobs may give circom inputs
  // (docs/witness-gen.md); the operator's choice, never the client's.
  std::vector<std::string> witness_gens;
  // The worker, slot, cap and attempt flags of `run` (same meaning).
  unsigned synth_workers = 2;
  unsigned gpu_workers = kGpuWorkersAuto;
  std::string gpus;
  unsigned slots = 0;
  std::string mem_budget;
  std::string mem_max;  // --mem-max TOTAL: one cgroup cap for the whole service
  std::string synth_mem_max;
  std::string gpu_mem_max;
  unsigned max_attempts = 3;
  std::string backend = "auto";
  double hang_timeout_s = 30;
  unsigned sample_ms = 250;
};
int run_serve(const ServeArgs& args);

// The clients. --server defaults to $PROOFPIPE_SERVER, else http://127.0.0.1:7300;
// a token is read from --token-file or $PROOFPIPE_TOKEN_FILE when given.
struct ClientArgs {
  std::string server;
  std::string token_file;
};
struct SubmitArgs : ClientArgs {
  std::string key;
  std::string id;
  int64_t priority = 0;
  std::string out;  // with --wait: where the proofs are written
  bool wait = false;
  bool upload = true;  // false (--paths): send server paths (the server's --allow-dir) instead of the files
  std::vector<std::string> witnesses;
  std::vector<std::string> inputs;  // --inputs FILE|DIR...: circom input JSON instead of witnesses
};
int run_submit(const SubmitArgs& args);

struct JobsArgs : ClientArgs {
  std::string id;     // empty: list
  std::string state;  // list filter
  bool json = false;
};
int run_jobs(const JobsArgs& args);

struct CancelArgs : ClientArgs {
  std::string id;
};
int run_cancel(const CancelArgs& args);

}  // namespace proofpipe::cli
