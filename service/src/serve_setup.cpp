// serve's start-up checks (serve_setup.hpp).
#include "serve_setup.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/engine/batch.hpp"
#include "proofpipe/ipc/partition_layout.hpp"
#include "proofpipe/witness_gen/check.hpp"
#include "proofpipe/witness_gen/resolve.hpp"

namespace proofpipe::service {
namespace {

// A partition's key index travels in one byte (ipc::MsgHeader::key); 64
// keys is far more than one host's memory holds at once.
constexpr size_t kMaxKeys = 64;

bool good_name(std::string_view s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  }
  return true;
}

// A directory we made or own, not a link, that no one else can read.
Status check_private_dir(const std::filesystem::path& dir, const char* what) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return make_error(ErrorCode::kIo, "{} '{}': {}", what, dir.string(), std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return make_error(ErrorCode::kInvalidArgument, "{} '{}' is a {}, not a directory", what, dir.string(),
                      file_kind(st.st_mode));
  if (st.st_uid != ::geteuid())
    return make_error(ErrorCode::kInvalidArgument, "{} '{}' belongs to uid {}, not to this user ({})", what,
                      dir.string(), st.st_uid, ::geteuid());
  if ((st.st_mode & 077) != 0)
    return make_error(ErrorCode::kInvalidArgument,
                      "{} '{}' can be read by others (mode {:04o}): it holds witnesses and proofs; chmod 700 it", what,
                      dir.string(), st.st_mode & 07777);
  return Status::ok();
}

Status make_private_dir(const std::filesystem::path& dir, const char* what) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error(ErrorCode::kIo, "{} '{}': cannot create: {}", what, dir.string(), std::strerror(errno));
  return check_private_dir(dir, what);
}

}  // namespace

Result<std::vector<ServiceKey>> load_keys(const std::vector<std::string>& specs) {
  if (specs.empty()) return make_error(ErrorCode::kInvalidArgument, "give at least one --key NAME=PATH.zkey");
  if (specs.size() > kMaxKeys)
    return make_error(ErrorCode::kInvalidArgument, "{} --key flags: at most {}", specs.size(), kMaxKeys);
  std::vector<ServiceKey> keys;
  std::set<std::string> names;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq + 1 == spec.size())
      return make_error(ErrorCode::kInvalidArgument, "--key '{}': expected NAME=PATH.zkey", spec);
    const std::string name = spec.substr(0, eq);
    const std::filesystem::path path = spec.substr(eq + 1);
    if (!good_name(name, 64))
      return make_error(ErrorCode::kInvalidArgument, "--key '{}': a name is 1-64 of A-Z a-z 0-9 . _ -", spec);
    if (!names.insert(name).second)
      return make_error(ErrorCode::kInvalidArgument, "--key '{}': the name '{}' is given twice", spec, name);
    ServiceKey k;
    // Keys of either curve, mixed: each worker holds one worker object per
    // curve and routes by key (docs/curves.md).
    PP_ASSIGN_OR_RETURN(k.key, engine::load_pipeline_key(path));
    const engine::PipelineKey& key = *k.key;
    k.info.name = name;
    k.info.path = std::filesystem::absolute(path).string();
    k.info.curve = std::string(key.curve_name());
    k.info.constraints = key.constraints();
    k.info.n_vars = key.n_vars();
    k.info.n_public = key.n_public();
    k.info.domain_size = key.domain_size();
    std::error_code ec;
    k.info.file_bytes = std::filesystem::file_size(path, ec);
    k.info.slot_bytes = ipc::PartitionLayout{key.domain_size(), key.n_vars()}.payload_len();
    k.sizes = key.sizes();
    keys.push_back(std::move(k));
  }
  return keys;
}

Status attach_generators(std::vector<ServiceKey>& keys, const std::vector<std::string>& specs) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(
          ErrorCode::kInvalidArgument,
          "--witness-gen '{}': expected NAME=wasm:<circuit_js folder or .wasm> or NAME=native:<executable>", spec);
    const std::string name = spec.substr(0, eq);
    auto key = std::find_if(keys.begin(), keys.end(), [&](const ServiceKey& k) { return k.info.name == name; });
    if (key == keys.end())
      return make_error(ErrorCode::kInvalidArgument, "--witness-gen '{}': no --key is named '{}'", spec, name);
    if (!key->generator.empty())
      return make_error(ErrorCode::kInvalidArgument, "--witness-gen '{}': key '{}' has a generator already", spec,
                        name);
    auto command = witness_gen::resolve_generator(spec.substr(eq + 1));
    if (!command) return Status(command.status().code(), fmt::format("key '{}': {}", name, command.status().message()));
    // Its curve and witness size against the key's, before serving: a wrong
    // generator would fail every input job of this key.
    const std::string key_what = fmt::format("key '{}' ({})", name, key->info.path);
    PP_RETURN_IF_ERROR(witness_gen::check_generator(*command, {key->key->curve_name(), key->key->n_vars(), key_what}));
    key->generator = std::move(*command);
    key->info.inputs = true;
  }
  return Status::ok();
}

