// proofpipe-synth-worker: the synthesis process (DESIGN.md §2). Spawned by
// `proofpipe run` with its seat and run endpoints; not meant to be run by hand.
#include <CLI/CLI.hpp>

#include "proofpipe/common/logging.hpp"
#include "proofpipe/ipc/worker.hpp"
#include "synth_loop.hpp"

int main(int argc, char** argv) {
  proofpipe::ipc::WorkerArgs args;
  CLI::App app{"proofpipe synthesis worker (spawned by `proofpipe run`)"};
  proofpipe::ipc::add_worker_options(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    app.exit(err);
    return proofpipe::ipc::kWorkerExitUsage;
  }
  proofpipe::init_logging("synth." + std::to_string(args.seat));
  return proofpipe::synth::run(args);
}
