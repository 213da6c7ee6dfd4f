// Fuzz target: snarkjs verification_key.json (formats/proof_json.hpp
// verification_key_from_json). Property: an error Status, or a key that
// survives write -> read (vk_alphabeta_12 included when present).
#include "for_each_curve.hpp"
#include "fuzz_input.hpp"
#include "proofpipe/formats/proof_json.hpp"

using namespace proofpipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::for_each_curve([&]<class C>(C) {
    fuzz::check_json_round_trip(
        data, size, [](std::string_view t) { return formats::verification_key_from_json<C>(t); },
        [](const formats::VerificationKeyT<C>& vk) { return formats::verification_key_to_json(vk); });
  });
  return 0;
}
