// Witness intake (intake.hpp): policy checks, the copy into a staging
// directory with the job digest hashed on the way, the key check on the copy,
// and the clean-up of copies no job refers to.
#include "intake.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proofpipe/common/blake2b.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/service/job_json.hpp"       // dump_json
#include "proofpipe/witness_gen/generator.hpp"  // witness_gen::kMaxInputBytes: the largest input a synthesis worker reads

namespace proofpipe::service {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kStagePrefix = "stage-";
constexpr size_t kRandomBytes = 12;  // 24 hex digits: 96 bits, never guessed nor repeated

std::string random_hex(size_t n) {
  std::string raw(n, '\0');
  for (size_t got = 0; got < n;) {
    const ssize_t r = ::getrandom(raw.data() + got, n - got, 0);
    if (r > 0) got += size_t(r);
    // EINTR only: getrandom(2) on the urandom pool does not fail otherwise.
  }
  return to_hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
}

bool is_stage_name(std::string_view s) {
  return s.size() == kStagePrefix.size() + 2 * kRandomBytes && s.starts_with(kStagePrefix) &&
         std::all_of(s.begin() + long(kStagePrefix.size()), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Closes a descriptor on every path out.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// `path` lies strictly below `dir` (both canonical): component by component,
// so /data/w2 is not under /data/w.
bool is_under(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end() && p != path.end();
}

bool under_any(const fs::path& path, const std::vector<fs::path>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(), [&](const fs::path& d) { return is_under(path, d); });
}

// One witness of the request: what the client called it, and its bytes (an
// upload's, or an open file's).
struct Source {
  std::string display;  // the client's path or upload filename, for errors
  std::string name;     // the partition name: the stem
  const std::string* upload = nullptr;
  std::string path;    // a server path, as the client gave it
  bool input = false;  // circom input JSON (upload only), not a .wtns
};

// An input is what circom's generators read: one JSON object. Checked
// without building it (json::accept), so a 256 MiB input costs no tree; a
// valid JSON text that starts with '{' is an object.
Status check_input_json(const Source& src) {
  const std::string& text = *src.upload;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{' || !nlohmann::json::accept(text)) {
    return make_error(ErrorCode::kInvalidArgument, "input '{}' is not a JSON object (circom's input.json)",
                      src.display);
  }
  return Status::ok();
}

// The server file a path names, opened without following a final link, once
// it is known to lie under an --allow-dir (checked again on what was opened:
// a link swapped in between cannot lead outside).
Result<std::pair<std::unique_ptr<Fd>, uint64_t>> open_allowed(const std::string& given, const IntakePolicy& policy) {
  const fs::path p(given);
  if (!p.is_absolute()) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}': a witness path must be absolute", given);
  }
  if (policy.allow_dirs.empty()) {
    return make_error(ErrorCode::kPermissionDenied,
                      "witness '{}': this service takes no witness paths (no --allow-dir); upload the file", given);
  }
  std::vector<fs::path> allowed;
  for (const fs::path& d : policy.allow_dirs) {
    std::error_code ec;
    fs::path c = fs::canonical(d, ec);
    if (!ec) allowed.push_back(std::move(c));
  }
  const auto outside = [&] {
    return make_error(ErrorCode::kPermissionDenied, "witness '{}' is not under any --allow-dir", given);
  };
  std::error_code ec;
  const fs::path canon = fs::canonical(p, ec);
  if (ec) {
    // Said to be missing only where the client may look: the path resolved
    // as far as it exists (links followed), so a path outside every allow
    // dir, directly or through a link, is refused alike whether it exists or not.
    std::error_code weak_ec;
    const fs::path weak = fs::weakly_canonical(p, weak_ec);
    if (!under_any(weak_ec ? p.lexically_normal() : weak, allowed)) return outside();
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
      return make_error(ErrorCode::kNotFound, "witness '{}' does not exist", given);
    }
    if (ec == std::errc::too_many_symbolic_link_levels) {
      return make_error(ErrorCode::kInvalidArgument, "witness '{}': too many levels of links", given);
    }
    return make_error(ErrorCode::kIo, "witness '{}': {}", given, ec.message());
  }
  if (!under_any(canon, allowed)) return outside();
  // NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  auto fd = std::make_unique<Fd>(::open(canon.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd->fd < 0) {
    if (errno == ENOENT) return make_error(ErrorCode::kNotFound, "witness '{}' does not exist", given);
    return make_error(ErrorCode::kIo, "witness '{}': {}", given, std::strerror(errno));
  }
  std::error_code ec2;
  const fs::path opened = fs::read_symlink(fmt::format("/proc/self/fd/{}", fd->fd), ec2);
  if (ec2 || !under_any(opened, allowed)) return outside();
  struct stat st {};
  if (::fstat(fd->fd, &st) != 0) return make_error(ErrorCode::kIo, "witness '{}': {}", given, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}' is a {}, not a regular file", given,
                      file_kind(st.st_mode));
  }
  if (uint64_t(st.st_size) > policy.max_witness_bytes) {
    return make_error(ErrorCode::kResourceExhausted, "witness '{}' is {} bytes, over the limit of {}", given,
                      st.st_size, policy.max_witness_bytes);
  }
  return std::pair(std::move(fd), uint64_t(st.st_size));
}

