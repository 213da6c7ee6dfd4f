// Every `proofpipe` subcommand's flags (CLI11), defined in flags.cpp so that
// main.cpp only builds the App, parses and dispatches: add_commands adds the
// subcommands, each bound to its Args in one CommandArgs.
#pragma once

#include "commands.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace proofpipe::cli {

// Every subcommand's arguments, filled in by CLI::App::parse; main hands the
// one given to its cmd_* function.
struct CommandArgs {
  ProveArgs prove;
  FullproveArgs fullprove;
  VerifyArgs verify;
  ExportVkeyArgs export_vkey;
  SetupDevArgs setup_dev;
  GenArgs gen;
  RunArgs run;
  StatusArgs status;
  DoctorArgs doctor;
  DemoArgs demo;
  ServeArgs serve;
  SubmitArgs submit;
  bool submit_paths = false;  // submit's --paths: SubmitArgs::upload is its negation
  JobsArgs jobs;
  CancelArgs cancel;
};

// Adds the subcommands and their flags to `app`, in the order --help lists
// them, bound to the fields of `args` (which must outlive app.parse).
void add_commands(CLI::App& app, CommandArgs& args);

}  // namespace proofpipe::cli
