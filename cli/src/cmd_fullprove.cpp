// `proofpipe fullprove <input.json> <circuit.wasm | circuit_js folder |
// native generator> <circuit.zkey> <proof.json> <public.json>`, in
// snarkjs's argument order: the witness is made by the circom generator in
// a child process under a memory cap, with run --inputs's rules for its
// failures (docs/witness-gen.md, "The retry rule"), then proved, verified
// and written by `prove` itself, straight from a memfd (nothing on disk).
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
#include "proofpipe/formats/zkey.hpp"
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
  // The key's curve first: a bad key fails before a generator runs.
  auto key_curve = formats::zkey_curve(args.zkey);
  if (!key_curve) return fail(key_curve.status());
  auto command = witness_gen::resolve_generator(generator_spec(args.generator));
  if (!command) return fail(command.status());
  // The generator's curve and witness size against the key's, before it runs
  // on the input (only the key's header and coefficients are read here).
  auto n_vars = curves::with_curve(*key_curve, [&](auto curve) -> Result<uint32_t> {
    auto zkey = formats::load_zkey<decltype(curve)>(args.zkey, formats::ZkeyLoadOptions{.points = false});
    if (!zkey) return zkey.status();
    return zkey->n_vars();
  });
  if (!n_vars) return fail(n_vars.status());
  const std::string key_what = fmt::format("zkey '{}'", args.zkey);
  if (Status s = witness_gen::check_generator(*command, {curves::curve_name(*key_curve), *n_vars, key_what}); !s) {
    return fail(s);
  }
  auto inputs = witness_gen::list_inputs({args.input});
  if (!inputs) return fail(inputs.status());
  auto cap = parse_size(args.mem_max);
  if (!cap) return fail(cap.status());
  auto fd = engine::generate_witness(ipc::GenerateRequest{*command, (*inputs)[0].string()}, *cap, args.max_attempts,
                                     args.input);
  if (!fd) return fail(fd.status());
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{*fd};

  // The witness's curve against the key's, before anything is proved.
  const std::string wtns = fmt::format("/dev/fd/{}", *fd);
  auto wtns_curve = formats::wtns_curve(wtns);
  if (!wtns_curve) return fail(wtns_curve.status());
  if (*wtns_curve != *key_curve) {
    return fail(fmt::format("generator '{}' makes {} witnesses, zkey '{}' is for {}: nothing proved", args.generator,
                            curves::curve_name(*wtns_curve), args.zkey, curves::curve_name(*key_curve)));
  }
  return cmd_prove(ProveArgs{args.zkey, wtns, args.proof, args.public_json, args.backend});
}

}  // namespace proofpipe::cli
