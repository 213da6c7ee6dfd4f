// canonical_json (canonical_json.hpp): a SAX handler that writes each
// value as it arrives, and sorts an object's members, by their offsets in
// the output, only when they did not come in name order.
#include "canonical_json.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <nlohmann/json.hpp>

namespace proofpipe::service {
namespace {

using nlohmann::json;

// A name as written (nlohmann's escaping: \" \\ \b \f \n \r \t \u00XX and
// nothing else) back to its bytes, for ordering as std::map orders them.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u':  // \u00XX: a control character, one byte
        out += char(std::stoi(std::string(s.substr(i + 1, 4)), nullptr, 16));
        i += 4;
        break;
      default: out += e;  // \" and \\ (and \/, never written)
    }
  }
  return out;
}

class Writer final : public json::json_sax_t {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  bool null() override { return scalar("null"); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v)); }
  // The parser's double, printed as dump() prints it (so 1e2 is 100.0).
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v).dump()); }
  bool string(string_t& v) override { return scalar(escaped(v)); }
  bool binary(binary_t&) override { return false; }  // not in JSON text

  bool start_object(std::size_t) override {
    before_value();
    out_ += '{';
    frames_.push_back({true, out_.size(), 0, {}});
    return true;
  }
  bool key(string_t& name) override {
    Frame& f = frames_.back();
    if (!f.members.empty()) out_ += ',';
    if (out_.size() > std::numeric_limits<uint32_t>::max()) return false;
    f.members.push_back(uint32_t(out_.size()));
    out_ += escaped(name);
    out_ += ':';
    return true;
  }
  bool end_object() override {
    sort_members(frames_.back());
    frames_.pop_back();
    out_ += '}';
    return true;
  }
  bool start_array(std::size_t) override {
    before_value();
    out_ += '[';
    frames_.push_back({false, out_.size(), 0, {}});
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    out_ += ']';
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool object;
    size_t start;                   // of the first member or element, just past the bracket
    size_t elements;                // an array's, for its commas
    std::vector<uint32_t> members;  // an object's: where each member's name starts in out_
  };

  static std::string escaped(const std::string& s) { return json(s).dump(); }

  void before_value() {
    if (!frames_.empty() && !frames_.back().object && frames_.back().elements++ > 0) out_ += ',';
  }
  bool scalar(std::string_view text) {
    before_value();
    out_ += text;
    return true;
  }

  // The name of the member starting at `at` (its quoted text).
  std::string_view name_at(uint32_t at) const {
    size_t i = at + 1;
    while (out_[i] != '"') i += out_[i] == '\\' ? 2 : 1;
    return std::string_view(out_).substr(at + 1, i - at - 1);
  }
  // std::map's order of the decoded names; written names without an escape
  // are their bytes, so only names with one are decoded.
  int compare_names(uint32_t a, uint32_t b) const {
    const std::string_view x = name_at(a), y = name_at(b);
    if (x.find('\\') == std::string_view::npos && y.find('\\') == std::string_view::npos) return x.compare(y);
    return unescape(x).compare(unescape(y));
  }

  // dump() writes members in name order, a repeated name once with its last
  // value. Members that came in strictly increasing order are left as they
  // are (the usual case: no copy); otherwise the object's text is rebuilt.
  void sort_members(Frame& f) {
    const std::vector<uint32_t>& m = f.members;
    bool sorted = true;
    for (size_t i = 1; i < m.size() && sorted; ++i) sorted = compare_names(m[i - 1], m[i]) < 0;
    if (sorted) return;
    // Member i spans [m[i], end(i)): up to the next one's comma, or the end.
    const auto end = [&](size_t i) { return i + 1 < m.size() ? size_t(m[i + 1]) - 1 : out_.size(); };
    std::vector<uint32_t> order(m.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return compare_names(m[a], m[b]) < 0; });
    std::string text;
    for (size_t k = 0; k < order.size(); ++k) {
      // Of a run of one name (in input order, the sort being stable), the last.
      if (k + 1 < order.size() && compare_names(m[order[k]], m[order[k + 1]]) == 0) continue;
      if (!text.empty()) text += ',';
      text.append(out_, m[order[k]], end(order[k]) - m[order[k]]);
    }
    out_.resize(f.start);
    out_ += text;
  }

  std::string& out_;
  std::vector<Frame> frames_;
};

}  // namespace

Result<std::string> canonical_json(std::string_view text) {
  if (text.size() > std::numeric_limits<uint32_t>::max() / 2)
    return Status(ErrorCode::kInvalidArgument, "an input over 2 GiB");
  std::string out;
  Writer w(out);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &w);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok) return Status(ErrorCode::kInvalidArgument, "an input is not valid JSON");
  return out;
}

}  // namespace proofpipe::service
