// The journal under `kill -9`: a child process opens it and works like a
// service (submits jobs, starts, fails and finishes attempts, cancels), writing
// one line to a pipe AFTER each call returned; the test SIGKILLs it at a
// random moment, reopens the journal and checks that it is intact and that
// every acknowledged write is there. Several lives, then one that finishes
// every job. A kill lands a random 0-3 ms after the child's N-th
// acknowledgement (N random), wherever that is: inside a transaction, between
// two, in open(). The seed (PP_TEST_SEED) replays the choices and N; the
// delay is wall-clock, so a replay kills near, not at, the same instruction.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "journal_support.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::service;

constexpr int kKills = 6;
// Counted in acknowledged calls, not time: the same on a loaded 2-core CI
// box as on an idle one. 0 kills a life before (or while) it opens the journal.
constexpr int kMaxAcksBeforeKill = 40;
constexpr int kMaxKillDelayUs = 3000;  // a call takes ~0.5-5 ms here

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// The child: one life of a service. Never returns to GoogleTest.
[[noreturn]] void child_life(const fs::path& file, int out_fd, uint64_t seed, int life, bool finish) {
  std::mt19937_64 rng(seed);
  auto say = [&](const std::string& line) {
    const std::string l = line + "\n";  // < PIPE_BUF: one atomic write
    if (::write(out_fd, l.data(), l.size()) != ssize_t(l.size())) ::_exit(4);
  };
  auto fail = [&](const std::string& what, const Status& st) {
    say("ERR " + what + ": " + st.to_string());
    ::_exit(3);
  };
  auto j = SqliteJournal::open(file);
  if (!j.is_ok()) fail("open", j.status());
  SqliteJournal& q = **j;
  for (int made = 0;;) {
    // A life that is not the last submits until it is killed.
    if (!finish && rng() % 3 == 0) {
      const std::string id = "life" + std::to_string(life) + "-" + std::to_string(made++);
      const size_t n = 1 + rng() % 4;
      auto r = q.submit(make_spec(id, n, int64_t(rng() % 3)), now_s());
      if (!r.is_ok() || r->outcome != SubmitOutcome::kCreated) fail("submit " + id, r.status());
      say("S " + id + " " + std::to_string(n));
    }
    auto items = q.unfinished();
    if (!items.is_ok()) fail("unfinished", items.status());
    if (items->empty()) {
      if (finish) ::_exit(0);
      continue;
    }
    const WorkItem w = (*items)[rng() % std::min<size_t>(items->size(), 3)];
    const std::string part = w.job_id + " " + std::to_string(w.index);
    auto a = q.attempt_started(w.job_seq, w.index, now_s());
    if (!a.is_ok()) fail("attempt_started " + part, a.status());
    say("A " + part + " " + std::to_string(*a));
    const uint64_t roll = rng() % 100;
    if (roll < 25) {
      if (Status st = q.attempt_failed(w.job_seq, w.index, "worker died", now_s()); !st.is_ok()) fail("failed", st);
      say("X " + part + " " + std::to_string(*a));
    } else if (roll < 30) {
      if (Status st = q.partition_failed(w.job_seq, w.index, "bad", now_s()); !st.is_ok()) fail("part failed", st);
      say("F " + part);
    } else {
      if (Status st = q.partition_done(w.job_seq, w.index, {}, now_s()); !st.is_ok()) fail("done " + part, st);
      say("D " + part);
    }
    if (rng() % 25 == 0) {
      auto c = q.cancel(w.job_id, now_s());
      if (!c.is_ok() || !c->has_value()) fail("cancel " + w.job_id, c.status());
      say(std::string("C ") + w.job_id + " " + job_state_name((*c)->state));
    }
  }
}

struct Kill {
  int after_acks = -1;  // < 0: let the child finish
  int delay_us = 0;
};

