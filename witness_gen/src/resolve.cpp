// resolve_generator and list_inputs (resolve.hpp).
#include "proofpipe/witness_gen/resolve.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "proofpipe/common/safe_file.hpp"

namespace proofpipe::witness_gen {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kUsage = "expected wasm:<circuit_js folder or .wasm> or native:<executable>";

// `path` is a regular file (links followed unless `follow_links` is false,
// when a link is refused); `what` names it in the error, which never holds
// anything read from the file.
Status check_regular(const fs::path& path, std::string_view what, bool follow_links = true) {
  struct stat st {};
  if ((follow_links ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    return make_error(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo, "{} '{}': {}", what, path.string(),
                      std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "{} '{}' is a symbolic link: refused (links are not followed)", what,
                      path.string());
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalidArgument, "{} '{}' is a {}, not a regular file", what, path.string(),
                      file_kind(st.st_mode));
  }
  return Status::ok();
}

// node from PATH (Debian also names it nodejs), as an absolute path: the
// workers exec it without a search.
Result<fs::path> find_node() {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const char* name : {"node", "nodejs"}) {
    std::string_view rest = dirs;
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const fs::path dir(std::string(rest.substr(0, colon)));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      if (dir.empty()) continue;
      const fs::path candidate = fs::absolute(dir / name);
      if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate;
    }
  }
  return make_error(ErrorCode::kNotFound,
                    "--witness-gen wasm: needs node (circom's generate_witness.js runs on it); none on PATH");
}

Result<std::vector<std::string>> wasm_generator(const fs::path& given) {
  std::error_code ec;
  fs::path wasm = given;
  if (fs::is_directory(given, ec)) {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(given, ec)) {
      if (e.path().extension() == ".wasm") found.push_back(e.path());
    }
    if (found.size() != 1) {
      return make_error(ErrorCode::kInvalidArgument, "--witness-gen wasm:'{}': the folder holds {} .wasm files, not 1",
                        given.string(), found.size());
    }
    wasm = found[0];
  }
  PP_RETURN_IF_ERROR(check_regular(wasm, "--witness-gen wasm:"));
  wasm = fs::absolute(wasm).lexically_normal();
  // circom writes both scripts beside the .wasm (<circuit>_js/).
  const fs::path script = wasm.parent_path() / "generate_witness.js";
  PP_RETURN_IF_ERROR(check_regular(script, "--witness-gen wasm: needs circom's generate_witness.js:"));
  PP_RETURN_IF_ERROR(check_regular(wasm.parent_path() / "witness_calculator.js",
                                   "--witness-gen wasm: needs circom's witness_calculator.js:"));
  PP_ASSIGN_OR_RETURN(const fs::path node, find_node());
  return std::vector<std::string>{node.string(), script.string(), wasm.string()};
}

}  // namespace

Result<std::vector<std::string>> resolve_generator(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    return make_error(ErrorCode::kInvalidArgument, "--witness-gen '{}': {}", spec, kUsage);
  }
  const std::string_view kind = spec.substr(0, colon);
  const fs::path path(std::string(spec.substr(colon + 1)));
  if (kind == "wasm") return wasm_generator(path);
  if (kind == "native") {
    PP_RETURN_IF_ERROR(check_regular(path, "--witness-gen native:"));
    if (::access(path.c_str(), X_OK) != 0) {
      return make_error(ErrorCode::kInvalidArgument, "--witness-gen native:'{}' is not executable", path.string());
    }
    return std::vector<std::string>{fs::absolute(path).lexically_normal().string()};
  }
  return make_error(ErrorCode::kInvalidArgument, "--witness-gen '{}': unknown kind '{}': {}", spec, kind, kUsage);
}

Result<std::vector<fs::path>> list_inputs(const std::vector<std::string>& inputs) {
  std::vector<fs::path> paths;
  for (const std::string& entry : inputs) {
    std::error_code ec;
    if (!fs::is_directory(entry, ec)) {
      // Inputs are never followed through a link, here or in the worker
      // that reads them (a link to a root-only file would be read as root).
      PP_RETURN_IF_ERROR(check_regular(entry, "--inputs", /*follow_links=*/false));
      paths.emplace_back(entry);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(entry, ec)) {
      if (e.path().extension() == ".json") found.push_back(e.path());
    }
    if (ec) return make_error(ErrorCode::kIo, "--inputs '{}': {}", entry, ec.message());
    if (found.empty()) return make_error(ErrorCode::kInvalidArgument, "--inputs '{}' holds no .json file", entry);
    std::sort(found.begin(), found.end());
    for (const fs::path& p : found) PP_RETURN_IF_ERROR(check_regular(p, "--inputs", /*follow_links=*/false));
    paths.insert(paths.end(), found.begin(), found.end());
  }
  if (paths.empty()) return make_error(ErrorCode::kInvalidArgument, "--inputs: no input files given");
  return paths;
}

}  // namespace proofpipe::witness_gen
