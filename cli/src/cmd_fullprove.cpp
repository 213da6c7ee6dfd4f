// `proofpipe fullprove <input.json> <circuit.wasm | circuit_js folder |
// native generator> <circuit.zkey> <proof.json> <public.json>`, in
// snarkjs's argument order: the witness is made by the circom generator in
// a child process under a memory cap, with run --inputs's rules for its
// failures (docs/witness-gen.md, "The retry rule"), then proved, verified
// and written by `prove` itself, straight from a memfd (nothing on disk),
// with the key `prove` loaded before the generator ran (read once).
//
// The capped child and the retry rule: engine/witness.hpp.
//
// A generator that fails on the input by itself (exit code, its own abort)
// fails at once; one killed, crashed or out of memory is tried again, up to
// --max-attempts. A witness for the other curve than the key's is refused
// (exit 2) before anything is proved.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/witness.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/witness_gen/check.hpp"
#include "proofpipe/witness_gen/resolve.hpp"

namespace proofpipe::cli {
namespace {

namespace fs = std::filesystem;

// The generator argument as run's --witness-gen spec: a folder or a .wasm
// is circom's WebAssembly generator, anything else a native executable.
std::string generator_spec(const std::string& arg) {
  std::error_code ec;
  if (fs::is_directory(arg, ec) || arg.ends_with(".wasm")) return "wasm:" + arg;
  return "native:" + arg;
}

}  // namespace

int cmd_fullprove(const FullproveArgs& args) {
  // The witness lives in a memfd, open until the proof is written.
  struct FdCloser {
    int fd = -1;
    ~FdCloser() {
      if (fd >= 0) ::close(fd);
    }
  } witness_fd;
  // prove's own path, with the key loaded once: its outputs and backend are
  // checked first (the input in the witness's place, so an output naming the
  // input is refused), then the key; the generator runs only after both.
  const ProveArgs prove{args.zkey, args.input, args.proof, args.public_json, args.backend};
  return cmd_prove_with(prove, [&](curves::CurveId key_curve, uint32_t n_vars) -> Result<std::string> {
    PP_ASSIGN_OR_RETURN(const auto command, witness_gen::resolve_generator(generator_spec(args.generator)));
    // The generator's curve and witness size against the key's, before it
    // runs on the input.
    const std::string key_what = fmt::format("zkey '{}'", args.zkey);
    PP_RETURN_IF_ERROR(witness_gen::check_generator(command, {curves::curve_name(key_curve), n_vars, key_what}));
    PP_ASSIGN_OR_RETURN(const auto inputs, witness_gen::list_inputs({args.input}));
    PP_ASSIGN_OR_RETURN(const uint64_t cap, parse_size(args.mem_max));
    PP_ASSIGN_OR_RETURN(witness_fd.fd, engine::generate_witness(ipc::GenerateRequest{command, inputs[0].string()}, cap,
                                                                args.max_attempts, args.input));
    // The witness's curve against the key's, before anything is proved.
    const std::string wtns = fmt::format("/dev/fd/{}", witness_fd.fd);
    PP_ASSIGN_OR_RETURN(const curves::CurveId wtns_curve, formats::wtns_curve(wtns));
    if (wtns_curve != key_curve) {
      return make_error(ErrorCode::kInvalidArgument,
                        "generator '{}' makes {} witnesses, zkey '{}' is for {}: nothing proved", args.generator,
                        curves::curve_name(wtns_curve), args.zkey, curves::curve_name(key_curve));
    }
    return wtns;
  });
}

}  // namespace proofpipe::cli
