// Jobs given as circom inputs instead of witnesses (the service's
// part; docs/api.md): both request forms' parsing (an inline object keyed by
// name or a list, uploaded "input" files; never with witnesses; an inline
// input that is not an object) and the SQLite journal (kind stored, the
// migration of a version-1 journal, a claim taking inputs only of keys with
// a generator). Intake of inputs: intake_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "http_submit.hpp"
#include "journal_support.hpp"
#include "support/format_files.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::service;
using nlohmann::json;

std::string input_text(int i) { return read_text(fixture("multi_io", fmt::format("inputs/w{:02}.json", i).c_str())); }

void expect_invalid(const Result<SubmitRequest>& r, const std::string& needle) {
  ASSERT_FALSE(r.is_ok()) << "expected: " << needle;
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

TEST(SubmitInputs, JsonFormTakesAnObjectByNameOrAList) {
  const json a = json::parse(input_text(0)), b = json::parse(input_text(1));
  auto r = submit_from_json(json{{"key", "m"}, {"inputs", {{"zeta", a}, {"alpha", b}}}}.dump());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->inputs.size(), 2u);
  EXPECT_TRUE(r->paths.empty() && r->uploads.empty());
  EXPECT_EQ(r->inputs[0].filename, "alpha.json") << "an object's partitions come in name order";
  EXPECT_EQ(json::parse(r->inputs[0].bytes), b);
  EXPECT_EQ(json::parse(r->inputs[1].bytes), a);

  json list = json::array();
  for (int i = 0; i < 11; ++i) list.push_back(a);
  r = submit_from_json(json{{"key", "m"}, {"inputs", list}}.dump());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->inputs.size(), 11u);
  EXPECT_EQ(r->inputs[0].filename, "00.json");
  EXPECT_EQ(r->inputs[10].filename, "10.json");
}

TEST(SubmitInputs, WitnessesAndInputsTogetherOrNonObjectsAre400) {
  const json a = json::parse(input_text(0));
  expect_invalid(submit_from_json(json{{"key", "m"}, {"witnesses", {"/w.wtns"}}, {"inputs", {{"a", a}}}}.dump()),
                 "witnesses or inputs, not both");
  for (const json& bad : {json{{"a", 5}}, json{{"a", "text"}}, json{{"a", json::array()}}, json::array({a, 7})}) {
    SCOPED_TRACE(bad.dump());
    expect_invalid(submit_from_json(json{{"key", "m"}, {"inputs", bad}}.dump()), "not a JSON object");
  }
  expect_invalid(submit_from_json(json{{"key", "m"}, {"inputs", json::object()}}.dump()), "'inputs' is empty");
  for (const char* name : {"", "../x", "a/b", "..", "a b"}) {
    SCOPED_TRACE(name);
    expect_invalid(submit_from_json(json{{"key", "m"}, {"inputs", {{name, a}}}}.dump()), "input name");
  }
  expect_invalid(submit_from_json(json{{"key", "m"}, {"inputs", "a.json"}}.dump()), "'inputs' must be");

  const std::string in0 = input_text(0), in1 = input_text(1);
  std::vector<FormPart> parts = {{"key", "", "m"}, {"input", "w00.json", in0}, {"input", "w01.json", in1}};
  auto r = submit_from_form(parts);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->inputs.size(), 2u);
  parts.push_back({"witness", "w.wtns", "x"});
  expect_invalid(submit_from_form(parts), "not both");
  const std::vector<FormPart> unnamed = {{"key", "", "m"}, {"input", "", "{}"}};
  expect_invalid(submit_from_form(unnamed), "no file name");
}

class JournalInputs : public ::testing::Test {
 protected:
  TempDir dir;
  fs::path file = dir / "journal.db";
};

TEST_F(JournalInputs, KindIsStoredAndOnlyKeysWithAGeneratorClaimInputs) {
  auto j = open_journal(file);
  ASSERT_TRUE(j);
  JobSpec in = make_spec("in", 2);
  for (auto& w : in.witnesses) w.input = true;
  ASSERT_TRUE(j->submit(make_spec("wit", 1), 100).is_ok());
  ASSERT_TRUE(j->submit(in, 101).is_ok());
  const Job job = j->get("in").value().value();
  ASSERT_EQ(job.partitions.size(), 2u);
  EXPECT_TRUE(job.partitions[0].input);
  EXPECT_FALSE(j->get("wit").value()->partitions[0].input);

  ClaimRequest no_gen{{"k"}, 10, {}};
  auto items = j->claim(no_gen, 102).value();
  ASSERT_EQ(items.size(), 1u) << "the inputs wait for a key with a generator";
  EXPECT_EQ(items[0].job_id, "wit");
  EXPECT_FALSE(items[0].input);
  ClaimRequest with_gen{{"k"}, 10, {"k"}};
  items = j->claim(with_gen, 103).value();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_TRUE(items[0].input && items[1].input);
  EXPECT_EQ(items[1].witness, "/state/witnesses/stage-x/w1.wtns");
  EXPECT_TRUE(j->check_integrity().is_ok());
}

TEST_F(JournalInputs, AVersion1JournalIsMigratedAndItsJobsStayWitnesses) {
  {
    auto j = open_journal(file);
    ASSERT_TRUE(j);
    ASSERT_TRUE(j->submit(make_spec("old", 2), 100).is_ok());
  }
  // What version 1 wrote: no kind column.
  ASSERT_EQ(raw_sql(file, "ALTER TABLE partitions DROP COLUMN kind; UPDATE schema_version SET version = 1"), "");
  auto j = open_journal(file);
  ASSERT_TRUE(j);
  const Job old = j->get("old").value().value();
  ASSERT_EQ(old.partitions.size(), 2u);
  EXPECT_FALSE(old.partitions[0].input);
  JobSpec in = make_spec("new", 1);
  in.witnesses[0].input = true;
  ASSERT_TRUE(j->submit(in, 101).is_ok());
  EXPECT_TRUE(j->get("new").value()->partitions[0].input);
  EXPECT_TRUE(j->check_integrity().is_ok());
  j.reset();
  // The version is the current one: opened again, nothing is migrated twice
  // (a second ALTER TABLE would fail the open).
  j = open_journal(file);
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->get("new").value()->partitions[0].input);
}

}  // namespace
}  // namespace proofpipe::test
