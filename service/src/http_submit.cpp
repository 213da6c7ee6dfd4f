// Parses and checks the two forms of POST /v1/jobs (http_submit.hpp). Both
// end in the same checks (finish()), so the forms cannot accept different
// things: witnesses (paths or files) or circom inputs (inline or files).
#include "http_submit.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "intake.hpp"  // valid_name
#include "job_json.hpp"

namespace proofpipe::service {
namespace {

using nlohmann::json;

constexpr size_t kMaxIdLength = 128;

Status invalid(std::string message) { return Status(ErrorCode::kInvalidArgument, std::move(message)); }

// The checks both forms share: a key, witnesses of one kind or inputs, a valid id.
Result<SubmitRequest> finish(SubmitRequest r) {
  if (r.key.empty()) return invalid("'key' is missing: the NAME of a key the service loaded (GET /v1/keys)");
  const bool witnesses = !r.paths.empty() || !r.uploads.empty();
  if (witnesses && !r.inputs.empty()) return invalid("a job takes witnesses or inputs, not both");
  if (!witnesses && r.inputs.empty())
    return invalid("no witnesses or inputs: give 'witnesses' or 'inputs', or attach 'witness' or 'input' files");
  if (r.id) {
    const std::string problem = job_id_problem(*r.id);
    if (!problem.empty()) return invalid(problem);
  }
  return r;
}

// "inputs": {"NAME": {...}, ...} (partitions in name order), or [{...}, ...]
// named by their place, zero-padded to one width ("00" .. "11"), so the
// names sort as the list does. Each is kept as JSON text "<name>.json".
Status parse_inputs(const json& v, std::vector<UploadedWitness>& out) {
  constexpr std::string_view kShape = "'inputs' must be an object of NAME: {circom input}, or a list of input objects";
  if (!v.is_object() && !v.is_array()) return invalid(std::string(kShape));
  if (v.empty()) return invalid("'inputs' is empty");
  const size_t width = std::max<size_t>(2, std::to_string(v.size() - 1).size());
  size_t place = 0;
  for (const auto& [name, input] : v.items()) {
    const std::string label = v.is_object() ? name : fmt::format("{:0{}}", place, width);
    ++place;
    // The name is the partition's, as is: checked here, not cut to a stem later.
    if (!valid_name(label)) {
      return invalid(
          fmt::format("input name {} must be 1 to 128 of A-Z a-z 0-9 . _ - (not . or ..)", dump_json(json(label))));
    }
    if (!input.is_object()) {
      return invalid(fmt::format("input {} is {}, not a JSON object (circom's input.json)", dump_json(json(label)),
                                 input.type_name()));
    }
    out.push_back(UploadedWitness{label + ".json", input.dump()});
  }
  return Status::ok();
}

// A whole decimal int64, optionally signed, nothing else around it.
bool parse_int64(std::string_view text, int64_t* out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

std::string job_id_problem(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdLength || id == "." || id == "..")
    return fmt::format("'id' must be 1 to {} characters of A-Z a-z 0-9 . _ - (not . or ..)", kMaxIdLength);
  for (char c : id) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return fmt::format("'id' {} has a character outside A-Z a-z 0-9 . _ -", dump_json(json(id)));
  }
  return {};
}

std::string json_depth_problem(std::string_view body) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return fmt::format("the JSON body nests deeper than {} arrays and objects", kMaxJsonDepth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

Result<SubmitRequest> submit_from_json(std::string_view body) {
  if (std::string problem = json_depth_problem(body); !problem.empty()) return invalid(std::move(problem));
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid("the body is not valid JSON");
  if (!j.is_object()) return invalid("the body is not a JSON object");
  SubmitRequest r;
  for (const auto& [name, v] : j.items()) {
    if (name == "id") {
      if (!v.is_string()) return invalid("'id' must be a string");
      r.id = v.get<std::string>();
    } else if (name == "key") {
      if (!v.is_string()) return invalid("'key' must be a string");
      r.key = v.get<std::string>();
    } else if (name == "priority") {
      // An integer that fits int64: 1.0, 1e3, "1" and 2^63 are refused.
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
        return invalid(fmt::format("'priority' must be an integer from {} to {}", INT64_MIN, INT64_MAX));
      r.priority = v.get<int64_t>();
    } else if (name == "witnesses") {
      if (!v.is_array()) return invalid("'witnesses' must be a list of server paths (strings)");
      for (const auto& w : v) {
        if (!w.is_string() || w.get<std::string>().empty())
          return invalid("'witnesses' must be a list of server paths (non-empty strings)");
        r.paths.push_back(w.get<std::string>());
      }
      if (r.paths.empty()) return invalid("'witnesses' is an empty list");
    } else if (name == "inputs") {
      if (Status st = parse_inputs(v, r.inputs); !st) return st;
    } else {
      return invalid(
          fmt::format("unknown field {} (expected id, key, witnesses, inputs, priority)", dump_json(json(name))));
    }
  }
  return finish(std::move(r));
}

Result<SubmitRequest> submit_from_form(std::vector<FormPart> parts) {
  std::stable_sort(parts.begin(), parts.end(), [](const FormPart& a, const FormPart& b) { return a.name < b.name; });
  SubmitRequest r;
  std::set<std::string> seen;
  for (auto& part : parts) {
    const std::string& name = part.name;
    if (name == "witness") {
      if (part.filename.empty()) return invalid("a 'witness' part has no file name (attach it as a file)");
      r.uploads.push_back(UploadedWitness{part.filename, std::string(part.content)});
      continue;
    }
    if (name == "input") {  // circom input JSON; intake checks it is one object
      if (part.filename.empty()) return invalid("an 'input' part has no file name (attach it as a file)");
      r.inputs.push_back(UploadedWitness{part.filename, std::string(part.content)});
      continue;
    }
    if (name != "id" && name != "key" && name != "priority")
      return invalid(
          fmt::format("unknown form field {} (expected id, key, priority, witness, input)", dump_json(json(name))));
    if (!seen.insert(name).second) return invalid(fmt::format("form field '{}' is given twice", name));
    if (!part.filename.empty()) return invalid(fmt::format("form field '{}' must be a value, not a file", name));
    if (name == "id") {
      r.id = std::string(part.content);
    } else if (name == "key") {
      r.key = std::string(part.content);
    } else if (!parse_int64(part.content, &r.priority)) {
      return invalid(fmt::format("'priority' {} is not an integer from {} to {}",
                                 dump_json(json(std::string(part.content))), INT64_MIN, INT64_MAX));
    }
  }
  return finish(std::move(r));
}

}  // namespace proofpipe::service
