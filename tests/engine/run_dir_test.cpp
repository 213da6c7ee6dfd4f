// The run-directory module (engine/include/proofpipe/engine/run_dir.hpp) and the stale-run
// scans (stale.hpp): what counts as a proofpipe run directory, stale or
// live, and that clean-up removes only proofpipe's own files, never a
// folder's unknown contents or another user's files.
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "procfs.hpp"
#include "proofpipe/engine/run_dir.hpp"
#include "stale.hpp"
#include "support/run_dirs.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::engine {
namespace {

namespace fs = std::filesystem;
using test::dead_pid;
using test::make_private_dir;
using test::TempDir;
using test::write_run_json;
constexpr uid_t kNobody = 65534;

// A child named "proofpipe" (as the coordinator's comm reads) that waits to be killed.
class FakeCoordinator {
 public:
  FakeCoordinator() {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NAME, "proofpipe");
      ::pause();
      ::_exit(0);
    }
    // Until the child has renamed itself, it is not yet "proofpipe".
    for (int i = 0; i < 500 && read_proc_comm(pid_) != std::optional<std::string>("proofpipe"); ++i) ::usleep(2000);
  }
  ~FakeCoordinator() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

TEST(RunDirInspect, TellsMissingEmptyStaleLiveAndForeign) {
  TempDir tmp;
  EXPECT_EQ(inspect_run_dir(tmp / "nothing").kind, RunDirKind::kMissing);
  const fs::path dir = make_private_dir(tmp / "run");
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kEmpty);

  write_run_json(dir, dead_pid(), 1);
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kStale);

  FakeCoordinator live;
  const auto ticks = read_proc_start_ticks(live.pid());
  ASSERT_TRUE(ticks.has_value());
  write_run_json(dir, live.pid(), *ticks);
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kLive);
  // The same pid with another start time: a reused pid, so the recorded run is gone.
  write_run_json(dir, live.pid(), *ticks + 1);
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kStale);
  // A live process that is not proofpipe (this test) does not keep a run alive.
  write_run_json(dir, ::getpid(), *read_proc_start_ticks(::getpid()));
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kStale);
}

TEST(RunDirInspect, AnythingUnprovenIsForeign) {
  TempDir tmp;
  const fs::path dir = make_private_dir(tmp / "run");
  for (const char* text : {R"({"pid": 1})", R"({"pid": 0})", R"({"pid": -1})", "not json", R"([1,2])"}) {
    std::ofstream(dir / "run.json") << text;
    EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kForeign) << text;
  }
  write_run_json(dir, dead_pid(), 1);
  std::ofstream(dir / "notes.txt") << "someone's";
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kForeign);
  fs::remove(dir / "notes.txt");
  ASSERT_EQ(inspect_run_dir(dir).kind, RunDirKind::kStale);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec, fs::perm_options::replace);
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kForeign) << "mode 0750 is not one proofpipe makes";
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  fs::create_directory_symlink(dir, tmp / "link");
  EXPECT_EQ(inspect_run_dir(tmp / "link").kind, RunDirKind::kForeign);
}

TEST(RunDirInspect, OtherUsersDirectoryIsForeign) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir tmp;
  const fs::path dir = make_private_dir(tmp / "run");
  write_run_json(dir, dead_pid(), 1);
  ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0);
  EXPECT_EQ(inspect_run_dir(dir).kind, RunDirKind::kForeign);
}

TEST(RunDirRemove, RemovesOnlyKnownNamesThenTheEmptyFolder) {
  TempDir tmp;
  const fs::path dir = make_private_dir(tmp / "run");
  write_run_json(dir, 1, 1);
  std::ofstream(dir / "control") << "";
  std::ofstream(dir / "precious.txt") << "keep";
  remove_run_files(dir, true);
  EXPECT_FALSE(fs::exists(dir / "run.json"));
  EXPECT_FALSE(fs::exists(dir / "control"));
  EXPECT_TRUE(fs::exists(dir / "precious.txt")) << "an unknown file is never removed";
  fs::remove(dir / "precious.txt");
  remove_run_files(dir, true);
  EXPECT_FALSE(fs::exists(dir));
}

