// The SQLite job journal (service/src/journal_sqlite.hpp): the file's safety
// (mode, links, FIFOs, foreign and newer files), every JobQueue call and state
// transition of job_queue.hpp, idempotent submits, list and unfinished()
// order, cancel semantics, restarts (lost attempts, attempt numbers that keep
// counting) and the integrity audit catching a broken journal.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>

#include "journal_support.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::service;

class Journal : public ::testing::Test {
 protected:
  TempDir dir;
  fs::path file = dir / "journal.db";
  std::unique_ptr<SqliteJournal> j = open_journal(file);

  Job get(const std::string& id) {
    auto r = j->get(id);
    EXPECT_TRUE(r.is_ok() && r->has_value()) << id;
    return r.is_ok() && r->has_value() ? **r : Job{};
  }
  uint64_t submit(const JobSpec& s, double now = 100) {
    auto r = j->submit(s, now);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? r->job.seq : 0;
  }
  void expect_integrity() {
    Status st = j->check_integrity();
    EXPECT_TRUE(st.is_ok()) << st.to_string();
  }
};

void expect_one_line(const Status& s, ErrorCode code, const std::string& needle) {
  ASSERT_FALSE(s.is_ok()) << "expected: " << needle;
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST_F(Journal, FileIsOwnerOnlyWalAndEachOpenIsANewLife) {
  ASSERT_TRUE(j);
  submit(make_spec("a", 1));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((file.string() + "-wal").c_str(), &st), 0) << "WAL mode keeps a -wal file while open";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(j->life(), 1u);
  j.reset();
  ::chmod(file.c_str(), 0644);  // loosened by hand: tightened again on open
  j = open_journal(file);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->life(), 2u);
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(get("a").partitions.size(), 1u);
}

TEST_F(Journal, RefusesALinkFifoOrDirectoryAtThePath) {
  const fs::path target = dir / "elsewhere";
  { std::ofstream(target) << "not yours"; }
  const fs::path link = dir / "link.db";
  fs::create_symlink(target, link);
  auto r = SqliteJournal::open(link);
  expect_one_line(r.status(), ErrorCode::kInvalidArgument, "'" + link.string() + "' is a symbolic link");
  EXPECT_EQ(fs::file_size(target), 9u) << "the link's target is never written";

  const fs::path fifo = dir / "fifo.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line(SqliteJournal::open(fifo).status(), ErrorCode::kInvalidArgument, "is a FIFO, not a regular file");

  fs::create_directory(dir / "d.db");
  expect_one_line(SqliteJournal::open(dir / "d.db").status(), ErrorCode::kInvalidArgument, "is a directory");

  expect_one_line(SqliteJournal::open(dir / "no-such-dir" / "j.db").status(), ErrorCode::kIo,
                  "no-such-dir/j.db': No such file or directory");

  // A link planted at the WAL's name is refused too.
  const fs::path db2 = dir / "j2.db";
  fs::create_symlink(target, db2.string() + "-wal");
  expect_one_line(SqliteJournal::open(db2).status(), ErrorCode::kInvalidArgument, "-wal' is a symbolic link");
}