void hash_u64(Blake2b& h, uint64_t v) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = uint8_t(v >> (8 * i));
  h.update(std::span<const uint8_t>(le, 8));
}

// Length-prefixed, so no two different jobs hash the same bytes.
void hash_field(Blake2b& h, std::string_view s) {
  hash_u64(h, s.size());
  h.update(s);
}

// Copies `size` bytes of `fd` into `out` and the digest.
Status copy_fd(int fd, uint64_t size, const std::string& display, PendingFile& out, Blake2b& h) {
  std::string buf(size_t{1} << 20, '\0');
  for (uint64_t done = 0; done < size;) {
    const ssize_t n = ::read(fd, buf.data(), size_t(std::min<uint64_t>(buf.size(), size - done)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(ErrorCode::kIo, "witness '{}': read: {}", display, std::strerror(errno));
    if (n == 0) {
      return make_error(ErrorCode::kInvalidArgument, "witness '{}' shrank while it was read ({} of {} bytes)", display,
                        done, size);
    }
    const std::string_view chunk(buf.data(), size_t(n));
    h.update(chunk);
    PP_RETURN_IF_ERROR(out.write(chunk));
    done += uint64_t(n);
  }
  return Status::ok();
}

Result<std::vector<Source>> check_request(const SubmitRequest& req, const IntakePolicy& policy) {
  if (!req.paths.empty() && !req.uploads.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "a job takes witness paths or uploaded files, not both");
  }
  if (!req.inputs.empty() && (!req.paths.empty() || !req.uploads.empty())) {
    return make_error(ErrorCode::kInvalidArgument, "a job takes witnesses or inputs, not both");
  }
  const bool inputs = !req.inputs.empty();
  const char* what = inputs ? "input" : "witness";
  const char* whats = inputs ? "inputs" : "witnesses";
  const size_t n = req.paths.size() + req.uploads.size() + req.inputs.size();
  if (n == 0) return make_error(ErrorCode::kInvalidArgument, "a job needs at least one witness or input");
  if (n > policy.max_witnesses) {
    return make_error(ErrorCode::kResourceExhausted, "a job takes at most {} {}, this one has {}", policy.max_witnesses,
                      whats, n);
  }
  // An input is read whole by a synthesis worker: run --inputs' limit too.
  const uint64_t max_bytes =
      inputs ? std::min(policy.max_witness_bytes, witness_gen::kMaxInputBytes) : policy.max_witness_bytes;
  std::vector<Source> out;
  for (const std::string& p : req.paths) {
    // The system calls would read the path only up to its NUL, while the
    // partition would be named after what follows it.
    if (p.find('\0') != std::string::npos)
      return make_error(ErrorCode::kInvalidArgument, "witness path {} has a NUL character",
                        dump_json(nlohmann::json(p)));
    out.push_back({p, fs::path(p).stem().string(), nullptr, p});
  }
  for (const auto* list : {&req.uploads, &req.inputs}) {
    for (const UploadedWitness& u : *list) {
      // Only the last component names it: a client's "../x.wtns" is "x".
      out.push_back({u.filename, fs::path(u.filename).stem().string(), &u.bytes, {}, list == &req.inputs});
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!valid_name(out[i].name)) {
      return make_error(ErrorCode::kInvalidArgument,
                        "{} '{}': its name '{}' must be 1 to 128 of A-Z a-z 0-9 . _ - (not . or ..)", what,
                        out[i].display, out[i].name);
    }
    for (size_t j = 0; j < i; ++j) {
      if (out[j].name == out[i].name) {
        return make_error(ErrorCode::kInvalidArgument, "{} '{}' and '{}' are both named '{}'", whats, out[j].display,
                          out[i].display, out[i].name);
      }
    }
    if (out[i].upload && out[i].upload->size() > max_bytes) {
      return make_error(ErrorCode::kResourceExhausted, "{} '{}' is {} bytes, over the limit of {}", what,
                        out[i].display, out[i].upload->size(), max_bytes);
    }
    if (out[i].input) PP_RETURN_IF_ERROR(check_input_json(out[i]));
  }
  return out;
}

// Makes <root> (0700, if absent; never through a link) and a fresh stage dir in it.
Result<fs::path> make_stage_dir(const fs::path& root) {
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return make_error(ErrorCode::kIo, "witness store '{}': {}", root.string(), std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) {
    return make_error(ErrorCode::kIo, "witness store '{}': {}", root.string(), std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "witness store '{}' is a {}, not a directory", root.string(),
                      file_kind(st.st_mode));
  }
  for (;;) {
    fs::path dir = root / (std::string(kStagePrefix) + random_hex(kRandomBytes));
    if (::mkdir(dir.c_str(), 0700) == 0) return dir;
    if (errno != EEXIST) {
      return make_error(ErrorCode::kIo, "witness store '{}': {}", root.string(), std::strerror(errno));
    }
  }
}

// A full state disk (ENOSPC, EDQUOT) is the service's state, not a fault
// in the request: 503 and Retry-After (docs/api.md), never 500.
Status unavailable_if_disk_full(Status st) {
  if (st.code() != ErrorCode::kIo || !out_of_space(st)) return st;
  return Status(ErrorCode::kUnavailable, "the state disk is full: " + st.message());
}

}  // namespace

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

