// `proofpipe setup-dev <circuit.r1cs> <out.zkey>`: a Groth16 key from random
// toxic waste that this process knows and then discards (groth16/dev_setup.hpp).
// For tests and benchmarks only; says so loudly on stderr. Errors: one line,
// exit 2.
#include <chrono>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "dev_key.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/zkey_writer.hpp"
#include "proofpipe/groth16/dev_setup.hpp"

namespace proofpipe::cli {
namespace {

void warn_testing_only(const std::string& zkey) {
  std::fprintf(stderr,
               "proofpipe: ****************************************************************\n"
               "proofpipe: WARNING: setup-dev makes a proving key for TESTING ONLY.\n"
               "proofpipe: Its toxic waste (tau, alpha, beta, delta) was generated inside\n"
               "proofpipe: this process and then discarded, but anyone who learned it could\n"
               "proofpipe: forge proofs. Never use '%s' for anything of value;\n"
               "proofpipe: use a real ceremony (ptau + snarkjs groth16 setup + contributions).\n"
               "proofpipe: ****************************************************************\n",
               zkey.c_str());
}

}  // namespace

// Declared in dev_key.hpp.
template <class C>
Result<unsigned> write_dev_key(const formats::R1csT<C>& r1cs, const std::string& zkey) {
  warn_testing_only(zkey);
  auto log_n = groth16::dev_setup_log2_domain(r1cs.header);
  if (!log_n) return Status(log_n.status().code(), "r1cs '" + r1cs.path.string() + "': " + log_n.status().message());
  PP_ASSIGN_OR_RETURN(auto secrets, groth16::random_toxic_waste<C>(uint32_t(1) << *log_n));
  auto key = groth16::dev_setup(r1cs, secrets);
  secrets.wipe();
  if (!key) return key.status();
  PP_RETURN_IF_ERROR(formats::write_zkey(zkey, key->parts()));
  return *log_n;
}

template Result<unsigned> write_dev_key(const formats::R1csT<curves::Bls12_381>&, const std::string&);
template Result<unsigned> write_dev_key(const formats::R1csT<curves::Bn254>&, const std::string&);

namespace {

template <class C>
int setup_dev_as(const SetupDevArgs& args, std::chrono::steady_clock::time_point t0) {
  auto r1cs = formats::load_r1cs<C>(args.r1cs);
  if (!r1cs) return fail(r1cs.status());
  auto log_n = write_dev_key(*r1cs, args.zkey);
  if (!log_n) return fail(log_n.status());
  const double secs = seconds_since(t0);
  std::fprintf(
      stderr, "proofpipe: setup-dev wrote '%s' (TESTING ONLY): curve %s, domain 2^%u, %u wires, %u public, %.2f s\n",
      args.zkey.c_str(), std::string(C::kName).c_str(), *log_n, r1cs->header.n_wires, r1cs->header.n_public(), secs);
  return kExitOk;
}

}  // namespace

// The curve is the r1cs's (circom's --prime bls12381 or bn128).
int cmd_setup_dev(const SetupDevArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  auto curve = formats::r1cs_curve(args.r1cs);
  if (!curve) return fail(curve.status());
  return curves::with_curve(*curve, [&](auto c) { return setup_dev_as<decltype(c)>(args, t0); });
}

}  // namespace proofpipe::cli
