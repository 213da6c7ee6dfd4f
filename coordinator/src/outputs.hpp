// What a run writes: each committed proof (<out>/<stem>.proof.json and
// .public.json, temp name + rename, so a reader never sees half a file), the
// run directory's run.json (for `proofpipe status` and tests that watch a
// run), and <out>/summary.json at the end.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <sys/types.h>

#include "ledger.hpp"
#include "pipeline.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/shm/ring.hpp"

namespace proofpipe::coord {

Status write_partition_outputs(const std::filesystem::path& out, const std::string& stem, const groth16::Proof& proof,
                               std::span<const ff::Fr> public_signals);

Status write_run_info(const std::filesystem::path& file, pid_t pid, const std::string& ring_prefix,
                      const std::string& endpoint, const shm::Ring& ring, const std::filesystem::path& out);

// summary.json: partitions, proved, failed (with causes), wall time, s/proof,
// ring size, per-seat peak RSS and deaths, backpressure maxima.
Status write_summary(const std::filesystem::path& file, const Ledger& ledger, const RunReport& report,
                     const PipelineConfig& cfg);

}  // namespace proofpipe::coord
