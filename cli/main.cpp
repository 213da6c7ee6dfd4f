// proofpipe: the command-line front (docs/architecture.md). Builds the App,
// adds every subcommand's flags (src/flags.cpp), parses the arguments and
// hands the subcommand given to its implementation in src/.
#include <CLI/CLI.hpp>

#include "flags.hpp"
#include "proofpipe/common/logging.hpp"
#include "src/cli_error.hpp"

int main(int argc, char** argv) {
  using namespace proofpipe::cli;
  proofpipe::init_logging("proofpipe");
  CLI::App app{"proofpipe: a Groth16 proving pipeline for circom/snarkjs keys (BLS12-381 and BN254)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  bool verbose = false;
  app.add_flag("--verbose", verbose, "Info log lines too (as PROOFPIPE_LOG=info; default: warnings and errors only)");
  app.fallthrough();  // --verbose after the subcommand's name as well
  app.footer(
      "Environment: PROOFPIPE_LOG=trace|debug|info|warn|error|off sets the log level (default warn; serve: info); "
      "PROOFPIPE_NO_PROGRESS=1 hides the progress bar; PROOFPIPE_THREADS=N caps each process's threads; "
      "PROOFPIPE_SERVER and PROOFPIPE_TOKEN_FILE are the clients' --server and --token-file. "
      "Docs: README.md, docs/operations.md, docs/api.md.");
  CommandArgs a;
  add_commands(app, a);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    // Help and version print as CLI11 does (exit 0); a usage error is one
    // "proofpipe: error:" line and exit 2, like every other error.
    if (err.get_exit_code() == 0) return app.exit(err);
    return fail(err.what());
  }
  if (verbose) proofpipe::log_verbosely();
  if (app.got_subcommand("prove")) return cmd_prove(a.prove);
  if (app.got_subcommand("fullprove")) return cmd_fullprove(a.fullprove);
  if (app.got_subcommand("verify")) return cmd_verify(a.verify);
  if (app.got_subcommand("export-vkey")) return cmd_export_vkey(a.export_vkey);
  if (app.got_subcommand("setup-dev")) return cmd_setup_dev(a.setup_dev);
  if (app.got_subcommand("gen")) return cmd_gen(a.gen);
  if (app.got_subcommand("run")) return cmd_run(a.run);
  if (app.got_subcommand("demo")) return cmd_demo(a.demo);
  if (app.got_subcommand("status")) return cmd_status(a.status);
  if (app.got_subcommand("doctor")) return cmd_doctor(a.doctor);
  if (app.got_subcommand("serve")) return cmd_serve(a.serve);
  if (app.got_subcommand("submit")) {
    a.submit.upload = !a.submit_paths;
    return cmd_submit(a.submit);
  }
  if (app.got_subcommand("jobs")) return cmd_jobs(a.jobs);
  if (app.got_subcommand("cancel")) return cmd_cancel(a.cancel);
  return 2;
}
