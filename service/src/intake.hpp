// Witness intake for `proofpipe serve` (docs/api.md, POST /v1/jobs): a
// submit's witnesses are checked against the policy (names, counts, sizes,
// --allow-dir), copied into the service's own staging directory under
// --state-dir, and checked against the key ON THE COPY, so what was checked is
// what will be proved (the client's file may change or vanish afterwards).
//
//   <witness_root>/stage-<24 hex>/<name>.wtns   (dir 0700; one per job)
//   <witness_root>/stage-<24 hex>/<name>.json   (circom inputs instead: checked
//                                                to be one JSON object, at most
//                                                256 MiB; the witness is
//                                                generated later, docs/witness-gen.md)
//
// Every error is one line naming the client's file (its path, or the upload's
// filename) and what is wrong, and leaves nothing behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string_view>
#include <vector>

#include "proofpipe/engine/key.hpp"
#include "proofpipe/service/core.hpp"
#include "proofpipe/service/job_queue.hpp"

namespace proofpipe::service {

// What a staged copy is called: <name>.wtns, or <name>.json for an input.
inline constexpr std::string_view kWitnessSuffix = ".wtns";
inline constexpr std::string_view kInputSuffix = ".json";

struct IntakePolicy {
  std::filesystem::path witness_root;  // made 0700 if absent; its parent must exist
  // A witness path must lie, once every link is resolved, under one of these
  // (resolved too). None: every path is refused and only uploads are taken.
  std::vector<std::filesystem::path> allow_dirs;
  uint64_t max_witness_bytes = 0;  // per witness file
  size_t max_witnesses = 0;        // per job
};

// Checks the request and stages its witnesses. Errors:
//   kInvalidArgument: a bad id or name (the charset [A-Za-z0-9._-]{1,128},
//     not "." or ".."), two witnesses of one name, none or too many, both
//     paths and uploads (or witnesses and inputs), a relative path, a witness
//     that is not a regular file, an input that is not one JSON object;
//   kPermissionDenied: a path outside every --allow-dir;
//   kNotFound: a path (under an allow dir) that does not exist;
//   kResourceExhausted: a witness over max_witness_bytes (an input: over
//     that or run --inputs' 256 MiB);
//   kBadFormat / kInvalidArgument from formats::check_wtns_for: a witness that
//     does not fit the key (header, curve, length, a value >= r, w[0] != 1).
// The JobSpec's witness paths point at the copies; its digest is BLAKE2b
// over the key name, the priority and every (name, length, bytes) in order
// (a job of inputs under a label of its own).
Result<JobSpec> stage_job(const SubmitRequest& req, std::string_view key_name, const engine::PipelineKey& key,
                          const IntakePolicy& policy);

// Removes a spec's copies and their staging directory (only the files named in
// the spec; the directory only if that empties it): for a submit answered
// kExisting or kConflict, or one whose journal write failed.
void discard_staged(const JobSpec& spec);

// At service start: removes every staging directory under `witness_root`
// that no journal entry refers to (a crash between staging and the journal's
// commit). Only names stage_job makes are touched, and in them only *.wtns
// and *.json files and PendingFile's temporaries of them; a directory holding anything
// else is left. `referenced_dirs`: SqliteJournal::witness_dirs().
Status sweep_staging(const std::filesystem::path& witness_root, const std::set<std::filesystem::path>& referenced_dirs);

// Every `from` in `s` becomes `to`: an error about a staged copy names the
// client's file instead (the service's own paths are not the client's business).
void replace_all(std::string& s, const std::string& from, const std::string& to);

// [A-Za-z0-9._-]{1,128}, not "." or "..": job ids and partition names.
bool valid_name(std::string_view name);

}  // namespace proofpipe::service
