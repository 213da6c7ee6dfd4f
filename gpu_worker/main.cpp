// proofpipe-gpu-worker: the proving process (DESIGN.md §2). Spawned by
// `proofpipe run`; not meant to be run by hand.
#include <CLI/CLI.hpp>

#include "gpu_loop.hpp"
#include "proofpipe/common/logging.hpp"
#include "proofpipe/ipc/worker.hpp"

int main(int argc, char** argv) {
  proofpipe::ipc::WorkerArgs args;
  CLI::App app{"proofpipe proving worker (spawned by `proofpipe run`)"};
  proofpipe::ipc::add_worker_options(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    app.exit(err);
    return proofpipe::ipc::kWorkerExitUsage;
  }
  proofpipe::init_logging("gpu." + std::to_string(args.seat));
  return proofpipe::gpu::run(args);
}
