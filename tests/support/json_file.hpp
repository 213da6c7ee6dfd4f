// Reading and writing JSON files in integration tests (parsed comparison of
// our outputs with snarkjs's; tampered copies of fixtures).
#pragma once

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace proofpipe::test {

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// snarkjs's own style: 1-space indentation.
inline void write_json(const std::filesystem::path& p, const nlohmann::json& j) { std::ofstream(p) << j.dump(1); }

}  // namespace proofpipe::test
