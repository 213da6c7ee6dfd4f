// Parses and checks the two forms of POST /v1/jobs (http_submit.hpp). Both
// end in the same checks (finish()), so the forms cannot accept different
// things: witnesses (paths or files) or circom inputs (inline or files).
#include "http_submit.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canonical_json.hpp"
#include "intake.hpp"  // valid_name
#include "proofpipe/formats/bounded_json.hpp"
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
// The first JSON type name of a valid value's text, for the error of an
// input that is not an object.
const char* type_of(std::string_view v) {
  switch (v[0]) {
    case '{': return "object";
    case '[': return "array";
    case '"': return "string";
    case 't':
    case 'f': return "boolean";
    case 'n': return "null";
    default: return "number";
  }
}

Status too_many(size_t max, const char* whats, const std::string& has) {
  return Status(ErrorCode::kResourceExhausted,
                fmt::format("a job takes at most {} {}, this one has {}", max, whats, has));
}

// "inputs": {"NAME": {...}, ...} (partitions in name order), or [{...}, ...]
// named by their place, zero-padded to one width ("00" .. "11"), so the
// names sort as the list does. Each is kept as the JSON text its tree would
// dump ("<name>.json", canonical_json.hpp), made without the tree. Counted
// as they are walked: past `max` partitions the job is refused before any
// input's text is made.
Status parse_inputs(std::string_view v, size_t max, std::vector<UploadedWitness>& out) {
  constexpr std::string_view kShape = "'inputs' must be an object of NAME: {circom input}, or a list of input objects";
  if (v[0] != '{' && v[0] != '[') return invalid(std::string(kShape));
  std::vector<std::pair<std::string, std::string_view>> items;
  if (v[0] == '{') {
    // By name, the last of a repeated name winning, as the tree held them.
    std::map<std::string, std::string_view> by_name;
    bool over = false;
    for_each_member(v, [&](std::string key, std::string_view text) {
      if (!over) by_name[std::move(key)] = text;
      over = by_name.size() > max;
    });
    if (over) return too_many(max, "inputs", "more");
    for (auto& [name, text] : by_name) items.emplace_back(name, text);
  } else {
    size_t n = 0;
    for_each_member(v, [&](const std::string&, std::string_view) { ++n; });
    if (n > max) return too_many(max, "inputs", std::to_string(n));
    items.reserve(n);
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
    if (text[0] != '{') {
      return invalid(fmt::format("input {} is {}, not a JSON object (circom's input.json)", dump_json(json(label)),
                                 type_of(text)));
    }
    PP_ASSIGN_OR_RETURN(std::string canonical, canonical_json(text));
    out.push_back(UploadedWitness{label + ".json", std::move(canonical)});
  }
  return Status::ok();
}

// "witnesses": ["/path", ...], counted before a string is copied.
Status parse_witness_paths(std::string_view v, size_t max, std::vector<std::string>& out) {
  constexpr const char* kShape = "'witnesses' must be a list of server paths (non-empty strings)";
  if (v[0] != '[') return invalid("'witnesses' must be a list of server paths (strings)");
  size_t n = 0;
  for_each_member(v, [&](const std::string&, std::string_view) { ++n; });
  if (n == 0) return invalid("'witnesses' is an empty list");
  // Every element a string first: the old tree's check came before the count.
  bool strings = true;
  for_each_member(v, [&](const std::string&, std::string_view w) { strings = strings && w.size() > 2 && w[0] == '"'; });
  if (!strings) return invalid(kShape);
  if (n > max) return too_many(max, "witnesses", std::to_string(n));
  out.reserve(n);
  for_each_member(v, [&](const std::string&, std::string_view w) { out.push_back(json::parse(w).get<std::string>()); });
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

Status inputs_refused(std::string_view key) {
  return make_error(ErrorCode::kInvalidArgument,
                    "key '{}' takes no inputs: this service has no --witness-gen {}=KIND:PATH for it; "
                    "send witnesses, or ask the operator to configure a generator",
                    key, key);
}

Result<SubmitRequest> submit_from_json(std::string_view body, const SubmitLimits& limits) {
  if (!formats::json_depth_problem(body).empty())
    return invalid(fmt::format("the JSON body nests deeper than {} arrays and objects", formats::kMaxJsonDepth));
  // Checked whole without a tree, then walked member by member: a large
  // body's memory is the body, one member's tree and the inputs' text.
  if (!json::accept(body)) return invalid("the body is not valid JSON");
  const size_t start = skip_ws(body, 0);
  if (body[start] != '{') return invalid("the body is not a JSON object");
  const std::string_view object = body.substr(start, end_of_value(body, start) - start);
  // The known members by name (the last of a repeated name winning) and the
  // first unknown name in name order: at most six entries, whatever the
  // body holds. The checks run in name order, as over the parsed tree.
  std::map<std::string, std::string_view> known;
  std::optional<std::string> unknown;
  for_each_member(object, [&](std::string name, std::string_view value) {
    if (name == "id" || name == "key" || name == "priority" || name == "witnesses" || name == "inputs")
      known[std::move(name)] = value;
    else if (!unknown || name < *unknown)
      unknown = std::move(name);
  });
  // The key's capability before its inputs are parsed ("inputs" < "key").
  if (const auto key = known.find("key"); key != known.end() && known.count("inputs") && limits.inputs_allowed) {
    const json k = json::parse(key->second);
    if (k.is_string() && !limits.inputs_allowed(k.get_ref<const std::string&>()))
      return inputs_refused(k.get<std::string>());
  }
  SubmitRequest r;
  for (const auto& [name, text] : known) {
    if (unknown && *unknown < name) break;
    if (name == "inputs") {
      if (Status st = parse_inputs(text, limits.max_items, r.inputs); !st) return st;
    } else if (name == "witnesses") {
      if (Status st = parse_witness_paths(text, limits.max_items, r.paths); !st) return st;
    } else {
      // A scalar or refused: an array or object here is never built.
      const json v = text[0] == '[' || text[0] == '{' ? json(nullptr) : json::parse(text);
      if (name == "id") {
        if (!v.is_string()) return invalid("'id' must be a string");
        r.id = v.get<std::string>();
      } else if (name == "key") {
        if (!v.is_string()) return invalid("'key' must be a string");
        r.key = v.get<std::string>();
      } else {
        // An integer that fits int64: 1.0, 1e3, "1" and 2^63 are refused.
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
          return invalid(fmt::format("'priority' must be an integer from {} to {}", INT64_MIN, INT64_MAX));
        r.priority = v.get<int64_t>();
      }
    }
  }
  if (unknown)
    return invalid(
        fmt::format("unknown field {} (expected id, key, witnesses, inputs, priority)", dump_json(json(*unknown))));
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
