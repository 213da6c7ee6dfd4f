// `proofpipe gen --constraints N --partitions P --out DIR [--curve C]`: a
// synthetic workload (groth16/synthetic.hpp) for benchmarks, over BLS12-381
// (default) or BN254 (--curve bn128): circuit.r1cs, a TESTING ONLY dev key
// circuit.zkey, verification_key.json, and P different satisfying
// witnesses w00.wtns ... Errors: one line, exit 2.
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "dev_key.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/synthetic.hpp"
#include "proofpipe/groth16/verifier.hpp"

namespace proofpipe::cli {
namespace {

template <class C>
int gen_as(const GenArgs& args) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(args.out, ec);
  if (ec) return fail(make_error(ErrorCode::kIo, "--out '{}': {}", args.out, ec.message()));
  const auto t0 = std::chrono::steady_clock::now();
  groth16::SyntheticSpec spec;
  spec.constraints = args.constraints;
  spec.seed = args.seed;
  auto circuit = groth16::make_synthetic_circuit<C>(spec);
  if (!circuit) return fail(circuit.status());
  const fs::path dir = args.out;
  circuit->r1cs.path = dir / "circuit.r1cs";
  if (Status st = formats::write_r1cs(circuit->r1cs.path, circuit->r1cs); !st) return fail(st);
  std::fprintf(stderr, "proofpipe: gen: %u constraints, %u wires, %zu A/B/C terms (%.2f s)\n", spec.constraints,
               circuit->r1cs.header.n_wires, circuit->r1cs.a.nnz() + circuit->r1cs.b.nnz() + circuit->r1cs.c.nnz(),
               seconds_since(t0));

  const std::string zkey = (dir / "circuit.zkey").string();
  auto log_n = write_dev_key(circuit->r1cs, zkey);
  if (!log_n) return fail(log_n.status());
  auto key = formats::load_zkey<C>(zkey, {.points = false});  // for the vkey
  if (!key) return fail(key.status());
  const auto& h = key->header();
  const auto vk = formats::verification_key_from_zkey(*key, groth16::alphabeta_of<C>(h.alpha1, h.beta2));
  if (Status st = formats::write_verification_key_json(dir / "verification_key.json", vk); !st) return fail(st);
  std::fprintf(stderr, "proofpipe: gen: dev key, domain 2^%u (%.2f s)\n", *log_n, seconds_since(t0));

  const int digits = std::max(2, int(std::to_string(args.partitions - 1).size()));
  for (unsigned p = 0; p < args.partitions; ++p) {
    const auto w = groth16::synthetic_witness(*circuit, spec, p);
    const fs::path file = dir / fmt::format("w{:0{}}.wtns", p, digits);
    if (Status st = formats::write_wtns<C>(file, w); !st) return fail(st);
  }
  std::fprintf(stderr, "proofpipe: gen: wrote %u witnesses into %s (%.2f s in all)\n", args.partitions,
               args.out.c_str(), seconds_since(t0));
  return kExitOk;
}

}  // namespace

int cmd_gen(const GenArgs& args) {
  if (args.partitions < 1) return fail(make_error(ErrorCode::kInvalidArgument, "--partitions must be at least 1"));
  if (args.curve == curves::Bn254::kName) return gen_as<curves::Bn254>(args);
  if (args.curve == curves::Bls12_381::kName) return gen_as<curves::Bls12_381>(args);
  return fail(make_error(ErrorCode::kInvalidArgument, "--curve '{}': expected bls12381 or bn128", args.curve));
}

}  // namespace proofpipe::cli
