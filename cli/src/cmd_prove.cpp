// `proofpipe prove`, `verify` and `export-vkey`: single-process commands over
// snarkjs files (docs/operations.md, "Files proofpipe writes"), for either
// curve: the key's base-field prime (prove, export-vkey) or the vkey's
// "curve" (verify) picks BLS12-381 or BN254, and a file for the other curve
// is one line, exit 2. `prove` verifies its proof before it writes anything,
// as `run` does. Errors: one line on stderr, exit 2.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <spdlog/spdlog.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "proofpipe/backends/factory.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/engine/batch.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prove_checked.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/verifier.hpp"

namespace proofpipe::cli {
namespace {

// The two outputs: each a regular file, a link or new (never a directory,
// FIFO or device), not the same file as each other or as an input. Checked
// before proving, so a bad path fails at once.
Status check_prove_outputs(const ProveArgs& args) {
  if (same_file(args.proof, args.public_json)) {
    return make_error(ErrorCode::kInvalidArgument, "proof '{}' and public '{}' are the same file", args.proof,
                      args.public_json);
  }
  for (const auto& [out, what] : {std::pair{&args.proof, "proof"}, std::pair{&args.public_json, "public"}}) {
    PP_RETURN_IF_ERROR(check_output_target(*out, what));
    for (const std::string* in : {&args.zkey, &args.wtns}) {
      if (same_file(*out, *in)) {
        return make_error(ErrorCode::kInvalidArgument, "{} '{}' is the same file as the input '{}'", what, *out, *in);
      }
    }
  }
  return Status::ok();
}

template <class C>
int prove_as(const ProveArgs& args, groth16::BackendKind kind, std::chrono::steady_clock::time_point t0,
             const MakeWitness& make_witness) {
  std::string notice;
  auto backend = backends::make_backend_for<C>(kind, &notice);
  if (!backend) return fail(backend.status());
  // prove is quiet on success: the fallback to the CPU is a debug line.
  if (!notice.empty()) spdlog::debug("{}", notice);
  // The coefficients' pages leave as they are checked; synthesis faults
  // them back from the page cache (at 2^20, 115 MiB less at the load's peak).
  auto zkey = formats::load_zkey<C>(args.zkey, {.release_coefficients = true});
  if (!zkey) return fail(zkey.status());
  std::string wtns_path = args.wtns;
  if (make_witness) {
    auto made = make_witness(curves::curve_id<C>(), zkey->n_vars());
    if (!made) return fail(made.status());
    wtns_path = *made;
  }
  auto witness = formats::load_wtns<C>(wtns_path);
  if (!witness) return fail(witness.status());

  // The same prove-then-verify as the C library's (groth16/prove_checked.hpp).
  // One proof, then exit: each key section is given back once used, so the
  // peak is the last MSM's, not every section's at once (docs/performance.md).
  groth16::ProvingKeyT<C> pk = groth16::proving_key_of(*zkey);
  pk.done_context = &*zkey;
  pk.done_with = [](void* z, formats::KeyPart s, size_t first, size_t count) {
    auto* key = static_cast<formats::ZkeyT<C>*>(z);
    if (first == 0 && count == SIZE_MAX) {
      key->drop(s);
    } else {
      key->release_range(s, first, count);
    }
  };
  auto proof = groth16::prove_checked<C>(**backend, *zkey, pk, formats::verification_key_from_zkey(*zkey), *witness);
  if (!proof) return fail(proof.status());
  const auto pub = groth16::ConstFrSpan<C>(witness->values).subspan(1, pk.n_public);
  if (Status st = formats::write_proof_and_public<C>(args.proof, *proof, args.public_json, pub); !st) return fail(st);
  spdlog::info("proved curve={} n={} vars={} backend={} s={:.3f}", C::kName, pk.domain_size, pk.n_vars,
               (*backend)->name(), seconds_since(t0));
  return kExitOk;
}

template <class C>
int verify_as(const VerifyArgs& args) {
  auto vk = formats::read_verification_key_json<C>(args.vkey);
  if (!vk) return fail(vk.status());
  // The proof before the public signals: a proof for the other curve then
  // says so ("curve mismatch") rather than that a signal is not below r.
  auto proof = formats::read_proof_json<C>(args.proof);
  if (!proof) return fail(proof.status());
  auto pub = formats::read_public_json<C>(args.public_json);
  if (!pub) return fail(pub.status());
  auto verdict = groth16::verify<C>(*vk, *pub, *proof);
  if (!verdict) return fail(verdict.status());
  if (!verdict->valid) {
    std::printf("INVALID\n");
    std::fprintf(stderr, "proofpipe: %s\n", verdict->reason.c_str());
    return kExitInvalid;
  }
  std::printf("OK\n");
  return kExitOk;
}

template <class C>
int export_vkey_as(const ExportVkeyArgs& args) {
  auto zkey = formats::load_zkey<C>(args.zkey);
  if (!zkey) return fail(zkey.status());
  const auto& h = zkey->header();
  const auto vk = formats::verification_key_from_zkey(*zkey, groth16::alphabeta_of<C>(h.alpha1, h.beta2));
  if (Status st = formats::write_verification_key_json(args.vkey, vk); !st) return fail(st);
  return kExitOk;
}

}  // namespace

int cmd_prove_with(const ProveArgs& args, const MakeWitness& make_witness) {
  const auto t0 = std::chrono::steady_clock::now();
  if (Status st = check_prove_outputs(args); !st) return fail(st);
  auto kind = groth16::parse_backend_kind(args.backend);
  if (!kind) return fail(kind.status());
  auto curve = formats::zkey_curve(args.zkey);
  if (!curve) return fail(curve.status());
  if (Status st = engine::check_backend_curve(*kind, *curve, args.zkey); !st) return fail(st);
  return curves::with_curve(*curve, [&](auto c) { return prove_as<decltype(c)>(args, *kind, t0, make_witness); });
}

int cmd_prove(const ProveArgs& args) { return cmd_prove_with(args, nullptr); }

int cmd_verify(const VerifyArgs& args) {
  // snarkjs's verify takes the vkey JSON too; a zkey handed in its place
  // (its binary magic "zkey") is named as such, with the command that makes
  // the vkey, rather than reported as malformed JSON.
  // Opened without blocking and read only when it is a regular file: a FIFO
  // there is refused below by the JSON reader, never waited on.
  if (const int fd = ::open(args.vkey.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC); fd >= 0) {
    struct stat st {};
    char magic[4] = {};
    const bool zkey = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::read(fd, magic, sizeof magic) == 4 &&
                      std::string_view(magic, sizeof magic) == "zkey";
    ::close(fd);
    if (zkey) {
      return fail(
          fmt::format("verify was given '{}', a proving key (zkey); it takes the verification key JSON: "
                      "`proofpipe export-vkey {} verification_key.json` writes it",
                      args.vkey, args.vkey));
    }
  }
  auto curve = formats::read_json_curve(args.vkey, "verification key");
  if (!curve) return fail(curve.status());
  return curves::with_curve(*curve, [&](auto c) { return verify_as<decltype(c)>(args); });
}

int cmd_export_vkey(const ExportVkeyArgs& args) {
  auto curve = formats::zkey_curve(args.zkey);
  if (!curve) return fail(curve.status());
  return curves::with_curve(*curve, [&](auto c) { return export_vkey_as<decltype(c)>(args); });
}

}  // namespace proofpipe::cli
