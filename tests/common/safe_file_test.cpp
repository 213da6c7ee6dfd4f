// common/safe_file.hpp: every file proofpipe writes is created exclusively
// under a fresh name beside its target, never through a link, and either
// lands whole or leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "proofpipe/common/safe_file.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t entries(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(SafeFile, WritesAndReplacesARegularFile) {
  TempDir tmp;
  const fs::path f = tmp / "a.json";
  ASSERT_TRUE(write_file_replace(f, "one", "test file").is_ok());
  EXPECT_EQ(slurp(f), "one");
  ASSERT_TRUE(write_file_replace(f, "two", "test file").is_ok());
  EXPECT_EQ(slurp(f), "two");
  EXPECT_EQ(entries(tmp.path()), 1u) << "a temporary file was left behind";
}

TEST(SafeFile, ALinkAtTheTargetIsReplacedNotFollowed) {
  TempDir tmp;
  const fs::path victim = tmp / "victim", f = tmp / "out.json";
  std::ofstream(victim) << "victim";
  fs::create_symlink(victim, f);
  ASSERT_TRUE(write_file_replace(f, "new", "test file").is_ok());
  EXPECT_EQ(slurp(victim), "victim");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(f)));
  EXPECT_EQ(slurp(f), "new");
}

TEST(SafeFile, NonRegularTargetsAreRefusedBeforeAnyWrite) {
  TempDir tmp;
  const fs::path fifo = tmp / "fifo", dir = tmp / "dir";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directories(dir);
  for (const auto& [path, kind] : {std::pair{fifo, "a FIFO"}, std::pair{dir, "a directory"}}) {
    Status st = write_file_replace(path, "x", "test file");
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(st.message().find(kind), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(path.string()), std::string::npos) << st.message();
  }
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_EQ(entries(tmp.path()), 2u);
}

TEST(SafeFile, AnUncommittedFileLeavesNothing) {
  TempDir tmp;
  {
    auto pending = PendingFile::create(tmp / "x.json", "test file");
    ASSERT_TRUE(pending.is_ok()) << pending.status().message();
    ASSERT_TRUE(pending->write("half").is_ok());
    EXPECT_EQ(entries(tmp.path()), 1u);  // the temporary, beside the target
  }
  EXPECT_EQ(entries(tmp.path()), 0u);
}

TEST(SafeFile, CommitTogetherPutsAllOrNone) {
  TempDir tmp;
  std::vector<PendingFile> files;
  for (const char* name : {"a.public.json", "a.proof.json"}) {
    auto f = PendingFile::create(tmp / name, "test file");
    ASSERT_TRUE(f.is_ok());
    ASSERT_TRUE(f->write(name).is_ok());
    files.push_back(std::move(*f));
  }
  ASSERT_TRUE(commit_together(files).is_ok());
  EXPECT_EQ(slurp(tmp / "a.proof.json"), "a.proof.json");
  EXPECT_EQ(entries(tmp.path()), 2u);

  // The second rename fails (its target became a directory): the first is taken back.
  files.clear();
  fs::remove(tmp / "a.public.json");
  fs::remove(tmp / "a.proof.json");
  for (const char* name : {"b.public.json", "b.proof.json"}) {
    auto f = PendingFile::create(tmp / name, "test file");
    ASSERT_TRUE(f.is_ok());
    files.push_back(std::move(*f));
  }
  fs::create_directories(tmp / "b.proof.json" / "inside");
  EXPECT_FALSE(commit_together(files).is_ok());
  EXPECT_FALSE(fs::exists(tmp / "b.public.json"));
  EXPECT_EQ(entries(tmp.path()), 1u);  // only the directory
}

TEST(SafeFile, SameFileSeesSpellingsAndHardLinksNotSymlinks) {
  TempDir tmp;
  const fs::path a = tmp / "a.json";
  EXPECT_TRUE(same_file(a, tmp.path() / "." / "a.json"));
  std::ofstream(a) << "x";
  fs::create_hard_link(a, tmp / "b.json");
  EXPECT_TRUE(same_file(a, tmp / "b.json"));
  fs::create_symlink(a, tmp / "c.json");  // replaced on write, so a different name
  EXPECT_FALSE(same_file(a, tmp / "c.json"));
  EXPECT_FALSE(same_file(a, tmp / "d.json"));
}

TEST(SafeFile, ANewStreamReplacesALinkAndRefusesAFifo) {
  TempDir tmp;
  const fs::path victim = tmp / "victim", m = tmp / "m.jsonl", fifo = tmp / "fifo";
  std::ofstream(victim) << "victim";
  fs::create_symlink(victim, m);
  {
    std::ofstream out;
    ASSERT_TRUE(open_new_stream(m, "--metrics", out).is_ok());
    out << "line\n";
  }
  EXPECT_EQ(slurp(victim), "victim");
  EXPECT_EQ(slurp(m), "line\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(m)));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::ofstream out;
  EXPECT_FALSE(open_new_stream(fifo, "--metrics", out).is_ok());
}

}  // namespace
}  // namespace proofpipe::test
