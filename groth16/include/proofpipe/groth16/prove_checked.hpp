// A proof that is checked before anyone sees it: prove, then the built-in
// verifier, for one witness of a loaded zkey. `proofpipe prove` and the C
// library (libproofpipe) both prove through here, so both refuse the same
// witnesses with the same messages. Also the verifier over snarkjs JSON
// text (the C library's groth16_verify), for either curve.
#pragma once

#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/groth16/verifier.hpp"

namespace proofpipe::groth16 {

// Proves `witness` with `pk` (proving_key_of(zkey)) and verifies the proof
// against `vk` (verification_key_from_zkey(zkey)) before returning it.
// Errors (one line):
//   - check_witness_matches's (kInvalidArgument): a wrong number of values,
//     w[0] not 1;
//   - the backend's;
//   - a proof that does not verify: a key point off its curve names the
//     section and index (kBadFormat, formats::check_zkey_points); otherwise
//     the witness is at fault, kInvalidArgument "witness '<path>': the
//     witness does not satisfy the circuit's constraints (the proof does
//     not verify): <reason>".
// @concurrent: any number of calls at once, each with a backend of its own.
template <class C>
Result<ProofT<C>> prove_checked(ProverBackendT<C>& backend, const formats::ZkeyT<C>& zkey, const ProvingKeyT<C>& pk,
                                const VerificationKeyT<C>& vk, const formats::WitnessT<C>& witness);

// snarkjs's verification_key.json, public.json and proof.json as text; the
// key's "curve" picks the curve. Malformed text, or a proof or key for the
// other curve, is an error (kBadFormat naming which file); a proof that
// fails is a Verdict with valid = false and the reason.
Result<Verdict> verify_json(std::string_view verification_key, std::string_view public_inputs, std::string_view proof);

}  // namespace proofpipe::groth16
