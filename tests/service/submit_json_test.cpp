// The JSON form of POST /v1/jobs under hostile shapes (http_submit.hpp,
// docs/api.md Limits): counts checked as the body is walked, before a
// witness path or an input is copied; a key that takes no inputs refused
// before they are read; unknown members refused in name order without
// keeping them; inline inputs stored as their tree's dump() without the
// tree (canonical_json.hpp); and each shape's peak memory, measured in a
// fresh process, a small multiple of the body.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdio>
#include <functional>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canonical_json.hpp"
#include "http_submit.hpp"

namespace proofpipe::test {
namespace {

using namespace proofpipe::service;
using nlohmann::json;

void expect_refused(const Result<SubmitRequest>& r, ErrorCode code, const std::string& needle) {
  ASSERT_FALSE(r.is_ok()) << "expected: " << needle;
  EXPECT_EQ(r.status().code(), code) << r.status().to_string();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

std::string repeated(std::string_view head, int n, const std::function<std::string(int)>& item, std::string_view tail) {
  std::string s(head);
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + item(i);
  return s += tail;
}

TEST(SubmitJsonLimits, CountsAreCheckedBeforeAnythingIsCopied) {
  SubmitLimits three;
  three.max_items = 3;
  const auto path = [](int i) { return fmt::format(R"("/w/{}.wtns")", i); };
  const auto input = [](int i) { return fmt::format(R"("i{}":{{}})", i); };
  expect_refused(submit_from_json(repeated(R"({"key":"k","witnesses":[)", 4, path, "]}"), three),
                 ErrorCode::kResourceExhausted, "a job takes at most 3 witnesses, this one has 4");
  expect_refused(submit_from_json(repeated(R"({"key":"k","inputs":[)", 4, [](int) { return "{}"; }, "]}"), three),
                 ErrorCode::kResourceExhausted, "a job takes at most 3 inputs, this one has 4");
  expect_refused(submit_from_json(repeated(R"({"key":"k","inputs":{)", 4, input, "}}"), three),
                 ErrorCode::kResourceExhausted, "a job takes at most 3 inputs");
  // At the limit, and names repeated (the last wins, as in the tree), fine.
  auto r = submit_from_json(repeated(R"({"key":"k","witnesses":[)", 3, path, "]}"), three);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->paths, (std::vector<std::string>{"/w/0.wtns", "/w/1.wtns", "/w/2.wtns"}));
  r = submit_from_json(R"({"key":"k","inputs":{"a":{"x":1},"b":{},"a":{"x":2},"c":{},"b":{"y":3}}})", three);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->inputs.size(), 3u);
  EXPECT_EQ(r->inputs[0].bytes, R"({"x":2})");
  EXPECT_EQ(r->inputs[1].bytes, R"({"y":3})");
  // The shape of the elements is still checked before their count.
  expect_refused(submit_from_json(R"({"key":"k","witnesses":["/a","/b","/c",7]})", three), ErrorCode::kInvalidArgument,
                 "'witnesses' must be a list of server paths (non-empty strings)");
  expect_refused(submit_from_json(R"({"key":"k","witnesses":["/a",""]})"), ErrorCode::kInvalidArgument,
                 "non-empty strings");
  expect_refused(submit_from_json(R"({"key":"k","witnesses":[]})"), ErrorCode::kInvalidArgument, "empty list");
}

TEST(SubmitJsonLimits, AKeyThatTakesNoInputsIsAskedBeforeTheyAreRead) {
  SubmitLimits limits;
  std::vector<std::string> asked;
  limits.inputs_allowed = [&](const std::string& key) {
    asked.push_back(key);
    return key != "plain";
  };
  // Inputs that would be refused for their shape: the key's answer comes first.
  expect_refused(submit_from_json(R"({"inputs":[5, "x"],"key":"plain"})", limits), ErrorCode::kInvalidArgument,
                 "key 'plain' takes no inputs: this service has no --witness-gen plain=KIND:PATH");
  EXPECT_EQ(asked, std::vector<std::string>{"plain"});
  expect_refused(submit_from_json(R"({"inputs":[5],"key":"gen"})", limits), ErrorCode::kInvalidArgument,
                 "not a JSON object");
  // Witnesses never ask.
  asked.clear();
  EXPECT_TRUE(submit_from_json(R"({"witnesses":["/a.wtns"],"key":"plain"})", limits).is_ok());
  EXPECT_TRUE(asked.empty());
}

TEST(SubmitJsonLimits, UnknownMembersAreRefusedInNameOrder) {
  expect_refused(submit_from_json(R"({"zz":1,"key":5,"aa":[1,2],"mm":{}})"), ErrorCode::kInvalidArgument,
                 R"(unknown field "aa")");
  // A known member before the first unknown one in name order is checked first.
  expect_refused(submit_from_json(R"({"zz":1,"key":5})"), ErrorCode::kInvalidArgument, "'key' must be a string");
  expect_refused(submit_from_json(R"({"key":"k","witnesses":["/a"],"zz":1})"), ErrorCode::kInvalidArgument,
                 R"(unknown field "zz")");
  // A scalar field given a large array is refused without building it.
  expect_refused(submit_from_json(R"({"key":"k","priority":[1,2,3]})"), ErrorCode::kInvalidArgument,
                 "'priority' must be an integer");
  expect_refused(submit_from_json(R"({"id":{"a":1},"key":"k"})"), ErrorCode::kInvalidArgument, "'id' must be a string");
}

// canonical_json is what the tree's dump() was: the digest of a job of
// inline inputs is what it always was.
TEST(CanonicalJson, IsTheTreesDumpWithoutTheTree) {
  std::mt19937 rng(20261207);
  // Names as JSON text: plain, escaped as dump() escapes, and escaped otherwise.
  const char* names[] = {R"("a")",       R"("b")", R"("ab")", R"("\"q")",    R"("\\")",     R"("\n")", R"("z")",
                         "\"\xc3\xa9\"", R"("A")", R"("")",   R"("\u0001")", R"("\u0041")", R"("\/")", R"("\u00e9")"};
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (rng() % (depth > 4 ? 6 : 8)) {
      case 0: return std::to_string(int(rng() % 2001) - 1000);
      case 1: return "1.5e2";
      case 2: return "-0";
      case 3: return R"("s\u0001\u00e9\/x")";
      case 4: return rng() % 2 ? "true" : "null";
      case 5: return rng() % 2 ? "18446744073709551615" : "123456789012345678901234567890";
      case 6: {
        std::string s = "[ ";
        for (unsigned i = 0, n = rng() % 4; i < n; ++i) s += (i ? " , " : "") + value(depth + 1);
        return s + "]";
      }
      default: {
        std::string s = "{";
        for (unsigned i = 0, n = rng() % 6; i < n; ++i)
          s += (i ? "," : "") + fmt::format("{} : ", names[rng() % std::size(names)]) + value(depth + 1);
        return s + "}";
      }
    }
  };
  for (int i = 0; i < 3000; ++i) {
    const std::string text = "{\"k\":" + value(0) + ", \"k\":" + value(0) + ", \"a\" :" + value(0) + "}";
    ASSERT_TRUE(json::accept(text)) << text;
    const auto got = canonical_json(text);
    ASSERT_TRUE(got.is_ok()) << text;
    ASSERT_EQ(*got, json::parse(text).dump()) << text;
  }
  EXPECT_FALSE(canonical_json("{\"a\":").is_ok());
}