Result<JobSpec> stage_job(const SubmitRequest& req, std::string_view key_name, const engine::PipelineKey& key,
                          const IntakePolicy& policy) {
  JobSpec spec;
  if (req.id) {
    if (!valid_name(*req.id)) {
      return make_error(ErrorCode::kInvalidArgument, "job id '{}' must be 1 to 128 of A-Z a-z 0-9 . _ - (not . or ..)",
                        *req.id);
    }
    spec.id = *req.id;
  } else {
    spec.id = "job-" + random_hex(kRandomBytes);
  }
  spec.key = std::string(key_name);
  spec.priority = req.priority;
  PP_ASSIGN_OR_RETURN(std::vector<Source> sources, check_request(req, policy));

  std::error_code ec;
  const fs::path root = fs::absolute(policy.witness_root, ec);
  if (ec) return make_error(ErrorCode::kIo, "witness store '{}': {}", policy.witness_root.string(), ec.message());
  auto made = make_stage_dir(root);
  if (!made) return unavailable_if_disk_full(made.status());
  const fs::path dir = *made;
  Blake2b digest;
  // Inputs hash under their own label: never the digest of a witness job.
  digest.update(req.inputs.empty() ? "proofpipe-job-v1" : "proofpipe-job-v1/inputs");
  hash_field(digest, key_name);
  hash_u64(digest, uint64_t(req.priority));
  hash_u64(digest, sources.size());
  auto stage_one = [&](const Source& src) -> Status {
    const fs::path copy = dir / (src.name + std::string(src.input ? kInputSuffix : kWitnessSuffix));
    PP_ASSIGN_OR_RETURN(PendingFile out, PendingFile::create(copy, "witness copy"));
    hash_field(digest, src.name);
    if (src.upload) {
      hash_u64(digest, src.upload->size());
      digest.update(*src.upload);
      PP_RETURN_IF_ERROR(out.write(*src.upload));
    } else {
      PP_ASSIGN_OR_RETURN(auto opened, open_allowed(src.path, policy));
      hash_u64(digest, opened.second);
      PP_RETURN_IF_ERROR(copy_fd(opened.first->fd, opened.second, src.display, out, digest));
    }
    PP_RETURN_IF_ERROR(out.commit());
    if (src.input) {  // checked above; the generator reports what the circuit makes of it
      spec.witnesses.push_back({src.name, copy, /*input=*/true});
      return Status::ok();
    }
    // The check reads the copy; its errors name the client's file instead.
    // In the key's curve: a witness for the other is "curve mismatch".
    Status st = key.check_witness(copy, {});
    if (!st.is_ok()) {
      std::string msg = st.message();
      replace_all(msg, copy.string(), src.display);
      return Status(st.code(), msg);
    }
    spec.witnesses.push_back({src.name, copy});
    return Status::ok();
  };
  for (const Source& src : sources) {
    if (Status st = stage_one(src); !st.is_ok()) {
      fs::remove_all(dir, ec);  // a fresh directory of ours alone: nothing else is in it
      return unavailable_if_disk_full(st);
    }
  }
  spec.digest = digest.final_hex();
  return spec;
}