TEST_F(Journal, RefusesForeignAndNewerFiles) {
  j->submit(make_spec("a", 1), 1).value();
  j.reset();
  ASSERT_EQ(raw_sql(file, "UPDATE schema_version SET version = 7"), "");
  auto r = SqliteJournal::open(file);
  expect_one_line(r.status(), ErrorCode::kBadFormat, file.string());
  EXPECT_NE(r.status().message().find("schema version 7"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(fmt::format("version {} this proofpipe reads", SqliteJournal::kSchemaVersion)),
            std::string::npos)
      << r.status().message();
  // ... and left as it was: a newer proofpipe can still read it.
  ASSERT_EQ(raw_sql(file, fmt::format("UPDATE schema_version SET version = {}", SqliteJournal::kSchemaVersion)), "");
  EXPECT_TRUE(SqliteJournal::open(file).is_ok());

  const fs::path garbage = dir / "garbage.db";
  { std::ofstream(garbage) << std::string(4096, 'x'); }
  expect_one_line(SqliteJournal::open(garbage).status(), ErrorCode::kBadFormat, "is not an SQLite database");

  const fs::path other = dir / "other.db";
  ASSERT_EQ(raw_sql(other, "CREATE TABLE t (x)"), "");
  expect_one_line(SqliteJournal::open(other).status(), ErrorCode::kBadFormat, "not a proofpipe journal");
}

// A journal missing a table or a column this version uses is refused at
// open, one line naming the file and what is missing: not found later as a
// failing read or submit while the service says it is ready.
TEST_F(Journal, RefusesADroppedTableOrColumnAtOpen) {
  j->submit(make_spec("a", 1), 1).value();
  j.reset();
  const fs::path copy = dir / "copy.db";
  fs::copy_file(file, copy);
  ASSERT_EQ(raw_sql(file, "DROP TABLE attempts"), "");
  auto r = SqliteJournal::open(file);
  expect_one_line(r.status(), ErrorCode::kBadFormat, file.string());
  EXPECT_NE(r.status().message().find("no table 'attempts'"), std::string::npos) << r.status().message();

  ASSERT_EQ(raw_sql(copy, "ALTER TABLE partitions DROP COLUMN last_error"), "");
  r = SqliteJournal::open(copy);
  expect_one_line(r.status(), ErrorCode::kBadFormat, copy.string());
  EXPECT_NE(r.status().message().find("'partitions' has no column 'last_error'"), std::string::npos)
      << r.status().message();
}

// A damaged page (a bad disk, a torn copy) is found at open by quick_check:
// one line naming the file, and nothing is written to it.
TEST_F(Journal, RefusesADamagedPageAtOpen) {
  // Enough jobs for the jobs and partitions tables to span many pages.
  for (int i = 0; i < 400; ++i) submit(make_spec(fmt::format("job-{:04}", i), 4, 0, fmt::format("d{}", i)));
  j.reset();
  ASSERT_FALSE(fs::exists(file.string() + "-wal")) << "the last close checkpoints the log";
  const auto size = fs::file_size(file);
  ASSERT_GE(size, 16u * 4096) << "too few pages to damage one in the middle";
  {
    // One page in the middle, past page 1 (the schema), overwritten.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff((size / 4096 / 2) * 4096));
    const std::string junk(4096, '\xA5');
    f.write(junk.data(), std::streamsize(junk.size()));
  }
  const std::string damaged = [&] {
    std::ifstream f(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  auto r = SqliteJournal::open(file);
  expect_one_line(r.status(), ErrorCode::kBadFormat, file.string());
  EXPECT_NE(r.status().message().find("damaged"), std::string::npos) << r.status().message();
  const std::string after = [&] {
    std::ifstream f(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  EXPECT_TRUE(after == damaged) << "the refused journal was written to";
}

// Damage inside an index (its keys changed, its pages still well
// formed) passes quick_check, and a lookup by id then misses a job that is
// there. The open cross-checks every index against its table.
TEST_F(Journal, RefusesIndexOnlyDamageAtOpen) {
  for (int i = 0; i < 400; ++i) submit(make_spec(fmt::format("job-{:04}", i), 4, 0, fmt::format("d{}", i)));
  j.reset();
  ASSERT_FALSE(fs::exists(file.string() + "-wal")) << "the last close checkpoints the log";
  std::string bytes = [&] {
    std::ifstream f(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  // The index on jobs.id (UNIQUE) is the only index whose leaf pages (type
  // 0x0a) hold the ids' text: the jobs table's own leaves are type 0x0d.
  // One id there gets a changed character.
  constexpr size_t kPage = 4096;
  size_t at = std::string::npos;
  for (size_t page = 1; page < bytes.size() / kPage && at == std::string::npos; ++page) {
    if (bytes[page * kPage] != '\x0a') continue;
    const size_t hit = bytes.find("job-02", page * kPage);
    if (hit < (page + 1) * kPage) at = hit;
  }
  ASSERT_NE(at, std::string::npos) << "no index leaf page holds a job id";
  bytes[at + 7] = bytes[at + 7] == '5' ? '6' : '5';
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
  // Index-only: SQLite's quick_check finds nothing wrong.
  std::string quick;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, nullptr), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW) quick = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  ASSERT_EQ(quick, "ok") << "the damage was not index-only";
  auto r = SqliteJournal::open(file);
  expect_one_line(r.status(), ErrorCode::kBadFormat, file.string());
  EXPECT_NE(r.status().message().find("damaged"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("index"), std::string::npos) << r.status().message();
}

TEST_F(Journal, SubmitIsIdempotentByDigest) {
  auto a = j->submit(make_spec("a", 3, 5, "digest-1"), 100);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->outcome, SubmitOutcome::kCreated);
  EXPECT_EQ(a->job.id, "a");
  EXPECT_EQ(a->job.key, "k");
  EXPECT_EQ(a->job.priority, 5);
  EXPECT_EQ(a->job.state, JobState::kQueued);
  EXPECT_EQ(a->job.submitted_at, 100);
  EXPECT_EQ(a->job.total, 3u);
  ASSERT_EQ(a->job.partitions.size(), 3u);
  EXPECT_EQ(a->job.partitions[2].name, "w2");
  EXPECT_EQ(a->job.partitions[2].witness, "/state/witnesses/stage-x/w2.wtns");
  EXPECT_EQ(a->job.partitions[2].status, PartStatus::kQueued);

  auto again = j->submit(make_spec("a", 3, 5, "digest-1"), 200);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->outcome, SubmitOutcome::kExisting);
  EXPECT_EQ(again->job.seq, a->job.seq);
  EXPECT_EQ(again->job.submitted_at, 100);

  auto other = j->submit(make_spec("a", 1, 0, "digest-2"), 300);
  ASSERT_TRUE(other.is_ok());
  EXPECT_EQ(other->outcome, SubmitOutcome::kConflict);
  EXPECT_EQ(other->job.digest, "digest-1") << "the job already under that id";
  auto all = j->list(std::nullopt, 100);
  ASSERT_TRUE(all.is_ok());
  ASSERT_EQ(all->size(), 1u) << "nothing was written";
  EXPECT_EQ((*all)[0].total, 3u);

  EXPECT_FALSE(j->get("nope")->has_value());
  EXPECT_EQ(j->submit(make_spec("", 1), 1).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(j->submit(make_spec("empty", 0), 1).status().code(), ErrorCode::kInvalidArgument);
  expect_integrity();
}

TEST_F(Journal, ListsNewestFirstByState) {
  for (int i = 0; i < 5; ++i) submit(make_spec("j" + std::to_string(i), 1));
  const uint64_t s1 = get("j1").seq;
  ASSERT_EQ(*j->attempt_started(s1, 0, 110), 1u);
  ASSERT_TRUE(j->partition_done(s1, 0, {}, 120).is_ok());
  ASSERT_TRUE(j->cancel("j3", 130)->has_value());
  auto ids = [&](std::optional<JobState> st, size_t limit) {
    std::vector<std::string> out;
    const auto jobs = j->list(st, limit).value();  // held: a range-for over value() of a temporary dangles
    for (const Job& job : jobs) {
      EXPECT_TRUE(job.partitions.empty());
      out.push_back(job.id);
    }
    return out;
  };
  EXPECT_EQ(ids(std::nullopt, 100), (std::vector<std::string>{"j4", "j3", "j2", "j1", "j0"}));
  EXPECT_EQ(ids(std::nullopt, 2), (std::vector<std::string>{"j4", "j3"}));
  EXPECT_EQ(ids(JobState::kQueued, 100), (std::vector<std::string>{"j4", "j2", "j0"}));
  EXPECT_EQ(ids(JobState::kDone, 100), (std::vector<std::string>{"j1"}));
  EXPECT_EQ(ids(JobState::kCancelled, 100), (std::vector<std::string>{"j3"}));
  EXPECT_TRUE(ids(JobState::kRunning, 100).empty());
  const Job listed = j->list(JobState::kDone, 1).value()[0];
  EXPECT_EQ(listed.total, 1u);
  EXPECT_EQ(listed.done, 1u);
}

TEST_F(Journal, AttemptsRetriesAndTheJobsEnd) {
  const uint64_t seq = submit(make_spec("a", 2), 100);
  EXPECT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  Job job = get("a");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.started_at, 110);
  EXPECT_EQ(job.partitions[0].status, PartStatus::kRunning);
  EXPECT_EQ(job.partitions[0].started_at, 110);
  ASSERT_TRUE(j->attempt_failed(seq, 0, "worker died", 115).is_ok());
  job = get("a");
  EXPECT_EQ(job.partitions[0].status, PartStatus::kQueued);
  EXPECT_EQ(job.partitions[0].last_error, "worker died");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(*j->attempt_started(seq, 0, 120), 2u);
  const PartTimes t = part_times(1, 2, 3, {4, 5, 6});
  ASSERT_TRUE(j->partition_done(seq, 0, t, 130).is_ok());
  job = get("a");
  EXPECT_EQ(job.partitions[0].status, PartStatus::kDone);
  EXPECT_EQ(job.partitions[0].attempts, 2u);
  EXPECT_EQ(job.partitions[0].started_at, 110) << "the first attempt's start";
  EXPECT_EQ(job.partitions[0].finished_at, 130);
  EXPECT_EQ(job.partitions[0].times.wait_s, 1);
  EXPECT_EQ(job.partitions[0].times.stages.msms_s, 6);
  EXPECT_EQ(job.state, JobState::kRunning) << "partition 1 is still queued";
  EXPECT_EQ(job.done, 1u);
  EXPECT_EQ(*j->attempt_started(seq, 1, 140), 1u);
  ASSERT_TRUE(j->partition_done(seq, 1, t, 150).is_ok());
  job = get("a");
  EXPECT_EQ(job.state, JobState::kDone);
  EXPECT_EQ(job.finished_at, 150);
  EXPECT_EQ(job.done, 2u);

  const auto att = j->attempts("a").value();
  ASSERT_EQ(att.size(), 3u);
  EXPECT_EQ(att[0].result, "failed");
  EXPECT_EQ(att[0].error, "worker died");
  EXPECT_EQ(att[0].ended_at, 115);
  EXPECT_EQ(att[1].result, "done");
  EXPECT_EQ(att[1].attempt, 2u);
  EXPECT_EQ(att[2].index, 1u);
  EXPECT_EQ(j->attempts("nope").status().code(), ErrorCode::kNotFound);
  expect_integrity();
}

TEST_F(Journal, AFailedPartitionFailsTheJobOnceTheRestEnd) {
  const uint64_t seq = submit(make_spec("a", 3));
  ASSERT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  ASSERT_TRUE(j->partition_failed(seq, 0, "out of attempts", 111).is_ok());
  // Bad input found before any attempt: failed straight from queued.
  ASSERT_TRUE(j->partition_failed(seq, 1, "w[3] is not below r", 112).is_ok());
  Job job = get("a");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.failed, 2u);
  EXPECT_EQ(job.partitions[1].last_error, "w[3] is not below r");
  ASSERT_EQ(*j->attempt_started(seq, 2, 113), 1u);
  ASSERT_TRUE(j->partition_done(seq, 2, {}, 114).is_ok());
  job = get("a");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.finished_at, 114);
  EXPECT_EQ(j->attempts("a").value()[0].result, "failed");

  // A job that never started can fail too (every witness bad).
  const uint64_t b = submit(make_spec("b", 1));
  ASSERT_TRUE(j->partition_failed(b, 0, "bad", 120).is_ok());
  EXPECT_EQ(get("b").state, JobState::kFailed);
  EXPECT_EQ(get("b").started_at, 0);
  expect_integrity();
}

TEST_F(Journal, TheEngineCannotRestartOrRedoAnEndedPartition) {
  const uint64_t seq = submit(make_spec("a", 3));
  const auto internal = [](const Status& s, const std::string& needle) {
    expect_one_line(s, ErrorCode::kInternal, needle);
  };
  internal(j->attempt_failed(seq, 0, "x", 1), "has no attempt open");
  internal(j->partition_done(seq, 0, {}, 1), "has no attempt open");
  ASSERT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  ASSERT_TRUE(j->partition_done(seq, 0, {}, 120).is_ok());
  internal(j->attempt_started(seq, 0, 130).status(), "attempt_started on partition 'w0' of job 'a', which is done");
  internal(j->partition_done(seq, 0, {}, 130), "is already done");
  internal(j->partition_failed(seq, 0, "x", 130), "which is done");
  ASSERT_TRUE(j->partition_failed(seq, 1, "bad", 131).is_ok());
  internal(j->attempt_started(seq, 1, 132).status(), "which is failed");
  internal(j->attempt_started(seq, 7, 132).status(), "no partition 7");
  internal(j->attempt_started(999, 0, 132).status(), "no partition 0 of job #999");
  // An attempt started over one never reported: the old one is lost.
  ASSERT_EQ(*j->attempt_started(seq, 2, 140), 1u);
  ASSERT_EQ(*j->attempt_started(seq, 2, 141), 2u);
  const auto att = j->attempts("a").value();
  ASSERT_EQ(att.size(), 3u);
  EXPECT_EQ(att[1].result, "lost");
  EXPECT_EQ(att[2].result, "running");
  expect_integrity();
}

TEST_F(Journal, CancelEndsTheJobAndALateProofStillCounts) {
  const uint64_t seq = submit(make_spec("a", 4));
  ASSERT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  ASSERT_TRUE(j->partition_done(seq, 0, {}, 111).is_ok());
  ASSERT_EQ(*j->attempt_started(seq, 1, 112), 1u);  // in flight at the cancel
  ASSERT_EQ(*j->attempt_started(seq, 2, 113), 1u);  // in flight, will fail
  auto c = j->cancel("a", 120);
  ASSERT_TRUE(c.is_ok() && c->has_value());
  const Job& job = **c;
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.finished_at, 120);
  EXPECT_EQ(job.partitions[0].status, PartStatus::kDone) << "a proof made before the cancel stays";
  EXPECT_EQ(job.partitions[1].status, PartStatus::kCancelled);
  EXPECT_EQ(job.partitions[3].status, PartStatus::kCancelled);
  EXPECT_EQ(job.cancelled, 3u);
  EXPECT_TRUE(j->unfinished()->empty());
  EXPECT_TRUE(j->job_work("a")->empty());
  EXPECT_EQ(j->attempt_started(seq, 3, 121).status().code(), ErrorCode::kInternal) << "none dispatched after";
  // The proofs in flight land: one counts, one fails; the job stays cancelled.
  ASSERT_TRUE(j->partition_done(seq, 1, {}, 122).is_ok());
  ASSERT_TRUE(j->attempt_failed(seq, 2, "late", 123).is_ok());
  Job after = get("a");
  EXPECT_EQ(after.state, JobState::kCancelled);
  EXPECT_EQ(after.partitions[1].status, PartStatus::kDone);
  EXPECT_EQ(after.partitions[2].status, PartStatus::kCancelled);
  EXPECT_EQ(after.partitions[2].last_error, "late");
  EXPECT_EQ(after.done, 2u);
  EXPECT_EQ(after.cancelled, 2u);
  EXPECT_EQ(after.finished_at, 120);
  // Cancelling again, or an ended job, changes nothing.
  auto again = j->cancel("a", 200);
  ASSERT_TRUE(again.is_ok() && again->has_value());
  EXPECT_EQ((*again)->finished_at, 120);
  const uint64_t b = submit(make_spec("b", 1));
  ASSERT_EQ(*j->attempt_started(b, 0, 130), 1u);
  ASSERT_TRUE(j->partition_done(b, 0, {}, 131).is_ok());
  auto ended = j->cancel("b", 140);
  ASSERT_TRUE(ended.is_ok() && ended->has_value());
  EXPECT_EQ((*ended)->state, JobState::kDone);
  EXPECT_EQ((*ended)->partitions[0].status, PartStatus::kDone);
  auto none = j->cancel("nope", 140);
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none->has_value());
  expect_integrity();
}