// Runs one life; returns the lines it acknowledged.
std::vector<std::string> run_life(const fs::path& file, uint64_t seed, int life, Kill kill, int* exit_code) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    child_life(file, fds[1], seed, life, kill.after_acks < 0);
  }
  ::close(fds[1]);
  std::string got;
  bool killed = false;
  auto kill_child = [&] {
    ::usleep(useconds_t(kill.delay_us));
    ::kill(pid, SIGKILL);
    killed = true;
  };
  if (kill.after_acks == 0) kill_child();
  for (;;) {
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is gone (killed or finished)
    got.append(buf, size_t(n));
    if (!killed && kill.after_acks > 0 && std::count(got.begin(), got.end(), '\n') >= kill.after_acks) kill_child();
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::vector<std::string> lines;
  std::istringstream in(got);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// Every acknowledged write is in the reopened journal.
void verify(SqliteJournal& q, const std::vector<std::string>& acks) {
  for (const std::string& line : acks) {
    SCOPED_TRACE(line);
    std::istringstream in(line);
    std::string op, id;
    in >> op >> id;
    ASSERT_NE(op, "ERR");
    auto job = q.get(id);
    ASSERT_TRUE(job.is_ok() && job->has_value());
    const Job& jb = **job;
    uint32_t idx = 0, n = 0;
    if (op == "S") {
      in >> n;
      EXPECT_EQ(jb.total, n);
    } else if (op == "A" || op == "X") {
      in >> idx >> n;
      const auto att = q.attempts(id).value();
      const auto it = std::find_if(att.begin(), att.end(),
                                   [&](const AttemptRecord& a) { return a.index == idx && a.attempt == n; });
      ASSERT_NE(it, att.end());
      if (op == "X") {
        EXPECT_EQ(it->result, "failed");
      }
    } else if (op == "D") {
      in >> idx;
      EXPECT_EQ(jb.partitions.at(idx).status, PartStatus::kDone);
    } else if (op == "F") {
      in >> idx;  // a later cancel turns a failed partition into a cancelled one
      const PartStatus s = jb.partitions.at(idx).status;
      EXPECT_TRUE(s == PartStatus::kFailed || s == PartStatus::kCancelled) << part_status_name(s);
    } else if (op == "C") {
      std::string state;
      in >> state;
      EXPECT_EQ(job_state_name(jb.state), state);
    } else {
      ADD_FAILURE() << "unknown line";
    }
  }
}

TEST(JournalCrash, EveryAcknowledgedWriteSurvivesSigkill) {
  PP_SEEDED_RNG(rng);
  TempDir dir;
  const fs::path file = dir / "journal.db";
  std::vector<std::string> acks;
  for (int life = 1; life <= kKills + 1; ++life) {
    const bool last = life == kKills + 1;
    Kill kill;
    if (!last) {
      // The first life always leaves work behind for the others.
      kill.after_acks = std::uniform_int_distribution<int>(life == 1 ? 10 : 0, kMaxAcksBeforeKill)(rng);
      kill.delay_us = std::uniform_int_distribution<int>(0, kMaxKillDelayUs)(rng);
    }
    int code = -1;
    const auto lines = run_life(file, rng(), life, kill, &code);
    std::printf(
        "[ life     ] %d: %zu calls acknowledged, %s\n", life, lines.size(),
        last ? "let finish" : fmt::format("SIGKILL {} us after call {}", kill.delay_us, kill.after_acks).c_str());
    acks.insert(acks.end(), lines.begin(), lines.end());
    if (last) {
      EXPECT_EQ(code, 0) << (lines.empty() ? "" : lines.back());
    }
    auto q = open_journal(file);
    ASSERT_TRUE(q);
    Status st = q->check_integrity();
    ASSERT_TRUE(st.is_ok()) << "life " << life << ": " << st.to_string();
    verify(*q, acks);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
  // The last life finished everything: no job is left queued or running.
  auto q = open_journal(file);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->unfinished()->empty());
  const auto jobs = q->list(std::nullopt, 1000).value();
  for (const Job& jb : jobs) {
    EXPECT_TRUE(jb.state == JobState::kDone || jb.state == JobState::kFailed || jb.state == JobState::kCancelled)
        << jb.id << " is " << job_state_name(jb.state);
  }
  EXPECT_GE(acks.size(), 10u) << "too little work to say anything";
}

}  // namespace
}  // namespace proofpipe::test