void discard_staged(const JobSpec& spec) {
  std::set<fs::path> dirs;
  for (const WitnessEntry& w : spec.witnesses) {
    const fs::path dir = w.path.parent_path();
    struct stat st {};
    if (!is_stage_name(dir.filename().string()) || ::lstat(w.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ::unlink(w.path.c_str());
    dirs.insert(dir);
  }
  for (const fs::path& d : dirs) ::rmdir(d.c_str());  // fails, harmlessly, if anything else is there
}

Status sweep_staging(const fs::path& witness_root, const std::set<fs::path>& referenced_dirs) {
  // By the stage directory's name (96 random bits): the same directory even
  // if the root was spelled differently when the journal recorded it.
  std::set<std::string> keep;
  for (const fs::path& d : referenced_dirs) keep.insert(d.filename().string());
  std::error_code ec;
  fs::directory_iterator it(witness_root, ec);
  if (ec == std::errc::no_such_file_or_directory) return Status::ok();
  // increment(ec), not ++: a directory vanishing mid-walk ends it, never throws.
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path dir = it->path();
    const std::string name = dir.filename().string();
    struct stat st {};
    if (!is_stage_name(name) || keep.count(name) || ::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    std::error_code ec2;
    for (fs::directory_iterator f(dir, ec2); !ec2 && f != fs::directory_iterator(); f.increment(ec2)) {
      const std::string fname = f->path().filename().string();
      const bool ours = fname.ends_with(kWitnessSuffix) || fname.find(".wtns.tmp-") != std::string::npos ||
                        fname.ends_with(kInputSuffix) || fname.find(".json.tmp-") != std::string::npos;
      struct stat fst {};
      if (ours && ::lstat(f->path().c_str(), &fst) == 0 && S_ISREG(fst.st_mode)) ::unlink(f->path().c_str());
    }
    ::rmdir(dir.c_str());  // left in place if it holds anything else
  }
  if (ec) return make_error(ErrorCode::kIo, "witness store '{}': {}", witness_root.string(), ec.message());
  return Status::ok();
}

}  // namespace proofpipe::service