TEST_F(Journal, ExpireRemovesJobsThatEndedBeforeTheCutWithTheirProofs) {
  submit(make_spec("old", 2));
  submit(make_spec("new", 1));
  submit(make_spec("open", 1));
  auto items = j->claim({{"k"}, 10}, 101);
  ASSERT_TRUE(items.is_ok()) << items.status().to_string();
  ASSERT_EQ(items->size(), 4u);
  const ProofFiles proof{R"({"pi_a":["1"]})", R"(["7"])"};
  const uint64_t one = proof.proof_json.size() + proof.public_json.size();
  for (const WorkItem& w : *items) {
    if (w.job_id == "open") continue;
    const double at = w.job_id == "old" ? 110 : 200;
    ASSERT_TRUE(j->start_attempt({w.job_seq, w.index, w.fence}, at).is_ok());
    ASSERT_TRUE(j->commit({w.job_seq, w.index, w.fence}, {}, proof, at).is_ok());
  }
  ASSERT_EQ(get("old").state, JobState::kDone);
  auto bytes = j->stored_bytes();
  ASSERT_TRUE(bytes.is_ok());
  EXPECT_EQ(bytes->proofs, 3 * one);
  EXPECT_GT(bytes->journal, 0u);
  ASSERT_TRUE(fs::exists(dir / "proofs" / "old" / "w0.proof.json"));

  // Only "old" ended before 150: its rows and files go, the rest stays.
  auto n = j->expire(150, 100);
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_EQ(*n, 1u);
  auto gone = j->get("old");
  ASSERT_TRUE(gone.is_ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_FALSE(fs::exists(dir / "proofs" / "old"));
  EXPECT_EQ(j->stored_bytes()->proofs, one);
  auto kept = j->read_proof("new", "w0");
  ASSERT_TRUE(kept.is_ok() && kept->has_value());
  EXPECT_EQ((*kept)->proof_json, proof.proof_json);

  // A job not yet ended is never removed, whatever the cut; "new" goes.
  EXPECT_EQ(*j->expire(1e12, 100), 1u);
  EXPECT_EQ(get("open").state, JobState::kQueued);  // claimed, not yet started
  EXPECT_EQ(*j->expire(1e12, 100), 0u);
  EXPECT_EQ(j->stored_bytes()->proofs, 0u);
  // A removed id is unknown: a submit under it is a new job.
  auto again = j->submit(make_spec("old", 1), 300);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->outcome, SubmitOutcome::kCreated);
  expect_integrity();
  // Counted again from the files at the next open.
  j.reset();
  j = open_journal(file);
  EXPECT_EQ(j->stored_bytes()->proofs, 0u);
}