// Each hostile shape's peak memory rise over the body, in a fresh process
// (a death-test child, so the high-water mark is this parse's alone). The
// tree of each was 8-43x the body.
void expect_rise_below(const std::function<std::string()>& make_body, double limit,
                       const std::function<bool(const Result<SubmitRequest>&)>& expected) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto run = [&] {
    const std::string body = make_body();
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    const auto r = submit_from_json(body);
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    const double rise = double(after.ru_maxrss - before.ru_maxrss) * 1024 / double(body.size());
    std::fprintf(stderr, "body %zu bytes, peak rise %.2fx, %s\n", body.size(), rise,
                 r.is_ok() ? "accepted" : r.status().message().substr(0, 80).c_str());
    std::_Exit(expected(r) && rise < limit ? 0 : 1);
  };
  EXPECT_EXIT(run(), ::testing::ExitedWithCode(0), "peak rise");
}

constexpr int kMiB = 1 << 20;
bool accepted(const Result<SubmitRequest>& r) { return r.is_ok(); }
bool refused(const Result<SubmitRequest>& r) { return !r.is_ok(); }

// Many large inputs are walked one at a time: the rise is the inputs' text.
TEST(SubmitJsonMemory, ManyLargeInputsCostAboutTheBodyNotItsTree) {
  expect_rise_below(
      [] {
        std::string body = R"({"key":"m","inputs":{)";
        for (int i = 0; i < 100; ++i) {
          body += fmt::format(R"("w{:03}":{{"a":[)", i);
          for (int k = 0; k < 100000; ++k) body += k ? ",1" : "1";
          body += "]}";
          body += i < 99 ? "," : "}}";
        }
        return body;
      },
      2.0, [](const Result<SubmitRequest>& r) { return r.is_ok() && r->inputs.size() == 100; });
}

TEST(SubmitJsonMemory, OneInputWithOneLongArray) {
  expect_rise_below(
      [] {
        std::string b = R"({"key":"k","inputs":{"a":{"x":[)";
        while (b.size() < size_t(40 * kMiB)) b += "1,2,3,4,5,6,7,8,9,";
        return b + "0]}}}";
      },
      1.5, accepted);
}

// The whole-body json::accept costs up to about 1.3x here: nlohmann's
// lexer keeps the text of a run of brackets and commas (it clears it only
// at a string, number or literal), and this body is one such run.
TEST(SubmitJsonMemory, ManyTinyInputsAreCountedFirst) {
  expect_rise_below([] { return repeated(R"({"key":"k","inputs":[)", 4 * kMiB, [](int) { return "{}"; }, "]}"); }, 1.6,
                    refused);
}

TEST(SubmitJsonMemory, ManyWitnessPathsAreCountedFirst) {
  expect_rise_below(
      [] { return repeated(R"({"key":"k","witnesses":[)", 3 * kMiB, [](int) { return "\"/a\""; }, "]}"); }, 0.5,
      refused);
}

TEST(SubmitJsonMemory, AnInputsObjectOfManyMembers) {
  expect_rise_below(
      [] {
        return repeated(R"({"key":"k","inputs":{)", kMiB, [](int i) { return fmt::format(R"("i{}":{{}})", i); }, "}}");
      },
      1.5, refused);
}

TEST(SubmitJsonMemory, UnknownTopLevelMembersAreNotKept) {
  expect_rise_below(
      [] {
        return repeated(
            "{", 2 * kMiB, [](int i) { return fmt::format(R"("u{}":[1])", i); }, R"(,"key":"k"})");
      },
      0.5, refused);
}

}  // namespace
}  // namespace proofpipe::test