TEST(RunDirAdopt, RefusesAForeignFolderAndKeepsItsFiles) {
  TempDir tmp;
  const fs::path dir = make_private_dir(tmp / "victim");
  std::ofstream(dir / "run.json") << R"({"pid": 1})";
  std::ofstream(dir / "precious.txt") << "keep";
  auto r = RunDir::adopt(dir);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(dir.string()), std::string::npos) << r.status().message();
  EXPECT_TRUE(fs::exists(dir / "precious.txt"));
}

TEST(RunDirAdopt, MakesCleansAndKeepsAsItShould) {
  TempDir tmp;
  {
    auto made = RunDir::adopt(tmp / "new");
    ASSERT_TRUE(made.is_ok()) << made.status().message();
    EXPECT_TRUE(made->made());
    EXPECT_EQ(fs::status(tmp / "new").permissions() & fs::perms::all, fs::perms::owner_all);
    std::ofstream(tmp / "new" / "run.json") << "{}";
  }
  EXPECT_FALSE(fs::exists(tmp / "new")) << "a folder it made goes at the end";

  const fs::path stale = make_private_dir(tmp / "stale");
  write_run_json(stale, dead_pid(), 1);
  {
    auto r = RunDir::adopt(stale);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_TRUE(fs::is_empty(stale));
  }
  EXPECT_FALSE(fs::exists(stale));

  const fs::path empty = make_private_dir(tmp / "empty");
  {
    auto r = RunDir::adopt(empty);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_FALSE(r->made());
  }
  EXPECT_TRUE(fs::is_directory(empty)) << "a folder it did not make stays";

  FakeCoordinator live;
  const fs::path busy = make_private_dir(tmp / "busy");
  write_run_json(busy, live.pid(), *read_proc_start_ticks(live.pid()));
  EXPECT_FALSE(RunDir::adopt(busy).is_ok());
  EXPECT_TRUE(fs::exists(busy / "run.json"));
}

TEST(StaleScan, RemovesOnlyOurStaleRunsAndSegments) {
  TempDir shm, base;
  const long gone = dead_pid();
  const fs::path ours = shm / ("proofpipe-" + std::to_string(gone) + "-00000000000000ab-ctl");
  const fs::path lookalike = shm / ("proofpipe-" + std::to_string(gone) + "-ab-ctl");
  std::ofstream(ours) << "";
  std::ofstream(lookalike) << "";
  const fs::path stale = make_private_dir(base / "proofpipe-run-aaaaaa");
  write_run_json(stale, gone, 1);
  const fs::path foreign = make_private_dir(base / "proofpipe-run-bbbbbb");
  write_run_json(foreign, gone, 1);
  std::ofstream(foreign / "precious.txt") << "keep";
  clean_stale_runs(shm.path(), base.path());
  EXPECT_FALSE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(lookalike));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(foreign / "precious.txt"));
  EXPECT_TRUE(fs::exists(foreign / "run.json"));
}

TEST(StaleScan, LeavesOtherUsersSegmentsAndRuns) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir shm, base;
  const long gone = dead_pid();
  const fs::path seg = shm / ("proofpipe-" + std::to_string(gone) + "-00000000000000ab-data");
  std::ofstream(seg) << "";
  ASSERT_EQ(::chown(seg.c_str(), kNobody, kNobody), 0);
  const fs::path theirs = make_private_dir(base / "proofpipe-run-cccccc");
  write_run_json(theirs, gone, 1);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chown((theirs / "run.json").c_str(), kNobody, kNobody), 0);
  clean_stale_runs(shm.path(), base.path());
  EXPECT_TRUE(fs::exists(seg));
  EXPECT_TRUE(fs::exists(theirs / "run.json"));
}

}  // namespace
}  // namespace proofpipe::engine