TEST_F(Journal, ExpireNeverRemovesThroughALinkPlantedAtAJobsProofFolder) {
  submit(make_spec("planted", 1));
  auto items = j->claim({{"k"}, 10}, 101);
  ASSERT_TRUE(items.is_ok() && items->size() == 1u);
  const WorkItem& w = (*items)[0];
  ASSERT_TRUE(j->start_attempt({w.job_seq, w.index, w.fence}, 110).is_ok());
  ASSERT_TRUE(j->commit({w.job_seq, w.index, w.fence}, {}, {"{}", "[]"}, 110).is_ok());
  // Its folder swapped for a link to a folder holding files of the same names.
  const fs::path elsewhere = dir / "elsewhere";
  fs::create_directory(elsewhere);
  std::ofstream(elsewhere / "w0.proof.json") << "not ours";
  std::ofstream(elsewhere / "w0.public.json") << "not ours";
  fs::remove_all(dir / "proofs" / "planted");
  fs::create_directory_symlink(elsewhere, dir / "proofs" / "planted");
  EXPECT_EQ(*j->expire(1e12, 10), 1u);
  EXPECT_TRUE(fs::exists(elsewhere / "w0.proof.json"));
  EXPECT_TRUE(fs::exists(elsewhere / "w0.public.json"));
}

