// multipart/form-data bodies (RFC 7578) for POST /v1/jobs: the parts of a
// body already in memory, each part's content a view into it, so a form
// costs its body once plus the views. Strict: a part without a
// Content-Disposition name, or a body without its closing boundary, is an
// error; more than kMaxFormFiles file parts (or kMaxFormFields value
// fields) is refused while parsing, before the rest is looked at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe::service {

// The documented cap on files in one form (docs/api.md).
inline constexpr size_t kMaxFormFiles = 1024;
// id, key and priority are the only fields; a few more are let through to
// be named in the "unknown field" error.
inline constexpr size_t kMaxFormFields = 16;

struct FormPart {
  std::string name, filename;
  std::string_view content;  // into the body
};

// The boundary of a "multipart/form-data; boundary=..." Content-Type, or
// empty when there is none.
std::string form_boundary(std::string_view content_type);

// kInvalidArgument for a malformed form, kResourceExhausted for too many
// parts (its message names the limit).
Result<std::vector<FormPart>> parse_form(std::string_view body, std::string_view boundary);

}  // namespace proofpipe::service
