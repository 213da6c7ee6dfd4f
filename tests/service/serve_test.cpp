// `proofpipe serve` end to end: a real service with real workers,
// driven over HTTP as a client would: submit, poll, fetch proofs (checked
// with snarkjs; for a bls12381 and a bn128 key, a witness of the other curve
// refused at intake; keys of both curves in one service), idempotent resubmission and conflict, cancel, priority
// order, a bad witness, a path outside --allow-dir, the token off loopback,
// /metrics through Prometheus's own parser, and the drain on SIGTERM.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/sanitizer.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

using ServeTest = ServeFixture;

// The same service for a key of either curve (tests/data/multi_io: bls12381,
// multi_io_bn128: bn128).
class ServeCurve : public ServeTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    ServeTest::SetUp();
    dir_ = data_dir() / GetParam();
  }
};

TEST_P(ServeCurve, SubmitPollAndFetchProofsThatSnarkjsVerifies) {
  const fs::path other = data_dir() / (GetParam() == "multi_io" ? "multi_io_bn128" : "multi_io");
  start({"--allow-dir", other.string()});
  // A witness for the other curve is refused at intake: 400, one line, no job.
  auto wrong = post_job({{"key", "m"}, {"witnesses", {(other / "w00.wtns").string()}}, {"id", "wrong"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400) << wrong->body;
  EXPECT_NE(json_of(wrong).value("error", "").find("curve mismatch"), std::string::npos) << wrong->body;
  auto r = post_job(job_body("first", {0, 1, 2}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  auto c = serve_->client();
  const json job = wait_job(c, "first", seconds(120));
  ASSERT_EQ(job.value("state", ""), "done") << job.dump();
  ASSERT_EQ(job["partitions"].size(), 3u);
  for (const auto& p : job["partitions"]) {
    const std::string name = p["name"];
    auto got = c.Get("/v1/jobs/first/proofs/" + name);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->status, 200) << got->body;
    const json pair = json::parse(got->body);
    std::ofstream(tmp_ / (name + ".proof.json")) << pair["proof"].dump();
    std::ofstream(tmp_ / (name + ".public.json")) << pair["public"].dump();
    const auto v =
        snarkjs_verify(dir_ / "verification_key.json", tmp_ / (name + ".public.json"), tmp_ / (name + ".proof.json"));
    EXPECT_EQ(v.exit_code, 0) << name << ": " << v.output;
    EXPECT_EQ(pair["proof"]["curve"], GetParam() == "multi_io" ? "bls12381" : "bn128");
  }
  EXPECT_EQ(c.Get("/v1/jobs/wrong")->status, 404);
  const json keys = json_of(c.Get("/v1/keys"));
  ASSERT_TRUE(keys.contains("keys")) << keys.dump();
  EXPECT_EQ(keys["keys"][0]["curve"], GetParam() == "multi_io" ? "bls12381" : "bn128") << keys.dump();
  EXPECT_EQ(c.Get("/v1/jobs/first/proofs/nosuch")->status, 404);
  // Ended, its witness copies are released (its proofs stay).
  auto copies = [&] {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(tmp_ / "state" / "witnesses")) n += e.is_regular_file();
    return n;
  };
  for (int i = 0; i < 100 && copies() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(copies(), 0u);
  EXPECT_EQ(c.Get("/v1/jobs/nosuch")->status, 404);
  // The state dir and what it holds are the owner's only.
  struct stat st {};
  ASSERT_EQ(::stat((tmp_ / "state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  ASSERT_EQ(::stat((tmp_ / "state" / "journal.db").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
}

INSTANTIATE_TEST_SUITE_P(Curves, ServeCurve, ::testing::Values("multi_io", "multi_io_bn128"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param == "multi_io" ? std::string("bls12381") : std::string("bn128");
                         });

// Keys of both curves in one service, a bn128 key second: each key's jobs
// prove with its own curve's worker (every proof checked by snarkjs), and
// a witness for the other key's curve is refused at intake. A bn128 key on
// the CUDA backend, alone or beside a bls12381 key, is one line and exit 2.
TEST_F(ServeTest, KeysOfBothCurvesInOneServiceAndNoBn128KeyOnCuda) {
  const fs::path bn_dir = data_dir() / "multi_io_bn128";
  start({"--key", "b=" + (bn_dir / "circuit.zkey").string(), "--allow-dir", bn_dir.string()});
  json bn_job = {{"key", "b"}, {"id", "bn"}, {"witnesses", json::array()}};
  for (int i : {0, 1}) bn_job["witnesses"].push_back((bn_dir / fmt::format("w{:02}.wtns", i)).string());
  auto wrong = post_job({{"key", "b"}, {"witnesses", {wtns(0)}}, {"id", "wrong"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400) << wrong->body;
  for (const json& body : {job_body("bls", {0, 1}), bn_job}) {
    auto r = post_job(body);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
  }
  auto c = serve_->client();
  for (const auto& [id, dir, curve] : {std::tuple{"bls", multi_io(), "bls12381"}, std::tuple{"bn", bn_dir, "bn128"}}) {
    const json job = wait_job(c, id, seconds(120));
    ASSERT_EQ(job.value("state", ""), "done") << job.dump();
    ASSERT_EQ(job["partitions"].size(), 2u);
    for (const auto& p : job["partitions"]) {
      const std::string name = p["name"];
      auto got = c.Get(std::string("/v1/jobs/") + id + "/proofs/" + name);
      ASSERT_TRUE(got);
      ASSERT_EQ(got->status, 200) << got->body;
      const json pair = json::parse(got->body);
      EXPECT_EQ(pair["proof"]["curve"], curve);
      const fs::path proof = tmp_ / (std::string(id) + name + ".proof.json");
      const fs::path pub = tmp_ / (std::string(id) + name + ".public.json");
      std::ofstream(proof) << pair["proof"].dump();
      std::ofstream(pub) << pair["public"].dump();
      const auto v = snarkjs_verify(dir / "verification_key.json", pub, proof);
      EXPECT_EQ(v.exit_code, 0) << id << "/" << name << ": " << v.output;
    }
  }
  const std::string bls = "m=" + (multi_io() / "circuit.zkey").string(), bn = "b=" + (bn_dir / "circuit.zkey").string();
  const std::string state = " --listen 127.0.0.1:0 --state-dir " + quote(tmp_ / "state2");
  for (const std::string& keys : {" --key " + quote(bn), " --key " + quote(bls) + " --key " + quote(bn)}) {
    const auto r = run_command(proofpipe() + " serve" + keys + " --backend cuda" + state);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("the CUDA backend proves bls12381 keys only"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "state2"));
}

TEST_F(ServeTest, TheSameIdAndContentIs200AnotherContentIs409AndNoSecondJob) {
  start();
  auto a = post_job(job_body("same", {3}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 201) << a->body;
  auto b = post_job(job_body("same", {3}));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, 200) << b->body;
  EXPECT_EQ(json_of(a)["id"], json_of(b)["id"]);
  auto conflict = post_job(job_body("same", {4}));
  ASSERT_TRUE(conflict);
  EXPECT_EQ(conflict->status, 409) << conflict->body;
  auto c = serve_->client();
  const json list = json_of(c.Get("/v1/jobs"));
  ASSERT_TRUE(list.contains("jobs")) << list.dump();
  EXPECT_EQ(list["jobs"].size(), 1u) << list.dump();
  EXPECT_EQ(wait_job(c, "same", seconds(120)).value("state", ""), "done");
}

TEST_F(ServeTest, ABadWitnessIs400WithOneLineAndNoJob) {
  start();
  const fs::path bad = multi_io() / "circuit.r1cs";  // a file under --allow-dir, but no witness
  auto r = post_job({{"key", "m"}, {"witnesses", {bad.string()}}, {"id", "bad"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  const std::string error = json_of(r).value("error", "");
  EXPECT_NE(error.find("circuit.r1cs"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  auto c = serve_->client();
  EXPECT_EQ(c.Get("/v1/jobs/bad")->status, 404);
  EXPECT_EQ(json_of(c.Get("/v1/jobs"))["jobs"].size(), 0u);
  // An unknown key is a 400 naming the loaded ones.
  auto k = post_job({{"key", "nokey"}, {"witnesses", {wtns(0)}}});
  ASSERT_TRUE(k);
  EXPECT_EQ(k->status, 400);
  EXPECT_NE(k->body.find("nokey"), std::string::npos) << k->body;
}

TEST_F(ServeTest, APathOutsideTheAllowDirIs403) {
  const fs::path allowed = tmp_ / "allowed", outside = tmp_ / "w.wtns";
  fs::create_directory(allowed);
  fs::copy_file(wtns(0), outside);
  fs::copy_file(wtns(1), allowed / "in.wtns");
  fs::create_symlink(outside, allowed / "link.wtns");
  start({"--allow-dir", allowed.string()});
  for (const fs::path& p : {outside, allowed / "link.wtns", allowed / ".." / "w.wtns"}) {
    auto r = post_job({{"key", "m"}, {"witnesses", {p.string()}}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << p << ": " << r->body;
  }
  auto c = serve_->client();
  EXPECT_EQ(json_of(c.Get("/v1/jobs"))["jobs"].size(), 0u);
  auto ok = post_job({{"key", "m"}, {"witnesses", {(allowed / "in.wtns").string()}}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 201) << ok->body;
}

TEST_F(ServeTest, UploadedWitnessesAreProvedWithoutAnyAllowDir) {
  start();
  httplib::MultipartFormDataItems items = {{"key", "m", "", ""}, {"id", "up", "", ""}};
  for (int i : {5, 6}) {
    std::ifstream in(wtns(i), std::ios::binary);
    items.push_back({"witness", std::string(std::istreambuf_iterator<char>(in), {}), fmt::format("u{}.wtns", i),
                     "application/octet-stream"});
  }
  auto c = serve_->client();
  auto r = c.Post("/v1/jobs", items);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const json job = wait_job(c, "up", seconds(120));
  ASSERT_EQ(job.value("state", ""), "done") << job.dump();
  EXPECT_EQ(c.Get("/v1/jobs/up/proofs/u5")->status, 200);
}

TEST_F(ServeTest, CancelStopsDispatchAndTheCancelledStayCancelled) {
  // One prover, 400 ms per proof: a 12-partition job is mostly queued when cancelled.
  start({}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=400"});
  ASSERT_EQ(post_job(job_body("long", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "long", seconds(60), {"running"}).value("state", ""), "running");
  auto del = c.Delete("/v1/jobs/long");
  ASSERT_TRUE(del);
  ASSERT_EQ(del->status, 200) << del->body;
  const json at_cancel = json_of(del);
  EXPECT_EQ(at_cancel.value("state", ""), "cancelled");
  const int done_at_answer = at_cancel.value("partitions_done", 0);
  std::this_thread::sleep_for(seconds(3));  // ~7 proofs' time: nothing more may start
  const json later = json_of(c.Get("/v1/jobs/long"));
  EXPECT_EQ(later.value("state", ""), "cancelled");
  // At most what one prover held at the answer finishes after it.
  EXPECT_LE(later.value("partitions_done", 0), done_at_answer + 1) << later.dump();
  int cancelled = 0;
  for (const auto& p : later["partitions"]) cancelled += p["state"] == "cancelled";
  EXPECT_GE(cancelled, 12 - done_at_answer - 1);
  // A second cancel changes nothing; an unknown id is 404.
  EXPECT_EQ(c.Delete("/v1/jobs/long")->status, 200);
  EXPECT_EQ(c.Delete("/v1/jobs/nosuch")->status, 404);
}

// A gauge's value from /metrics text; -1 when the family has no sample.
double gauge(const std::string& metrics, const std::string& name) {
  const std::regex line("(^|\n)" + name + " ([0-9.e+-]+)\n");
  std::smatch m;
  return std::regex_search(metrics, m, line) ? std::stod(m[2]) : -1;
}

TEST_F(ServeTest, EndedPartitionsLeaveTheEngineAndLaterJobsStillProve) {
  // A job cancelled while a partition of it is being proved (the prover
  // still names it after it ended), then a job proved after it: once all
  // ended, the engine holds none of them, and the later proofs are whole.
  start({}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=300"});
  ASSERT_EQ(post_job(job_body("first", {0, 1, 2, 3, 4, 5}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "first", seconds(60), {"running"}).value("state", ""), "running");
  ASSERT_EQ(c.Delete("/v1/jobs/first")->status, 200);
  ASSERT_EQ(post_job(job_body("second", {0, 1, 2}))->status, 201);
  const json job = wait_job(c, "second", seconds(120));
  ASSERT_EQ(job.value("state", ""), "done") << job.dump();
  for (const auto& p : job["partitions"]) {
    auto got = c.Get("/v1/jobs/second/proofs/" + p["name"].get<std::string>());
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 200) << got->body;
  }
  double held = -1;
  for (int i = 0; i < 100; ++i) {  // published twice a second
    held = gauge(c.Get("/metrics")->body, "proofpipe_ledger_partitions");
    if (held == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(held, 0) << "the engine still holds ended partitions";
}

TEST_F(ServeTest, RetainRemovesEndedJobsAndTheirProofsAndCountsWhatIsStored) {
  // Refused at start, one line each: not a duration, under a second.
  for (const char* bad : {"forever", "0s", "500ms", "-1d", "nan"}) {
    const auto refused = run_command(proofpipe() + " serve --key m=" + quote(multi_io() / "circuit.zkey") +
                                     " --state-dir " + quote(tmp_ / "s2") + " --retain " + quote(bad));
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.output;
    EXPECT_NE(refused.output.find("--retain"), std::string::npos) << refused.output;
  }
  start({"--retain", "1s"});
  ASSERT_EQ(post_job(job_body("brief", {0, 1}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "brief", seconds(120)).value("state", ""), "done");
  ASSERT_TRUE(fs::exists(tmp_ / "state" / "proofs" / "brief"));
  // A pass every 10 s: gone within two passes.
  int status = 200;
  const auto deadline = std::chrono::steady_clock::now() + seconds(25);
  while (status != 404 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    status = c.Get("/v1/jobs/brief")->status;
  }
  EXPECT_EQ(status, 404) << "the job outlived --retain 1s";
  EXPECT_EQ(c.Get("/v1/jobs/brief/proofs/w00")->status, 404);
  EXPECT_FALSE(fs::exists(tmp_ / "state" / "proofs" / "brief"));
  std::string metrics;
  for (int i = 0; i < 40; ++i) {  // published twice a second
    metrics = c.Get("/metrics")->body;
    if (metrics.find("proofpipe_expired_jobs_total 1\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(metrics.find("proofpipe_expired_jobs_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("proofpipe_stored_bytes{what=\"proofs\"} 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("proofpipe_stored_bytes{what=\"journal\"} "), std::string::npos) << metrics;
}

// The stage directories intake made under the state dir.
std::set<std::string> stage_dirs(const fs::path& state) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(state / "witnesses", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().starts_with("stage-")) out.insert(it->path().filename().string());
  }
  return out;
}

TEST_F(ServeTest, AJobCancelledWhileQueuedLeavesNoWitnessCopies) {
  // One prover, 400 ms per proof: the claim window (a few partitions) is
  // full of "long", so "waiting" is never claimed before its cancel.
  start({}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=400"});
  ASSERT_EQ(post_job(job_body("long", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "long", seconds(60), {"running"}).value("state", ""), "running");
  const std::set<std::string> before = stage_dirs(tmp_ / "state");
  ASSERT_EQ(post_job(job_body("waiting", {0, 1, 2}))->status, 201);
  std::set<std::string> added;
  for (const std::string& d : stage_dirs(tmp_ / "state")) {
    if (!before.count(d)) added.insert(d);
  }
  ASSERT_EQ(added.size(), 1u) << "one stage directory per job";
  const json queued = json_of(c.Get("/v1/jobs/waiting"));
  ASSERT_EQ(queued.value("state", ""), "queued") << queued.dump();
  auto del = c.Delete("/v1/jobs/waiting");
  ASSERT_TRUE(del);
  ASSERT_EQ(del->status, 200) << del->body;
  // The running job keeps its own (it runs for seconds yet).
  const std::set<std::string> after = stage_dirs(tmp_ / "state");
  EXPECT_TRUE(std::includes(after.begin(), after.end(), before.begin(), before.end()));
  // The engine drops the copies before it confirms the cancel; 10 s is slack.
  const auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (stage_dirs(tmp_ / "state").count(*added.begin()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(stage_dirs(tmp_ / "state").count(*added.begin()), 0u) << "the cancelled job's copies are still there";
}

TEST_F(ServeTest, AHighPrioritySubmittedLaterFinishesFirstWhileTheProverIsBusy) {
  start({}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=300"});
  ASSERT_EQ(post_job(job_body("low", {0, 1, 2, 3, 4, 5, 6, 7}, 0))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "low", seconds(60), {"running"}).value("state", ""), "running");
  ASSERT_EQ(post_job(job_body("high", {8}, 10))->status, 201);
  const json high = wait_job(c, "high", seconds(120));
  ASSERT_EQ(high.value("state", ""), "done") << high.dump();
  const json low_then = json_of(c.Get("/v1/jobs/low"));
  EXPECT_EQ(low_then.value("state", ""), "running") << "the low job finished before the high one";
  EXPECT_EQ(wait_job(c, "low", seconds(120)).value("state", ""), "done");
}

TEST_F(ServeTest, OffLoopbackATokenIsRequiredAndChecked) {
  // Without a token file: refused at start, one line.
  const auto refused = run_command(proofpipe() + " serve --key m=" + quote(multi_io() / "circuit.zkey") +
                                   " --listen 0.0.0.0:0 --state-dir " + quote(tmp_ / "s2"));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--token-file"), std::string::npos) << refused.output;
  const fs::path token = tmp_ / "token";
  std::ofstream(token) << "s3cret-token\n";
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write);
  start({"--token-file", token.string()});
  auto c = serve_->client();
  EXPECT_EQ(c.Get("/v1/jobs")->status, 401);
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  c.set_bearer_token_auth("wrong-token!");
  EXPECT_EQ(c.Get("/v1/jobs")->status, 401);
  c.set_bearer_token_auth("s3cret-token");
  EXPECT_EQ(c.Get("/v1/jobs")->status, 200);
}

TEST_F(ServeTest, MetricsParseWithPrometheusClient) {
  start();
  ASSERT_EQ(post_job(job_body("m1", {0, 1}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "m1", seconds(120)).value("state", ""), "done");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // one publish after the commit
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->status, 200);
  std::ofstream(tmp_ / "metrics.txt") << m->body;
  // Prometheus's own parser: every family and sample, then the figures we need.
  const auto parsed = run_command(
      "/usr/bin/python3 -c \"import sys; from prometheus_client.parser import text_string_to_metric_families as f\n"
      "fams = {x.name: x for x in f(open(sys.argv[1]).read())}\n"
      "done = sum(s.value for s in fams['proofpipe_proofs'].samples if s.labels.get('result') == 'done' and "
      "s.name.endswith('_total'))\n"
      "print('proofs_done', int(done))\n"
      "print('families', ' '.join(sorted(fams)))\" " +
      quote(tmp_ / "metrics.txt"));
  ASSERT_EQ(parsed.exit_code, 0) << parsed.output << "\n" << m->body;
  EXPECT_NE(parsed.output.find("proofs_done 2"), std::string::npos) << parsed.output;
  for (const char* family : {"proofpipe_partition_seconds", "proofpipe_queue_depth", "proofpipe_workers",
                             "proofpipe_slots", "proofpipe_memory_bytes"}) {
    EXPECT_NE(parsed.output.find(family), std::string::npos) << family << "\n" << parsed.output;
  }
}

TEST_F(ServeTest, SigtermDrainsRefusesNewJobsAndKeepsTheRestQueued) {
  start({"--drain-timeout", "30"}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=300"});
  auto c = serve_->client();
  // Ready first: a 503 from /readyz below must be the drain's, not the start-up's.
  for (int i = 0; i < 200 && c.Get("/readyz")->status != 200; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(c.Get("/readyz")->status, 200);
  ASSERT_EQ(post_job(job_body("d", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))->status, 201);
  ASSERT_EQ(wait_job(c, "d", seconds(60), {"running"}).value("state", ""), "running");
  serve_->signal(SIGTERM);
  // While it drains: not ready, and no new job.
  bool saw_503 = false;
  for (int i = 0; i < 50 && !saw_503 && !serve_->exited(); ++i) {
    auto ready = c.Get("/readyz");
    if (ready && ready->status == 503) {
      saw_503 = true;
      auto r = post_job(job_body("late", {11}));
      if (r) {
        EXPECT_EQ(r->status, 503) << r->body;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(saw_503);
  EXPECT_EQ(serve_->wait(seconds(60)), 0) << serve_->log_text();
  // It stopped with work left: the partitions not granted before SIGTERM.
  std::smatch m;
  const std::string log = serve_->log_text();
  ASSERT_TRUE(std::regex_search(log, m, std::regex(R"((\d+) partitions? proved in this life, (\d+) queued)"))) << log;
  EXPECT_GT(std::stoi(m[2]), 0) << log;
  EXPECT_LT(std::stoi(m[1]), 10) << log;
  serve_.reset();
  // Started again, it finishes the job, none proved twice.
  start();
  auto c2 = serve_->client();
  const json job = wait_job(c2, "d", seconds(120));
  EXPECT_EQ(job.value("state", ""), "done") << job.dump();
  EXPECT_EQ(c2.Get("/v1/jobs/late")->status, 404);
}

TEST_F(ServeTest, TwoKeysShareTheRingAndWorkersAndTheClientWritesTheProofs) {
  // A second circuit of another size: its partitions and multi_io's go
  // through the same ring (slots of the larger record) and the same workers.
  const fs::path gen = tmp_ / "gen";
  const auto g = run_command(proofpipe() + " gen --constraints 3000 --partitions 2 --seed 7 --out " + quote(gen));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  start({"--key", "g=" + (gen / "circuit.zkey").string()});
  const std::string server = fmt::format("--server http://127.0.0.1:{}", serve_->port());
  // The real client, uploading, waiting and writing the proofs.
  const auto sub = run_command(proofpipe() + " submit " + server + " --key g --id gjob --wait --out " +
                               quote(tmp_ / "gout") + " " + quote(gen / "w00.wtns") + " " + quote(gen / "w01.wtns"));
  ASSERT_EQ(sub.exit_code, 0) << sub.output;
  ASSERT_EQ(post_job(job_body("mjob", {0, 1}))->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "mjob", seconds(120)).value("state", ""), "done");
  for (const char* w : {"w00", "w01"}) {
    const auto v = pp_verify(gen / "verification_key.json", tmp_ / "gout" / (std::string(w) + ".public.json"),
                             tmp_ / "gout" / (std::string(w) + ".proof.json"));
    EXPECT_EQ(v.exit_code, 0) << w << ": " << v.output;
  }
  // A proof of one key does not verify under the other's vkey: the keys were not mixed up.
  const auto mixed = pp_verify(multi_io() / "verification_key.json", tmp_ / "gout" / "w00.public.json",
                               tmp_ / "gout" / "w00.proof.json");
  EXPECT_NE(mixed.exit_code, 0) << mixed.output;
  const json keys = json_of(c.Get("/v1/keys"));
  ASSERT_TRUE(keys.contains("keys")) << keys.dump();
  EXPECT_EQ(keys["keys"].size(), 2u) << keys.dump();
  const auto listed = run_command(proofpipe() + " jobs " + server);
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("gjob"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("mjob"), std::string::npos) << listed.output;
}

TEST_F(ServeTest, UnderMemMaxTheWholeServiceStaysInsideItAndTooLittleIsRefused) {
  PP_SKIP_UNDER_MEMORY_SANITIZER();
  // Far too little for one slot and one worker of each role: one line, exit 2, nothing made.
  const auto refused = run_command(proofpipe() + " serve --key m=" + quote(multi_io() / "circuit.zkey") +
                                   " --listen 127.0.0.1:0 --state-dir " + quote(tmp_ / "s0") + " --mem-max 4MiB");
  if (refused.output.find("writable memory cgroup") != std::string::npos) GTEST_SKIP() << refused.output;
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--mem-max"), std::string::npos) << refused.output;
  EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1) << refused.output;
  // A budget that fits, under load: three jobs at once.
  constexpr double kMax = 512.0 * 1024 * 1024;
  start({"--mem-max", "512MiB"});
  for (int j = 0; j < 3; ++j) ASSERT_EQ(post_job(job_body(fmt::format("load{}", j), {0, 1, 2, 3}))->status, 201);
  auto c = serve_->client();
  double most = 0, peak = 0;
  for (int j = 0; j < 3; ++j) {
    const std::string id = fmt::format("load{}", j);
    while (json_of(c.Get("/v1/jobs/" + id)).value("state", "") != "done") {
      auto m = c.Get("/metrics");
      ASSERT_TRUE(m);
      std::smatch x;
      if (std::regex_search(m->body, x,
                            std::regex(R"re(proofpipe_memory_bytes\{kind="cgroup",process="service"\} (\S+))re")))
        most = std::max(most, std::stod(x[1]));
      if (std::regex_search(m->body, x,
                            std::regex(R"re(proofpipe_memory_bytes\{kind="cgroup_peak",process="service"\} (\S+))re")))
        peak = std::max(peak, std::stod(x[1]));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_GT(most, 0.0) << "no cgroup figure in /metrics";
  EXPECT_LE(most, kMax);
  EXPECT_LE(peak, kMax);
  EXPECT_NE(serve_->log_text().find("--mem-max 512.00 MiB"), std::string::npos) << serve_->log_text();
}

}  // namespace
}  // namespace proofpipe::test