TEST_F(Journal, ExpireTakesAtMostTheBatchOldestFirst) {
  for (const char* id : {"a", "b", "c"}) submit(make_spec(id, 1));
  double at = 110;
  for (const char* id : {"c", "a", "b"}) ASSERT_TRUE(j->cancel(id, at += 10).is_ok());  // ended in this order
  EXPECT_EQ(*j->expire(1000, 2), 2u);
  auto b = j->get("b");
  ASSERT_TRUE(b.is_ok());
  EXPECT_TRUE(b->has_value()) << "the last to end is the one left";
  EXPECT_FALSE(j->get("c")->has_value());
  expect_integrity();
}

TEST_F(Journal, UnfinishedIsByPriorityThenAgeThenIndex) {
  submit(make_spec("low-old", 2, 0));
  submit(make_spec("high-old", 2, 5));
  submit(make_spec("low-new", 1, 0));
  submit(make_spec("high-new", 1, 5));
  submit(make_spec("urgent", 1, 9));
  const uint64_t hs = get("high-old").seq;
  ASSERT_EQ(*j->attempt_started(hs, 0, 110), 1u);
  ASSERT_TRUE(j->partition_done(hs, 0, {}, 111).is_ok());
  ASSERT_TRUE(j->cancel("low-new", 112)->has_value());
  const auto work = j->unfinished().value();
  std::vector<std::string> order;
  order.reserve(work.size());
  for (const WorkItem& w : work) order.push_back(w.job_id + "/" + std::to_string(w.index));
  EXPECT_EQ(order, (std::vector<std::string>{"urgent/0", "high-old/1", "high-new/0", "low-old/0", "low-old/1"}));
  const auto items = j->job_work("low-old").value();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].name, "w1");
  EXPECT_EQ(items[1].witness, "/state/witnesses/stage-x/w1.wtns");
  EXPECT_EQ(items[1].key, "k");
  EXPECT_EQ(items[1].submitted_at, 100);
  EXPECT_EQ(j->job_work("nope").status().code(), ErrorCode::kNotFound);
}

