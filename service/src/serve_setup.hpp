// What `proofpipe serve` checks and takes before it starts (docs/service.md):
// the keys (--key NAME=PATH), the token file, the --allow-dir folders, and
// the state directory (owner-only, one service at a time). Each failure is
// one line naming the flag or file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "service.hpp"

namespace proofpipe::service {

// Every --key NAME=PATH.zkey: names [A-Za-z0-9._-]{1,64}, unique; each key
// header and coefficient checked, mapped for the service's life.
Result<std::vector<ServiceKey>> load_keys(const std::vector<std::string>& specs);

// Every --witness-gen NAME=KIND:PATH (KIND:PATH as `run --witness-gen`,
// docs/witness-gen.md) resolved and checked now, onto the key NAME: that
// key's jobs may then give circom inputs instead of witnesses. The operator
// names the generator; a request never does (the workers run it as the
// service's user). An unknown NAME, a key given two, or a generator that
// fails its checks is one line naming the flag.
Status attach_generators(std::vector<ServiceKey>& keys, const std::vector<std::string>& specs);

// Each --allow-dir, canonical (links resolved), and a directory.
Result<std::vector<std::filesystem::path>> check_allow_dirs(const std::vector<std::string>& dirs);

// The state directory, held for the service's life: created 0700 (or an
// existing directory of ours that no one else can read), with witnesses/
// and proofs/ in it, and an exclusive lock (a second `serve` on it is one
// line naming the pid that holds it).
// A kill -9 in the middle of storing a proof leaves its temporary file
// ("<name>.proof.json.tmp-XXXXXX", common/safe_file.hpp) in proofs/<job>/;
// the partition is proved again, so those files are removed at start. Only
// regular files of that form are touched, and no link is followed.
Status sweep_proof_temps(const std::filesystem::path& proofs_dir);

// A journal.db that is missing or empty (0 bytes, no -wal beside
// it) where witnesses/ or proofs/ hold anything means the journal of those
// jobs is lost (deleted, truncated, a restore that missed it). Starting on
// an empty journal would answer 404 for every acknowledged job and sweep
// their witness copies as nobody's, so it is refused: one line naming the
// folders and what to do. A fresh state directory (both folders empty)
// passes.
Status check_journal_not_lost(const std::filesystem::path& state_dir);

class StateDir {
 public:
  static Result<StateDir> take(const std::filesystem::path& dir);
  StateDir(StateDir&& other) noexcept;
  StateDir& operator=(StateDir&&) = delete;
  ~StateDir();
  const std::filesystem::path& path() const { return dir_; }

 private:
  StateDir(std::filesystem::path dir, int lock_fd) : dir_(std::move(dir)), lock_fd_(lock_fd) {}
  std::filesystem::path dir_;
  int lock_fd_ = -1;
};

}  // namespace proofpipe::service
