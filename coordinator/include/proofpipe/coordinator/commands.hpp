// The subcommands of `proofpipe`, each returning the process exit code:
// 0 success, 1 a proof that does not verify (verify only), 2 an error
// (bad input, I/O), with one line on stderr naming the file and the problem.
#pragma once

#include <string>

namespace proofpipe::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitError = 2;

struct ProveArgs {
  std::string zkey, wtns, proof, public_json, backend = "auto";
};
int run_prove(const ProveArgs& args);

struct VerifyArgs {
  std::string vkey, public_json, proof;
};
int run_verify(const VerifyArgs& args);

struct ExportVkeyArgs {
  std::string zkey, vkey;
};
int run_export_vkey(const ExportVkeyArgs& args);

// A Groth16 key with toxic waste known to this process: TESTING ONLY.
struct SetupDevArgs {
  std::string r1cs, zkey;
};
int run_setup_dev(const SetupDevArgs& args);

}  // namespace proofpipe::cli
