// prove_checked and verify_json (prove_checked.hpp): the prove-then-verify
// rule and the JSON verifier, shared by `proofpipe prove` and libproofpipe.
#include "proofpipe/groth16/prove_checked.hpp"

namespace proofpipe::groth16 {

template <class C>
Result<ProofT<C>> prove_checked(ProverBackendT<C>& backend, const formats::ZkeyT<C>& zkey, const ProvingKeyT<C>& pk,
                                const VerificationKeyT<C>& vk, const formats::WitnessT<C>& witness) {
  PP_RETURN_IF_ERROR(formats::check_witness_matches(zkey, witness));
  const ConstFrSpan<C> w(witness.values);
  PP_ASSIGN_OR_RETURN(ProofT<C> proof, prove(backend, pk, w));
  PP_ASSIGN_OR_RETURN(const Verdict verdict, verify<C>(vk, w.subspan(1, pk.n_public), proof));
  if (verdict.valid) return proof;
  // The loads check only the header's points (every point costs ~0.1 s per
  // million); a failed proof is when the rest are worth checking, so that a
  // corrupt key is not blamed on the witness.
  PP_RETURN_IF_ERROR(formats::check_zkey_points(zkey));
  return make_error(ErrorCode::kInvalidArgument,
                    "witness '{}': the witness does not satisfy the circuit's constraints (the proof does not "
                    "verify): {}",
                    witness.path.string(), verdict.reason);
}

namespace {

template <class C>
Result<Verdict> verify_json_as(std::string_view verification_key, std::string_view public_inputs,
                               std::string_view proof) {
  PP_ASSIGN_OR_RETURN(const VerificationKeyT<C> vk, formats::verification_key_from_json<C>(verification_key));
  // The proof before the public signals: a proof for the other curve then
  // says so ("curve mismatch") rather than that a signal is not below r.
  PP_ASSIGN_OR_RETURN(const ProofT<C> p, formats::proof_from_json<C>(proof));
  PP_ASSIGN_OR_RETURN(const auto pub, formats::public_from_json<C>(public_inputs));
  return verify<C>(vk, pub, p);
}

}  // namespace

Result<Verdict> verify_json(std::string_view verification_key, std::string_view public_inputs, std::string_view proof) {
  PP_ASSIGN_OR_RETURN(const curves::CurveId curve, formats::json_curve(verification_key, "verification key"));
  return curves::with_curve(
      curve, [&](auto c) { return verify_json_as<decltype(c)>(verification_key, public_inputs, proof); });
}

#define PP_PROVE_CHECKED(C)                                                                                        \
  template Result<ProofT<C>> prove_checked<C>(ProverBackendT<C>&, const formats::ZkeyT<C>&, const ProvingKeyT<C>&, \
                                              const VerificationKeyT<C>&, const formats::WitnessT<C>&);
PP_PROVE_CHECKED(curves::Bls12_381)
PP_PROVE_CHECKED(curves::Bn254)
#undef PP_PROVE_CHECKED

}  // namespace proofpipe::groth16
