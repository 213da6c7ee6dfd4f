// `run --resume` (docs/operations.md, "Resuming a run"): the partitions
// whose proof and public files in --out already exist and are right are
// skipped; right is checked, not trusted: the public file must hold this
// witness's public signals and the proof must verify against this key
// (the built-in verifier). Any other pair, or half of one, is removed and
// the partition proved again.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/ledger.hpp"

namespace proofpipe::engine {

struct ResumeOutcome {
  std::vector<std::string> skipped;                         // stems proved by an earlier run
  std::vector<std::pair<std::string, std::string>> redone;  // stem, why its old files were not kept
  nlohmann::json to_json() const;                           // summary.json's "resume"
};

// Takes the skipped partitions out of `parts` (the rest renumbered from 0)
// and removes the files of those to redo. An error only when a file cannot
// be removed or is not a regular file (a link is removed, never followed).
Result<ResumeOutcome> resume_partitions(const std::filesystem::path& out, std::vector<Partition>& parts,
                                        const PipelineKey& key);

}  // namespace proofpipe::engine
