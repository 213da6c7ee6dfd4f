// The service's entry point: `proofpipe serve` with its options checked and
// parsed by the CLI (docs/service.md). serve() checks every setting, loads
// the keys, takes the state directory, opens the queue, starts the HTTP API
// and runs the engine with the Service as its host until a signal has
// drained it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/config.hpp"

namespace proofpipe::service {

struct ServeOptions {
  std::vector<std::string> keys;  // --key NAME=PATH.zkey, at least one
  std::string listen = "127.0.0.1:7300";
  std::string state_dir = "proofpipe-state";
  std::string token_file;               // bearer token; required off loopback
  std::vector<std::string> allow_dirs;  // witness paths must lie under one of these (default: uploads only)
  double drain_timeout_s = 60;
  // --retain DURATION: an ended job's rows and proofs are removed this long
  // after it ended (docs/service.md); empty: kept forever.
  std::string retain;
  std::string max_upload = "1GiB";  // one request body (a multipart upload of .wtns files)
  unsigned max_connections = 1024;  // open API connections; one address may hold an eighth
  // The queue: "sqlite" (the journal in --state-dir) or a postgresql:// URL
  // shared by many nodes (docs/scale-out.md).
  std::string queue = "sqlite";
  std::string node_id;        // empty: <hostname>-<pid>
  std::string lease = "30s";  // a claim's lease on the shared queue
  // --witness-gen NAME=KIND:PATH: the key NAME's jobs may give circom inputs
  // (docs/witness-gen.md); the operator's choice, never the client's.
  std::vector<std::string> witness_gens;
  engine::WorkerFlags workers;  // the worker, slot, cap and attempt flags of `run` (same meaning)
};

// Runs until SIGINT/SIGTERM have drained it (the caller blocks neither:
// serve() masks them itself before any thread starts). An error is a
// set-up failure (one line naming the flag or file: nothing was started)
// or the engine giving up (no workers left); the queue is kept either way.
Status serve(const ServeOptions& options);

// A bearer token from --token-file (serve and the clients): a regular file (not a link, FIFO or directory), this
// user's and without group or other permission bits (a secret: else kPermissionDenied), one error line naming it;
// at most 4 KiB, one trailing newline stripped, then printable ASCII without spaces.
Result<std::string> read_token_file(const std::filesystem::path& path);

}  // namespace proofpipe::service
