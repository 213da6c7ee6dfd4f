// `run --resume` (resume.hpp).
#include "proofpipe/engine/resume.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace proofpipe::engine {
namespace fs = std::filesystem;
namespace {

enum class Kind { kMissing, kRegular, kOther };

Kind kind_of(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return Kind::kMissing;  // lstat: a link is not followed
  return S_ISREG(st.st_mode) ? Kind::kRegular : Kind::kOther;
}

// Why the pair cannot be kept; empty when it is right.
std::string check_pair(const fs::path& proof_file, const fs::path& public_file, const Partition& p,
                       const PipelineKey& key) {
  const Kind proof_kind = kind_of(proof_file), public_kind = kind_of(public_file);
  if (proof_kind == Kind::kMissing || public_kind == Kind::kMissing) return "missing";
  if (proof_kind != Kind::kRegular || public_kind != Kind::kRegular) return "not a regular file";
  auto pub = key.read_public_json(public_file);
  if (!pub) return pub.status().message();
  if (*pub != p.public_signals) return "its public signals are not this witness's";
  auto verdict = key.verify_proof_file(proof_file, p.public_signals);
  if (!verdict) return verdict.status().message();
  if (!verdict->valid) return "the proof does not verify against this key (" + verdict->reason + ")";
  return {};
}

Status remove_if_there(const fs::path& p) {
  const Kind k = kind_of(p);
  if (k == Kind::kMissing) return Status::ok();
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "--resume: '{}' is a directory, not a proofpipe output", p.string());
  }
  if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
    return make_error(ErrorCode::kIo, "--resume: cannot remove '{}': {}", p.string(), std::strerror(errno));
  }
  return Status::ok();
}

}  // namespace

nlohmann::json ResumeOutcome::to_json() const {
  nlohmann::json redo = nlohmann::json::array();
  for (const auto& [stem, why] : redone) redo.push_back({{"partition", stem}, {"why", why}});
  return {{"skipped", skipped}, {"redone", redo}};
}

Result<ResumeOutcome> resume_partitions(const fs::path& out, std::vector<Partition>& parts, const PipelineKey& key) {
  ResumeOutcome o;
  std::vector<Partition> left;
  for (Partition& p : parts) {
    const fs::path proof_file = out / (p.stem + ".proof.json"), public_file = out / (p.stem + ".public.json");
    const std::string why = check_pair(proof_file, public_file, p, key);
    if (why.empty()) {
      o.skipped.push_back(p.stem);
      continue;
    }
    // Half a pair or a wrong one: neither file may outlive the new attempt.
    if (kind_of(proof_file) != Kind::kMissing || kind_of(public_file) != Kind::kMissing) {
      o.redone.emplace_back(p.stem, why);
    }
    PP_RETURN_IF_ERROR(remove_if_there(proof_file));
    PP_RETURN_IF_ERROR(remove_if_there(public_file));
    p.index = uint32_t(left.size());
    left.push_back(std::move(p));
  }
  parts = std::move(left);
  return o;
}

}  // namespace proofpipe::engine
