// Parses multipart/form-data (http_form.hpp) in one pass over the body:
// find each "--boundary" line, read the part's headers (bounded: they are
// short), and keep the content as a view up to the next delimiter.
#include "http_form.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace proofpipe::service {
namespace {

constexpr size_t kMaxPartHeaderBytes = 4096;

Status malformed(std::string_view why) {
  return Status(ErrorCode::kInvalidArgument, fmt::format("malformed multipart/form-data body: {}", why));
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

// The value of `key` in a header's parameters (name="x"; filename="y.wtns"),
// quoted or not; `found` says whether it was there at all.
std::string param(std::string_view header, std::string_view key, bool* found) {
  *found = false;
  size_t at = 0;
  while ((at = header.find(';', at)) != std::string_view::npos) {
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    if (!starts_with_ci(header.substr(at), key) || header.substr(at + key.size(), 1) != "=") continue;
    at += key.size() + 1;
    *found = true;
    if (at < header.size() && header[at] == '"') {
      const size_t end = header.find('"', at + 1);
      return std::string(header.substr(at + 1, end == std::string_view::npos ? end : end - at - 1));
    }
    const size_t end = header.find(';', at);
    return std::string(header.substr(at, end == std::string_view::npos ? end : end - at));
  }
  return {};
}

}  // namespace

std::string form_boundary(std::string_view content_type) {
  if (!starts_with_ci(content_type, "multipart/form-data")) return {};
  bool found = false;
  return param(content_type, "boundary", &found);
}

Result<std::vector<FormPart>> parse_form(std::string_view body, std::string_view boundary) {
  if (boundary.empty() || boundary.size() > 70) return malformed("no usable boundary in the Content-Type");
  const std::string first = "--" + std::string(boundary);
  const std::string delim = "\r\n" + first;
  size_t at = body.find(first);
  if (at == std::string_view::npos) return malformed("the boundary never appears");
  at += first.size();
  std::vector<FormPart> parts;
  size_t files = 0, fields = 0;
  while (true) {
    if (body.substr(at, 2) == "--") return parts;  // the closing delimiter
    if (body.substr(at, 2) != "\r\n") return malformed("a boundary line does not end in CRLF");
    at += 2;
    const size_t head_end = body.find("\r\n\r\n", at);
    if (head_end == std::string_view::npos || head_end - at > kMaxPartHeaderBytes)
      return malformed("a part's headers do not end");
    FormPart part;
    bool named = false;
    std::string_view head = body.substr(at, head_end - at);
    while (!head.empty()) {
      const size_t eol = head.find("\r\n");
      const std::string_view line = head.substr(0, eol);
      if (starts_with_ci(line, "Content-Disposition:")) {
        if (line.find("form-data") == std::string_view::npos) return malformed("a part is not form-data");
        bool has_file = false;
        part.name = param(line, "name", &named);
        part.filename = param(line, "filename", &has_file);
      }
      if (eol == std::string_view::npos) break;
      head.remove_prefix(eol + 2);
    }
    if (!named) return malformed("a part has no name");
    if (!part.filename.empty() && ++files > kMaxFormFiles)
      return Status(ErrorCode::kResourceExhausted, fmt::format("a form holds at most {} files", kMaxFormFiles));
    if (part.filename.empty() && ++fields > kMaxFormFields)
      return Status(ErrorCode::kInvalidArgument, fmt::format("a form holds at most {} value fields", kMaxFormFields));
    const size_t content = head_end + 4;
    const size_t end = body.find(delim, content);
    if (end == std::string_view::npos) return malformed("a part does not end with the boundary");
    part.content = body.substr(content, end - content);
    parts.push_back(std::move(part));
    at = end + delim.size();
  }
}

}  // namespace proofpipe::service
