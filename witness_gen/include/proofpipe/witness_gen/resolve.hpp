// `run --inputs ... --witness-gen KIND:PATH` before anything starts
// (docs/witness-gen.md): the generator's command line, resolved once to
// absolute paths and checked, and the input JSON files, each a regular file.
// The synthesis workers run the command (proofpipe/witness_gen/generator.hpp)
// with the input and output files appended.
//
//   wasm:<circuit_js dir | circuit.wasm>  -> node <dir>/generate_witness.js <dir>/<circuit>.wasm
//   native:<binary>                        -> <binary>
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::witness_gen {

// Errors are one line naming --witness-gen and the file at fault.
Result<std::vector<std::string>> resolve_generator(std::string_view spec);

// Every entry of --inputs: a file, or a folder whose *.json files are taken
// (sorted by name). Each must be a regular file, not a symbolic link (a FIFO,
// device or link is refused without being opened); none given, or a folder
// with none, is an error.
Result<std::vector<std::filesystem::path>> list_inputs(const std::vector<std::string>& inputs);

}  // namespace proofpipe::witness_gen
