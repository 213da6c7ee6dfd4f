// The real `proofpipe submit`, `jobs` and `cancel` (cli/src/client.cpp,
// cmd_submit.cpp) against an ApiServer over a FakeCore in this process:
// submit --wait follows the job and writes the proofs the fake serves byte
// for byte; failed partitions exit 3; a 401, a 409, a dead server and an
// existing output are one error line and exit 2. Also the progress text.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "client.hpp"
#include "support/api_fixture.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The output is exactly one line, "proofpipe: error: ..." holding `words`.
void expect_one_error_line(const CommandResult& r, const std::string& words) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
}

// A job `id` with partitions named `names`, each in the given state.
Job job_with(const std::string& id, JobState state, const std::vector<std::pair<std::string, PartStatus>>& parts) {
  Job j;
  j.id = id;
  j.key = "k";
  j.state = state;
  j.submitted_at = 1700000000;
  for (const auto& [name, st] : parts) {
    PartitionInfo p;
    p.index = uint32_t(j.partitions.size());
    p.name = name;
    p.status = st;
    p.attempts = st == PartStatus::kQueued ? 0 : 1;
    if (st == PartStatus::kFailed) p.last_error = "synthesis failed: witness does not satisfy constraint 7";
    j.done += st == PartStatus::kDone;
    j.failed += st == PartStatus::kFailed;
    j.cancelled += st == PartStatus::kCancelled;
    j.partitions.push_back(p);
  }
  j.total = uint32_t(j.partitions.size());
  return j;
}

class ClientTest : public ApiTest {
 protected:
  std::string server_url() const { return "http://127.0.0.1:" + std::to_string(server->port()); }
  CommandResult pp(const std::string& args, const std::string& env = "") const {
    return run_command(env + (env.empty() ? "" : " ") + proofpipe() + " " + args);
  }
  // Two witness files w00.wtns and w01.wtns in tmp/in.
  std::vector<fs::path> witnesses() {
    fs::create_directories(tmp / "in");
    std::vector<fs::path> out;
    for (const char* name : {"w00", "w01"}) {
      out.push_back(tmp / "in" / (std::string(name) + ".wtns"));
      std::ofstream(out.back(), std::ios::binary) << "wtns bytes of " << name << '\0' << '\xff';
    }
    return out;
  }
  std::string proof_text(const std::string& name) const {
    return "{\n \"pi_a\": [\n  \"" + name + "\"\n ],\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}";
  }
  TempDir tmp;
};

