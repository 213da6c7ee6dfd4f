// A generator checked against the proving key before anything is proved
// (docs/witness-gen.md, "Checked before anything starts"): circom's wasm
// reports its field's prime and its witness size through exported functions
// (getFieldNumLen32, getRawPrime + readSharedRWMemory, getWitnessSize, read
// the way circom's witness_calculator.js reads them). A generator for the
// other curve, or of another circuit, is refused with one line naming both,
// instead of failing per partition (or worse, after a generation) later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::witness_gen {

// What the key expects of every witness.
struct KeyExpectation {
  std::string_view curve;  // snarkjs's name: "bn128" or "bls12381"
  uint32_t n_vars = 0;     // the zkey's nVars: values in a witness
  std::string_view what;   // names the key in errors: "zkey 'c.zkey'", "key 'main'"
};

// What a wasm generator says about its circuit.
struct WasmFacts {
  uint32_t field_words = 0;  // getFieldNumLen32: 32-bit words per field element
  std::string prime_hex;     // getRawPrime, lower-case hex without 0x
  uint32_t witness_size = 0;
};

// The snarkjs curve name whose scalar field has this prime (lower-case hex),
// or empty for neither curve.
std::string_view curve_of_prime(std::string_view prime_hex);

// Reads a wasm's facts: its magic checked here, then the module instantiated
// by `node` (the same node the generator runs on) with inert imports, calling
// only the three reporting functions; no input is read and no witness made.
// kInvalidArgument naming the file for a file that is not WebAssembly or
// exports none of them (not circom's); kIo if node fails or takes over 30 s.
Result<WasmFacts> probe_wasm(const std::string& node, const std::string& wasm);

// `command` as resolve_generator made it. A wasm generator is probed and its
// prime and witness size compared with the key's: a mismatch is one
// kInvalidArgument line naming the generator and the key. A native
// generator's checks are resolve_generator's (it exists and is executable):
// it compiles its prime and sizes in and reports them only by running.
Status check_generator(const std::vector<std::string>& command, const KeyExpectation& key);

}  // namespace proofpipe::witness_gen