TEST_F(Journal, ARestartRequeuesWhatTheLastLifeLeftRunning) {
  const uint64_t seq = submit(make_spec("a", 3));
  ASSERT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  ASSERT_EQ(*j->attempt_started(seq, 1, 111), 1u);
  ASSERT_TRUE(j->partition_done(seq, 1, {}, 112).is_ok());
  // Within one life, unfinished() lists a running partition but leaves it running.
  EXPECT_EQ(j->unfinished()->size(), 2u);
  EXPECT_EQ(get("a").partitions[0].status, PartStatus::kRunning);
  j.reset();  // the service dies with partition 0 in flight
  j = open_journal(file);
  ASSERT_TRUE(j);
  expect_integrity();  // consistent even before the requeue
  const auto items = j->unfinished().value();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].index, 0u);
  EXPECT_EQ(items[1].index, 2u);
  EXPECT_EQ(get("a").partitions[0].status, PartStatus::kQueued);
  EXPECT_EQ(get("a").state, JobState::kRunning);
  auto att = j->attempts("a").value();
  EXPECT_EQ(att[0].result, "lost");
  EXPECT_EQ(att[0].life, 1u);
  EXPECT_EQ(att[0].ended_at, 0) << "when it died is unknown";
  EXPECT_EQ(*j->attempt_started(seq, 0, 200), 2u) << "attempt numbers count across lives";
  att = j->attempts("a").value();  // by partition, then attempt
  ASSERT_EQ(att.size(), 3u);
  EXPECT_EQ(att[1].attempt, 2u);
  EXPECT_EQ(att[1].life, 2u);
  expect_integrity();
}