Result<std::vector<std::filesystem::path>> check_allow_dirs(const std::vector<std::string>& dirs) {
  std::vector<std::filesystem::path> out;
  for (const std::string& d : dirs) {
    std::error_code ec;
    const auto canonical = std::filesystem::canonical(d, ec);
    if (ec) return make_error(ErrorCode::kInvalidArgument, "--allow-dir '{}': {}", d, ec.message());
    if (!std::filesystem::is_directory(canonical, ec))
      return make_error(ErrorCode::kInvalidArgument, "--allow-dir '{}' is not a directory", d);
    out.push_back(canonical);
  }
  return out;
}

Result<StateDir> StateDir::take(const std::filesystem::path& given) {
  if (given.empty()) return make_error(ErrorCode::kInvalidArgument, "--state-dir is empty");
  std::error_code ec;
  if (given.has_parent_path()) std::filesystem::create_directories(given.parent_path(), ec);
  PP_RETURN_IF_ERROR(make_private_dir(given, "--state-dir"));
  // Held by its real path from here on: a parent reached through a link is
  // the operator's layout, and SQLite's no-follow open refuses a link in any
  // component (the folder itself was checked above not to be one).
  const std::filesystem::path dir = std::filesystem::canonical(given, ec);
  if (ec) return make_error(ErrorCode::kIo, "--state-dir '{}': {}", given.string(), ec.message());
  const std::filesystem::path lock = dir / "lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return make_error(ErrorCode::kIo, "'{}': {}", lock.string(), std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidArgument, "'{}' is not a regular file", lock.string());
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    (void)!::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    return make_error(ErrorCode::kUnavailable, "another proofpipe serve (pid {}) uses --state-dir '{}'",
                      std::string(pid).substr(0, std::string(pid).find('\n')), given.string());
  }
  const std::string me = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != ssize_t(me.size())) {
    ::close(fd);
    return make_error(ErrorCode::kIo, "'{}': {}", lock.string(), std::strerror(errno));
  }
  StateDir taken(dir, fd);
  PP_RETURN_IF_ERROR(make_private_dir(dir / "witnesses", "state dir folder"));
  PP_RETURN_IF_ERROR(make_private_dir(dir / "proofs", "state dir folder"));
  return taken;
}

Status sweep_proof_temps(const std::filesystem::path& proofs_dir) {
  std::error_code ec;
  for (const auto& job : std::filesystem::directory_iterator(proofs_dir, ec)) {
    if (!job.is_directory(ec) || job.is_symlink(ec)) continue;
    for (const auto& f : std::filesystem::directory_iterator(job.path(), ec)) {
      const std::string name = f.path().filename().string();
      if (!f.is_regular_file(ec) || f.is_symlink(ec) || name.find(".json.tmp-") == std::string::npos) continue;
      if (::unlink(f.path().c_str()) != 0 && errno != ENOENT)
        return make_error(ErrorCode::kIo, "cannot remove '{}': {}", f.path().string(), std::strerror(errno));
    }
  }
  if (ec) return make_error(ErrorCode::kIo, "'{}': {}", proofs_dir.string(), ec.message());
  return Status::ok();
}

Status check_journal_not_lost(const std::filesystem::path& state_dir) {
  const auto bytes = [](const std::filesystem::path& p) -> int64_t {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? int64_t(st.st_size) : -1;
  };
  const std::filesystem::path journal = state_dir / "journal.db";
  const int64_t size = bytes(journal);
  // A journal whose first transaction is still only in its write-ahead log
  // (killed before a checkpoint) may be 0 bytes with a live -wal beside it.
  if (size > 0 || bytes(journal.string() + "-wal") > 0) return Status::ok();
  for (const char* folder : {"witnesses", "proofs"}) {
    std::error_code ec;
    const std::filesystem::path dir = state_dir / folder;
    const bool used = std::filesystem::directory_iterator(dir, ec) != std::filesystem::directory_iterator();
    if (ec || !used) continue;
    return make_error(ErrorCode::kBadFormat,
                      "--state-dir '{}': journal.db is {} but {}/ is not empty: the journal of those jobs is lost; "
                      "restore journal.db from a backup, or move {}/ aside to start an empty service (nothing was "
                      "changed)",
                      state_dir.string(), size < 0 ? "missing" : "empty", folder,
                      std::string(folder) == "witnesses" ? "witnesses/ and proofs/" : "proofs/");
  }
  return Status::ok();
}

StateDir::StateDir(StateDir&& other) noexcept : dir_(std::move(other.dir_)), lock_fd_(other.lock_fd_) {
  other.lock_fd_ = -1;
}

StateDir::~StateDir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // the lock goes with the descriptor; the file stays (it is ours)
}

}  // namespace proofpipe::service
