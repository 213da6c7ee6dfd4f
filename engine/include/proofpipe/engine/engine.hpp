// The engine's face: run() proves partitions through the multi-process
// pipeline (docs/pipeline.md, docs/architecture.md). Inside it the
// Supervisor creates the ring and the private run directory, spawns and
// supervises the workers, and executes what the Scheduler decides (grants,
// dispatches, reclaims, the commit of each verified proof exactly once);
// the Reporter keeps the figures. It never blocks on shared memory and
// waits only in one poll; messages are hints and the slot words the truth.
#pragma once

#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/config.hpp"
#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/engine/snapshot.hpp"

namespace proofpipe::engine {

// Whether the engine can take work now (serve's /readyz), and if not why,
// in one clause for an operator.
struct Readiness {
  bool ready = false;
  std::string why;
};

// What a host sees of the running engine, from the engine's own thread
// (the calls of Host below): add and cancel partitions, hold grants (a
// drain), read the ledger and a snapshot of the workers.
class EngineControl {
 public:
  // Appends to the ledger run() was given; returns its index.
  virtual uint32_t add_partition(Partition p) = 0;
  virtual void cancel_partition(uint32_t index) = 0;
  virtual void hold_grants(bool hold) = 0;
  virtual const Ledger& ledger() const = 0;
  // Ready to prove: every seat said HELLO once (its keys are loaded), and
  // since then each role keeps at least one seat that did; a seat that
  // restarts, or is retired and retried later, does not make it unready
  // while another of its role works.
  virtual Readiness readiness() const = 0;
  virtual EngineSnapshot snapshot() const = 0;
  virtual double now() const = 0;  // the run clock, seconds

 protected:
  ~EngineControl() = default;
};

// What a resident owner of the engine (the service) plugs into its loop.
// `run` has none: its loop ends when the ledger is finished. With a host the
// loop runs until the host says stop; every call comes from the loop's thread.
//
//   loop turn:  host.on_turn(control) --> control.add_partition / cancel_partition
//               schedule, poll (+ host.wake_fd()), messages, reaps, reconcile, ...
//   a proof:    verify --> host.store_proof (durable) --> ledger commit --> observer: kDone
//   SIGTERM:    host.on_signal(control) (drain: hold grants) ... host.should_stop(control) -> true
class Host {
 public:
  virtual ~Host() = default;
  // Polled with the loop's own fds (an eventfd the host signals when it
  // posts work from another thread); -1: none.
  virtual int wake_fd() const = 0;
  virtual void on_turn(EngineControl& engine) = 0;
  // A verified proof of `p`: stored durably before it returns, or an error
  // (the partition then fails for good: its outputs cannot be written).
  // `proof` is the raw proof of p's key's curve (PipelineKey::proof_json reads it).
  virtual Status store_proof(const Partition& p, std::string_view proof) = 0;
  // SIGINT/SIGTERM arrived (each one: a second may mean "now").
  virtual void on_signal(EngineControl& engine) = 0;
  virtual bool should_stop(const EngineControl& engine) = 0;
};

// Runs the engine. keys[k] verifies the proofs of partitions with key k.
// Without a host: the whole batch, and partitions end DONE or FAILED in
// `ledger`. The Status is an error only for set-up failures (run dir, ring,
// endpoint), in which case nothing was started and nothing is left behind.
Result<RunReport> run(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys, Host* host = nullptr);

}  // namespace proofpipe::engine