// What the start-up sweep keeps: the copies of jobs that may still run. A
// cancelled, done or failed job's copies are nobody's (a client submitting
// and cancelling must not fill the disk across restarts).
TEST_F(Journal, WitnessDirsNameOnlyJobsNotYetEnded) {
  auto in_dir = [](const std::string& id, const std::string& stage) {
    JobSpec s = make_spec(id, 2, 0, "d-" + id);
    for (WitnessEntry& w : s.witnesses) w.path = "/state/witnesses/" + stage + "/" + w.name + ".wtns";
    return s;
  };
  const uint64_t queued = submit(in_dir("queued", "stage-q"));
  const uint64_t running = submit(in_dir("running", "stage-r"));
  submit(in_dir("cancelled", "stage-c"));
  const uint64_t done = submit(in_dir("done", "stage-d"));
  const uint64_t failed = submit(in_dir("failed", "stage-f"));
  ASSERT_GT(queued, 0u);
  ASSERT_EQ(*j->attempt_started(running, 0, 110), 1u);
  ASSERT_TRUE(j->cancel("cancelled", 111).is_ok());
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_EQ(*j->attempt_started(done, i, 112), 1u);
    ASSERT_TRUE(j->partition_done(done, i, {}, 113).is_ok());
    ASSERT_EQ(*j->attempt_started(failed, i, 114), 1u);
    ASSERT_TRUE(j->partition_failed(failed, i, "bad", 115).is_ok());
  }
  ASSERT_EQ(get("done").state, JobState::kDone);
  ASSERT_EQ(get("failed").state, JobState::kFailed);
  auto dirs = j->witness_dirs();
  ASSERT_TRUE(dirs.is_ok()) << dirs.status().to_string();
  EXPECT_EQ(*dirs, (std::set<fs::path>{"/state/witnesses/stage-q", "/state/witnesses/stage-r"}));
  expect_integrity();
}

