// Provenance of a run for summary.json (docs/operations.md, "summary.json"):
// what made these proofs, from what, where and when: proofpipe's version
// (git describe at build time), the command line, start and end times (ISO
// 8601, UTC), the host, the key (path, size, BLAKE2b-256 of the file), the
// curve, every witness and the outputs.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofpipe/common/status.hpp"

namespace proofpipe::engine {

// "0.1.0 (git e42d69b)" or "0.1.0 (unknown)": `--version` and summary.json.
std::string version_string();

// BLAKE2b-256 of a file, in hex (1.5 s/GiB: started when the run starts,
// on its own thread, so a big key costs no wall time).
Result<std::string> blake2b_file(const std::filesystem::path& file);

class Provenance {
 public:
  // Starts hashing the key at once. `curve`: the key's ("bls12381", "bn128").
  Provenance(std::filesystem::path zkey, std::string curve, std::vector<std::filesystem::path> witnesses,
             std::filesystem::path out);
  // The "provenance" object, with the end time now; `proofs` are the stems written.
  nlohmann::json finish(const std::vector<std::string>& proved_stems);

 private:
  std::filesystem::path zkey_, out_;
  std::string curve_;
  std::vector<std::filesystem::path> witnesses_;
  std::chrono::system_clock::time_point started_;
  std::future<Result<std::string>> hash_;
};

}  // namespace proofpipe::engine
