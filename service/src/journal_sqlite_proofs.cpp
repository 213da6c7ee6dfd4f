// The SQLite journal's proof store (journal_sqlite.hpp): a done partition's
// proof and public inputs as two files under the state directory,
//
//   <state>/proofs/<job id>/<name>.proof.json
//   <state>/proofs/<job id>/<name>.public.json
//
// written both or neither (common/safe_file.hpp: exclusive temporaries,
// fsync, rename, never through a link) before the partition's done mark,
// and read back for GET /v1/jobs/<id>/proofs/<name>. Also the removal of
// an ended job's witness copies.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "intake.hpp"
#include "journal_sqlite.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "sqlite_db.hpp"

namespace proofpipe::service {
namespace {

namespace fs = std::filesystem;

// A stored proof is a few KB; far more is not one of ours.
constexpr uint64_t kMaxStoredJson = 64ull << 20;

// `dir` made (0700) if missing, and a directory of its own (not a link).
Status own_dir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error(ErrorCode::kIo, "cannot create '{}': {}", dir.string(), std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return make_error(ErrorCode::kIo, "'{}' is not a directory", dir.string());
  return Status::ok();
}

}  // namespace

Status SqliteJournal::store_proof(const Claim& c, const ProofFiles& proof) {
  std::string job_id, name;
  {
    std::lock_guard lock(mu_);
    PP_ASSIGN_OR_RETURN(PartState p, part_state(c.job_seq, c.index));
    job_id = p.job_id;
    name = p.name;
  }
  PP_RETURN_IF_ERROR(own_dir(proofs_dir_));
  const fs::path dir = proofs_dir_ / job_id;
  PP_RETURN_IF_ERROR(own_dir(dir));
  // public.json first: if the proof's rename fails, the public file is
  // taken back, so neither is ever on disk without the other.
  const TextFile files[] = {{dir / (name + ".public.json"), proof.public_json, "public inputs"},
                            {dir / (name + ".proof.json"), proof.proof_json, "proof"}};
  PP_RETURN_IF_ERROR(write_together(files));
  proof_bytes_ += proof.public_json.size() + proof.proof_json.size();
  return Status::ok();
}

Result<std::optional<ProofFiles>> SqliteJournal::read_proof(std::string_view job_id, std::string_view name) {
  PP_ASSIGN_OR_RETURN(std::optional<Job> job, get(job_id));
  if (!job) return std::optional<ProofFiles>();
  for (const PartitionInfo& p : job->partitions) {
    if (p.name != name || p.status != PartStatus::kDone) continue;
    const fs::path dir = proofs_dir_ / job->id;
    // Ours, but read as root: never through a link, only a regular file.
    PP_ASSIGN_OR_RETURN(std::string proof, read_regular_file(dir / (p.name + ".proof.json"), kMaxStoredJson,
                                                             "stored proof", /*follow_links=*/false));
    PP_ASSIGN_OR_RETURN(std::string pub, read_regular_file(dir / (p.name + ".public.json"), kMaxStoredJson,
                                                           "stored public inputs", /*follow_links=*/false));
    return std::optional<ProofFiles>(ProofFiles{std::move(proof), std::move(pub)});
  }
  return std::optional<ProofFiles>();
}

void SqliteJournal::forget_witnesses(std::string_view job_id) {
  auto job = get(job_id);
  if (!job || !*job) return;
  if ((*job)->state != JobState::kDone && (*job)->state != JobState::kFailed && (*job)->state != JobState::kCancelled)
    return;
  JobSpec spec;
  spec.id = std::string(job_id);
  for (const PartitionInfo& p : (*job)->partitions) spec.witnesses.push_back({p.name, p.witness});
  discard_staged(spec);
}

}  // namespace proofpipe::service
