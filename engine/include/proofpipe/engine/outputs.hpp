// What a run writes: each committed proof (<out>/<stem>.proof.json and
// .public.json, both or neither), the run directory's run.json (for
// `proofpipe status` and tests that watch a run), and <out>/summary.json at
// the end; all through common/safe_file.hpp (exclusive temporaries, never
// through a link, rename). Also the rules that keep --out agreeing with
// summary.json: old outputs only go with --overwrite, and an --out this run
// created is taken back when it ends in an error (docs/operations.md, "Files
// proofpipe writes").
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/engine.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/shm/ring.hpp"

namespace proofpipe::engine {

// Without --overwrite, refuses an --out that already holds proofpipe outputs
// (summary.json, any *.proof.json or *.public.json); with it, refuses one where
// a name this run writes is not a regular file or link (a directory, a FIFO).
Status check_old_outputs(const std::filesystem::path& out, std::span<const Partition> parts, bool overwrite);

// --overwrite, just before the first proof: removes the names this run
// writes (each partition's pair and summary.json; a link itself, never its
// target), so a partition that fails has no proof from an older run.
Status remove_old_outputs(const std::filesystem::path& out, std::span<const Partition> parts);

// The folders of --out that did not exist when the run started: undo()
// removes them again, deepest first, as long as they are empty (an exit 2
// leaves no empty --out behind).
class CreatedDirs {
 public:
  explicit CreatedDirs(const std::filesystem::path& out);
  void undo() const;

 private:
  std::filesystem::path out_, first_new_;
};

// <out>/<stem>.proof.json and .public.json, in the key's curve.
Status write_partition_outputs(const PipelineKey& key, const std::filesystem::path& out, const std::string& stem,
                               std::string_view proof, std::span<const FrWords> public_signals);

Status write_run_info(const std::filesystem::path& file, pid_t pid, const std::string& ring_prefix,
                      const std::string& endpoint, const shm::Ring& ring, const std::filesystem::path& out);

// summary.json: partitions, proved, failed (with causes), wall time, s/proof,
// ring size, per-seat peak RSS and deaths, backpressure maxima.
// `extra`'s fields are added at the top level (provenance, resume).
Status write_summary(const std::filesystem::path& file, const Ledger& ledger, const RunReport& report,
                     const PipelineConfig& cfg, const nlohmann::json& extra = nlohmann::json::object());

}  // namespace proofpipe::engine
