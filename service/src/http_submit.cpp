// Parses and checks the two forms of POST /v1/jobs (http_submit.hpp). Both
// end in the same checks (finish()), so the forms cannot accept different
// things: witnesses (paths or files) or circom inputs (inline or files).
#include "http_submit.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "intake.hpp"  // valid_name
#include "proofpipe/service/job_json.hpp"

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

// The members of one valid JSON text, walked without building its tree: a
// large body's tree costs up to 8x its text (16 bytes a value for "1,"),
// so only one member's is built at a time. Every function here assumes
// the text passed json::accept (and the depth check) first.
size_t skip_ws(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}
size_t end_of_string(std::string_view s, size_t i) {  // s[i] is the opening quote
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;
    else if (s[i] == '"')
      return i + 1;
  }
  return s.size();
}
size_t end_of_value(std::string_view s, size_t i) {
  if (s[i] == '"') return end_of_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    size_t depth = 0;
    for (; i < s.size(); ++i) {
      if (s[i] == '"') {
        i = end_of_string(s, i) - 1;
      } else if (s[i] == '{' || s[i] == '[') {
        ++depth;
      } else if ((s[i] == '}' || s[i] == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return s.size();
  }
  while (i < s.size() && std::string_view(",}] \t\r\n").find(s[i]) == std::string_view::npos) ++i;
  return i;
}
// Calls f(key, value) for each member of the object or array `s` (exactly
// its text); `key` is the decoded name, empty for an array's elements.
template <class F>
void for_each_member(std::string_view s, F&& f) {
  const bool object = s[0] == '{';
  size_t i = skip_ws(s, 1);
  if (s[i] == '}' || s[i] == ']') return;
  while (true) {
    std::string key;
    if (object) {
      const size_t e = end_of_string(s, i);
      key = json::parse(s.substr(i, e - i)).get<std::string>();  // its escapes decoded
      i = skip_ws(s, skip_ws(s, e) + 1);                         // past ':'
    }
    const size_t e = end_of_value(s, i);
    f(std::move(key), s.substr(i, e - i));
    i = skip_ws(s, e);
    if (s[i] != ',') return;
    i = skip_ws(s, i + 1);
  }
}
// An object's members by name, the last of a repeated name winning, as
// the parsed tree held them (so the checks run in the same order).
std::map<std::string, std::string_view> members_by_name(std::string_view s) {
  std::map<std::string, std::string_view> out;
  for_each_member(s, [&](std::string key, std::string_view value) { out[std::move(key)] = value; });
  return out;
}

// "inputs": {"NAME": {...}, ...} (partitions in name order), or [{...}, ...]
// named by their place, zero-padded to one width ("00" .. "11"), so the
// names sort as the list does. Each is kept as JSON text "<name>.json", and
// only one input's tree is in memory at a time.
Status parse_inputs(std::string_view v, std::vector<UploadedWitness>& out) {
  constexpr std::string_view kShape = "'inputs' must be an object of NAME: {circom input}, or a list of input objects";
  if (v[0] != '{' && v[0] != '[') return invalid(std::string(kShape));
  std::vector<std::pair<std::string, std::string_view>> items;
  if (v[0] == '{') {
    for (auto& [name, text] : members_by_name(v)) items.emplace_back(name, text);
  } else {
    for_each_member(v, [&](const std::string&, std::string_view text) { items.emplace_back(std::string(), text); });
    const size_t width = std::max<size_t>(2, std::to_string(items.empty() ? 0 : items.size() - 1).size());
    for (size_t place = 0; place < items.size(); ++place) items[place].first = fmt::format("{:0{}}", place, width);
  }
  if (items.empty()) return invalid("'inputs' is empty");
  for (const auto& [label, text] : items) {
    // The name is the partition's, as is: checked here, not cut to a stem later.
    if (!valid_name(label)) {
      return invalid(
          fmt::format("input name {} must be 1 to 128 of A-Z a-z 0-9 . _ - (not . or ..)", dump_json(json(label))));
    }
    const json input = json::parse(text);
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
  // Checked whole without a tree, then walked member by member: a large
  // body's memory is the body, one member's tree and the inputs' text.
  if (!json::accept(body)) return invalid("the body is not valid JSON");
  const size_t start = skip_ws(body, 0);
  if (body[start] != '{') return invalid("the body is not a JSON object");
  const std::string_view object = body.substr(start, end_of_value(body, start) - start);
  SubmitRequest r;
  for (const auto& [name, text] : members_by_name(object)) {
    if (name == "inputs") {
      if (Status st = parse_inputs(text, r.inputs); !st) return st;
      continue;
    }
    const json v = json::parse(text);
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
    } else {
      return invalid(
          fmt::format("unknown field {} (expected id, key, witnesses, inputs, priority)", dump_json(json(name))));
    }
  }
  return finish(std::move(r));
}

Result<SubmitRequest> submit_from_form(std::vector<FormPart> parts, std::string* body) {
  std::stable_sort(parts.begin(), parts.end(), [](const FormPart& a, const FormPart& b) { return a.name < b.name; });
  // The largest file, whose bytes are moved rather than copied (below).
  const FormPart* largest = nullptr;
  for (const auto& p : parts)
    if (body && !p.filename.empty() && (!largest || p.content.size() > largest->content.size())) largest = &p;
  std::vector<UploadedWitness>* largest_in = nullptr;  // and at which place (the vector may still grow)
  size_t largest_at = 0;
  SubmitRequest r;
  std::set<std::string> seen;
  for (auto& part : parts) {
    const std::string& name = part.name;
    if (name == "witness") {
      if (part.filename.empty()) return invalid("a 'witness' part has no file name (attach it as a file)");
      r.uploads.push_back(UploadedWitness{part.filename, &part == largest ? std::string() : std::string(part.content)});
      if (&part == largest) largest_in = &r.uploads, largest_at = r.uploads.size() - 1;
      continue;
    }
    if (name == "input") {  // circom input JSON; intake checks it is one object
      if (part.filename.empty()) return invalid("an 'input' part has no file name (attach it as a file)");
      r.inputs.push_back(UploadedWitness{part.filename, &part == largest ? std::string() : std::string(part.content)});
      if (&part == largest) largest_in = &r.inputs, largest_at = r.inputs.size() - 1;
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
  if (largest_in) {
    // Every other part is copied out by now, so the body can be cut to
    // this one in place: a move within its buffer, no second allocation.
    const size_t at = size_t(largest->content.data() - body->data()), length = largest->content.size();
    std::string bytes = std::move(*body);
    body->clear();
    bytes.erase(0, at);
    bytes.resize(length);
    (*largest_in)[largest_at].bytes = std::move(bytes);
  }
  return finish(std::move(r));
}

}  // namespace proofpipe::service