// A commit that cannot be written (here: proofs/ is a file; in life: a full
// disk) keeps the claim: the partition is not handed out again in this life,
// to be proved and refused over and over; the retry lands once the disk
// takes it, and only then is the claim let go.
TEST_F(Journal, AFailedCommitKeepsItsClaimUntilARetryLands) {
  submit(make_spec("a", 1));
  const ClaimRequest want{{"k"}, 10, {}};
  auto items = j->claim(want, 101).value();
  ASSERT_EQ(items.size(), 1u);
  const Claim c{items[0].job_seq, items[0].index, items[0].fence};
  ASSERT_EQ(*j->start_attempt(c, 102), 1u);
  { std::ofstream(dir / "proofs") << "in the way"; }
  const ProofFiles proof{"{}", "[]"};
  ASSERT_FALSE(j->commit(c, {}, proof, 103).is_ok());
  EXPECT_TRUE(j->claim(want, 104).value().empty()) << "a refused commit handed its partition out again";
  EXPECT_EQ(get("a").partitions[0].status, PartStatus::kRunning);
  fs::remove(dir / "proofs");
  ASSERT_TRUE(j->commit(c, {}, proof, 105).is_ok());
  EXPECT_EQ(get("a").state, JobState::kDone);
  EXPECT_TRUE(j->claim(want, 106).value().empty());
  expect_integrity();
}

TEST_F(Journal, TheAuditCatchesABrokenJournal) {
  const uint64_t seq = submit(make_spec("a", 2));
  ASSERT_EQ(*j->attempt_started(seq, 0, 110), 1u);
  ASSERT_TRUE(j->partition_done(seq, 0, {}, 120).is_ok());
  expect_integrity();
  // A second attempt at a done partition, started after its commit: what the
  // crash tests must never see.
  ASSERT_EQ(raw_sql(file,
                    "INSERT INTO attempts (job_seq, idx, attempt, life, started_at, result) "
                    "VALUES (1, 0, 2, 1, 130, 'running'); UPDATE partitions SET attempts = 2 WHERE idx = 0"),
            "");
  Status st = j->check_integrity();
  expect_one_line(st, ErrorCode::kInternal, "a done partition with an attempt started after it finished (job 'a'");
  EXPECT_NE(st.message().find("broken invariant"), std::string::npos);
  ASSERT_EQ(raw_sql(file,
                    "DELETE FROM attempts WHERE attempt = 2; UPDATE partitions SET attempts = 1; "
                    "UPDATE jobs SET state = 'done'"),
            "");
  expect_one_line(j->check_integrity(), ErrorCode::kInternal, "a done job with a partition not done");
}

TEST_F(Journal, CallsFromManyThreadsAllLand) {
  constexpr int kThreads = 4, kJobs = 10;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kJobs; ++i) {
        const std::string id = "t" + std::to_string(t) + "-" + std::to_string(i);
        auto r = j->submit(make_spec(id, 2), 100);
        if (!r.is_ok()) continue;  // counted below
        (void)j->attempt_started(r->job.seq, 0, 101);
        (void)j->partition_done(r->job.seq, 0, {}, 102);
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto jobs = j->list(std::nullopt, 1000).value();
  EXPECT_EQ(jobs.size(), size_t(kThreads * kJobs));
  for (const Job& job : jobs) EXPECT_EQ(job.done, 1u) << job.id;
  EXPECT_EQ(j->unfinished()->size(), size_t(kThreads * kJobs));
  expect_integrity();
}

}  // namespace
}  // namespace proofpipe::test
