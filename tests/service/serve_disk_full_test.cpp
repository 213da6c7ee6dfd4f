// `proofpipe serve` on a state disk that fills up while a job runs: a small
// tmpfs mounted on --state-dir (root only; skipped otherwise). The proofs
// that cannot be stored wait (no failure, no second proof of the same
// partition), /readyz is 503 with the reason, the log says so at most once
// per 10 s, and the job finishes once space returns. On a shared PostgreSQL
// queue the node's writes are its claimed witness copies: it stops claiming
// (backing off instead of claiming and releasing four times a second) and
// says so the same way.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "queue_pg.hpp"
#include "support/pg_nodes.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

using ServeDiskFull = ServeFixture;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Writes `file` until the disk refuses: 1 MiB at a time, then 4 KiB (a page).
void fill(const fs::path& file) {
  std::ofstream out(file, std::ios::binary);
  for (size_t chunk : {size_t{1} << 20, size_t{4096}}) {
    const std::string bytes(chunk, 'f');
    while (out.write(bytes.data(), std::streamsize(bytes.size())) && out.flush()) {
    }
    out.clear();
  }
}

TEST_F(ServeDiskFull, ProofsWaitReadyzSaysWhyAndTheJobFinishesOnceSpaceReturns) {
  const fs::path state = tmp_ / "state";
  fs::create_directory(state);
  if (::mount("tmpfs", state.c_str(), "tmpfs", 0, "size=16m,mode=0700") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs (needs root): " << std::strerror(errno);
  }
  // Lazily, so an early return with the service still up unmounts too.
  struct Unmount {
    fs::path dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{state};
  // One prover, 1.5 s per proof: the disk is full before the first proof lands.
  start({}, {"PROOFPIPE_FAULTS=gpu.after_claim:delay=1500"});
  ASSERT_EQ(post_job(job_body("j", {0, 1, 2}))->status, 201);
  fill(state / "filler");
  auto c = serve_->client();
  std::string why;
  for (auto until = std::chrono::steady_clock::now() + seconds(60); std::chrono::steady_clock::now() < until;) {
    auto r = c.Get("/readyz");
    if (r && r->status == 503 && r->body.find("state disk is full") != std::string::npos) {
      why = r->body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(why.empty()) << serve_->log_text();
  std::this_thread::sleep_for(seconds(4));  // retries go on meanwhile
  const std::string log = serve_->log_text();
  EXPECT_LE(count_of(log, "the state disk is full"), 2u) << "more than one line per 10 s:\n" << log;
  const json while_full = json_of(c.Get("/v1/jobs/j"));
  EXPECT_NE(while_full.value("state", ""), "failed") << while_full.dump();

  fs::remove(state / "filler");
  const json done = wait_job(c, "j", seconds(120));
  ASSERT_EQ(done.value("state", ""), "done") << done.dump() << serve_->log_text();
  for (const json& p : done["partitions"]) {
    EXPECT_EQ(p.value("attempts", 0), 1) << "proved again: " << p.dump();
  }
  EXPECT_EQ(c.Get("/readyz")->status, 200);
  EXPECT_EQ(c.Get("/v1/jobs/j/proofs/w00")->status, 200);

  serve_->signal(SIGTERM);
  EXPECT_EQ(serve_->wait(seconds(60)), 0) << serve_->log_text();
  serve_.reset();
}

// A tmpfs of `size` on `dir` (made), unmounted when it goes; `ok` false
// when it cannot be mounted (not root).
struct Tmpfs {
  Tmpfs(const fs::path& d, const char* size) : dir(d) {
    fs::create_directories(dir);
    ok = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, (std::string("mode=0700,size=") + size).c_str()) == 0;
  }
  ~Tmpfs() {
    if (ok) ::umount2(dir.c_str(), MNT_DETACH);
  }
  fs::path dir;
  bool ok = false;
};

using PgDiskFull = PgNodes;

TEST_F(PgDiskFull, ANodeWhoseDiskIsFullStopsClaimingSaysWhyAndResumes) {
  Tmpfs state(tmp_ / "node0", "16m");
  if (!state.ok) GTEST_SKIP() << "cannot mount a tmpfs (needs root): " << std::strerror(errno);
  start_nodes(1);
  auto c = node(0).client();
  ASSERT_TRUE(eventually([&] { return c.Get("/readyz")->status == 200; }, seconds(30)));
  // The disk fills while the node is idle; the job reaches the shared queue
  // through another node's intake (here the queue's own submit).
  fill(state.dir / "filler");
  service::PgQueueConfig cfg{cluster_->url(), "submitter", 30, 3, tmp_ / "submitter"};
  auto queue = service::PgQueue::open(cfg);
  ASSERT_TRUE(queue.is_ok()) << queue.status().to_string();
  service::JobSpec spec{"j", "m", 0, "d-j", {}};
  for (int i = 0; i < 4; ++i) spec.witnesses.push_back({fmt::format("w{:02}", i), wtns(i)});
  ASSERT_TRUE((*queue)->submit(spec, 1).is_ok());
  ASSERT_TRUE(eventually(
      [&] {
        auto r = c.Get("/readyz");
        return r && r->status == 503 && r->body.find("state disk is full") != std::string::npos;
      },
      seconds(60)))
      << dump();
  const int64_t released = sql("SELECT count(*) FROM attempts WHERE result = 'released'");
  std::this_thread::sleep_for(seconds(5));
  const std::string log = node(0).log_text();
  EXPECT_LE(count_of(log, "the state disk is full"), 2u) << "more than one line per 10 s:\n" << log;
  // Backing off from 0.25 s: a handful of claims in 5 s, not 20 (each
  // claim of the window's partitions, released, is one row per partition).
  EXPECT_LE(sql("SELECT count(*) FROM attempts WHERE result = 'released'") - released, 4 * 6) << dump();
  EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE status = 'failed'"), 0);
  EXPECT_EQ(sql("SELECT max(attempts) FROM partitions"), 0) << "a claim given back is not an attempt";

  fs::remove(state.dir / "filler");
  ASSERT_TRUE(eventually([&] { return sql("SELECT count(*) FROM jobs WHERE state = 'done'") == 1; }, seconds(120)))
      << dump();
  expect_one_verified_proof_each(0, 4);
  EXPECT_TRUE(eventually([&] { return c.Get("/readyz")->status == 200; }, seconds(10)));
}

}  // namespace
}  // namespace proofpipe::test