TEST_F(ClientTest, SubmitWaitFollowsTheJobAndWritesItsProofs) {
  const auto w = witnesses();
  core.queue_states("j1",
                    {job_with("j1", JobState::kRunning, {{"w00", PartStatus::kDone}, {"w01", PartStatus::kRunning}}),
                     job_with("j1", JobState::kDone, {{"w00", PartStatus::kDone}, {"w01", PartStatus::kDone}})});
  for (const char* name : {"w00", "w01"})
    core.put_proof("j1", name, {proof_text(name), "[\n \"" + std::string(name) + "\"\n]"});
  const auto r = pp(
      "submit --key k --id j1 --priority 7 --wait --out " + quote(tmp / "out") + " " + quote(w[0]) + " " + quote(w[1]),
      "PROOFPIPE_SERVER=" + server_url());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("job j1: submitted (queued, 0/2 done)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("proofpipe: j1 running: 1/2 done"), std::string::npos)
      << r.output;  // a plain line per change
  EXPECT_NE(r.output.find("job j1: done, 2/2 done; 2 proofs written"), std::string::npos) << r.output;
  for (const char* name : {"w00", "w01"}) {
    EXPECT_EQ(slurp(tmp / "out" / (std::string(name) + ".proof.json")), proof_text(name));
    EXPECT_EQ(slurp(tmp / "out" / (std::string(name) + ".public.json")), "[\n \"" + std::string(name) + "\"\n]");
  }
  // The files went up as uploads, named as on disk, with their bytes.
  const auto sent = core.submitted().at(0);
  EXPECT_EQ(sent.priority, 7);
  ASSERT_EQ(sent.uploads.size(), 2u);
  EXPECT_EQ(sent.uploads[1].filename, "w01.wtns");
  EXPECT_EQ(sent.uploads[1].bytes, slurp(w[1]));
  EXPECT_TRUE(sent.paths.empty());

  // The same outputs again are refused before anything is sent.
  const auto again =
      pp("submit --server " + server_url() + " --key k --id j1 --wait --out " + quote(tmp / "out") + " " + quote(w[0]));
  expect_one_error_line(again, "w00.proof.json' exists");
  EXPECT_EQ(core.submitted().size(), 1u);
}

TEST_F(ClientTest, FailedPartitionsExit3AndTheProvedOnesAreStillWritten) {
  const auto w = witnesses();
  core.queue_states("j2",
                    {job_with("j2", JobState::kDone, {{"w00", PartStatus::kDone}, {"w01", PartStatus::kFailed}})});
  core.put_proof("j2", "w00", {proof_text("w00"), "[]"});
  const auto r = pp("submit --server " + server_url() + " --key k --id j2 --wait --out " + quote(tmp / "out") + " " +
                    quote(w[0]) + " " + quote(w[1]));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("partition w01 failed: synthesis failed"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(tmp / "out" / "w00.proof.json"));
  EXPECT_FALSE(fs::exists(tmp / "out" / "w01.proof.json"));
}

TEST_F(ClientTest, PathsAreSentAsJson) {
  const auto r = pp("submit --server " + server_url() + " --key k --paths /srv/w/a.wtns /srv/w/b.wtns");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto sent = core.submitted().at(0);
  EXPECT_EQ(sent.paths, (std::vector<std::string>{"/srv/w/a.wtns", "/srv/w/b.wtns"}));
  EXPECT_TRUE(sent.uploads.empty());
  EXPECT_FALSE(sent.id.has_value());
}

TEST_F(ClientTest, ConflictUnauthorizedAndDeadServerAreOneLine) {
  ASSERT_EQ(pp("submit --server " + server_url() + " --key k --id c --paths /a.wtns").exit_code, 0);
  expect_one_error_line(pp("submit --server " + server_url() + " --key k --id c --paths /b.wtns"),
                        "HTTP 409: job 'c' already exists");

  ApiConfig cfg;
  cfg.token = "the-token";
  start(cfg);
  std::ofstream(tmp / "token") << "the-token\n";
  std::ofstream(tmp / "wrong") << "not-the-token\n";
  // A token file others can read is refused by the client too (a leaked secret).
  fs::permissions(tmp / "token",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  expect_one_error_line(pp("jobs --server " + server_url() + " --token-file " + quote(tmp / "token")), "chmod 600");
  fs::permissions(tmp / "token", fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(tmp / "wrong", fs::perms::owner_read | fs::perms::owner_write);
  expect_one_error_line(pp("jobs --server " + server_url()), "HTTP 401");
  expect_one_error_line(pp("jobs --server " + server_url() + " --token-file " + quote(tmp / "wrong")),
                        "HTTP 401: the bearer token is wrong");
  EXPECT_EQ(pp("jobs --server " + server_url() + " --token-file " + quote(tmp / "token")).exit_code, 0);
  EXPECT_EQ(pp("jobs --server " + server_url(), "PROOFPIPE_TOKEN_FILE=" + quote(tmp / "token")).exit_code, 0);
  expect_one_error_line(pp("jobs --server " + server_url() + " --token-file " + quote(tmp.path())),
                        "not a regular file");

  const std::string dead = server_url();
  server->stop();
  expect_one_error_line(pp("jobs --server " + dead), "server " + dead + ": GET /v1/jobs: cannot connect");
  expect_one_error_line(pp("submit --server " + dead + " --key k --paths /a.wtns"), "server " + dead);
  expect_one_error_line(pp("jobs --server ftp://x"), "--server 'ftp://x'");
}

TEST_F(ClientTest, JobsAndCancel) {
  ASSERT_EQ(pp("submit --server " + server_url() + " --key k --id alpha --priority 3 --paths /w/x.wtns").exit_code, 0);
  auto r = pp("jobs --server " + server_url());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("alpha"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0/1"), std::string::npos) << r.output;
  r = pp("jobs --server " + server_url() + " alpha");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("job alpha: queued, key k, priority 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("x "), std::string::npos) << r.output;  // the partition's row
  r = pp("jobs --server " + server_url() + " --json alpha");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["partitions"][0]["name"], "x");
  expect_one_error_line(pp("jobs --server " + server_url() + " nope"), "HTTP 404: no job 'nope'");

  r = pp("cancel --server " + server_url() + " alpha");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "job alpha: cancelled, 0/1 done\n");
  r = pp("jobs --server " + server_url() + " --state cancelled");
  EXPECT_NE(r.output.find("alpha"), std::string::npos) << r.output;
  r = pp("jobs --server " + server_url() + " --state done");
  EXPECT_EQ(r.output.find("alpha"), std::string::npos) << r.output;
  expect_one_error_line(pp("cancel --server " + server_url() + " nope"), "HTTP 404");
}

// The column where `word` starts in the line of `text` that holds `row`.
size_t column_of(const std::string& text, const std::string& row, const std::string& word) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(row) != std::string::npos) return line.find(word);
  }
  return std::string::npos;
}

