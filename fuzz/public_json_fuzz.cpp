// Fuzz target: snarkjs public.json (formats/proof_json.hpp public_from_json).
// Property: an error Status, or inputs that survive write -> read.
#include "for_each_curve.hpp"
#include "fuzz_input.hpp"
#include "proofpipe/formats/proof_json.hpp"

using namespace proofpipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::for_each_curve([&]<class C>(C) {
    fuzz::check_json_round_trip(
        data, size, [](std::string_view t) { return formats::public_from_json<C>(t); },
        [](const std::vector<typename C::Fr>& v) { return formats::public_to_json<C>(v); });
  });
  return 0;
}
