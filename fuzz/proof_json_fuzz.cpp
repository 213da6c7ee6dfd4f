// Fuzz target: snarkjs proof.json (formats/proof_json.hpp proof_from_json).
// Property: an error Status, or a proof that survives write -> read.
#include "for_each_curve.hpp"
#include "fuzz_input.hpp"
#include "proofpipe/formats/proof_json.hpp"

using namespace proofpipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::for_each_curve([&]<class C>(C) {
    fuzz::check_json_round_trip(
        data, size, [](std::string_view t) { return formats::proof_from_json<C>(t); },
        [](const formats::ProofT<C>& p) { return formats::proof_to_json(p); });
  });
  return 0;
}