TEST_F(ClientTest, JobTablesStayAlignedForLongIdsAndNames) {
  const std::string long_id = "a-job-id-far-longer-than-the-24-columns-of-the-table";
  const std::string long_name = "a-partition-name-longer-than-24-columns";
  ASSERT_EQ(pp("submit --server " + server_url() + " --key k --id " + long_id + " --paths /w/" + long_name + ".wtns")
                .exit_code,
            0);
  ASSERT_EQ(pp("submit --server " + server_url() + " --key k --id short --paths /w/x.wtns").exit_code, 0);
  auto r = pp("jobs --server " + server_url());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t state = column_of(r.output, "submitted", "state");
  ASSERT_NE(state, std::string::npos) << r.output;
  EXPECT_EQ(column_of(r.output, long_id, "queued"), state) << r.output;
  EXPECT_EQ(column_of(r.output, "short ", "queued"), state) << r.output;
  r = pp("jobs --server " + server_url() + " " + long_id);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t part_state = column_of(r.output, "last error", "state");
  ASSERT_NE(part_state, std::string::npos) << r.output;
  EXPECT_EQ(column_of(r.output, long_name, "queued"), part_state) << r.output;
}

TEST(ClientText, HoursMinutesSecondsAndProgress) {
  EXPECT_EQ(service::format_hms(0), "0:00:00");
  EXPECT_EQ(service::format_hms(59.6), "0:01:00");
  EXPECT_EQ(service::format_hms(3725.4), "1:02:05");
  EXPECT_EQ(service::format_hms(100 * 3600), "100:00:00");
  Job j = job_with(
      "j", JobState::kRunning,
      {{"a", PartStatus::kDone}, {"b", PartStatus::kQueued}, {"c", PartStatus::kQueued}, {"d", PartStatus::kQueued}});
  // One partition had ended before the wait began: no rate yet.
  EXPECT_EQ(service::progress_text(j, 10, 1, false), "j running: 1/4 done, elapsed 0:00:10, ETA unknown");
  // Two ended in 60 s while waiting (one done, one failed): one left, 30 s.
  j.partitions[1].status = PartStatus::kDone;
  j.done = 2;
  j.failed = 1;
  EXPECT_EQ(service::progress_text(j, 60, 1, true),
            "[######################........] j running: 2/4 done, 1 failed, elapsed 0:01:00, ETA 0:00:30");
  EXPECT_EQ(service::exit_code_of(j), 3);
  j.done = j.total;
  EXPECT_EQ(service::exit_code_of(j), 0);
  EXPECT_EQ(service::url_segment("a b/c%d.e_f~g"), "a%20b%2Fc%25d.e_f~g");
}

}  // namespace
}  // namespace proofpipe::test
