// Witness intake (service/src/intake.hpp) on the multi_io fixture: good jobs
// from paths and uploads, the id and name rules, --allow-dir (links and ".."
// that lead out), non-regular files (a FIFO must not hang), sizes, witnesses
// that do not fit the key, the digest, and that a refused submit leaves
// nothing behind; then discard_staged and sweep_staging; and jobs of circom
// inputs (one JSON object each, copied as <name>.json).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>

#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "intake.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/format_files.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::service;

class Intake : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_FIXTURE(fixture("multi_io", "circuit.zkey"));
    auto z = engine::load_pipeline_key(fixture("multi_io", "circuit.zkey"));
    ASSERT_TRUE(z.is_ok()) << z.status().to_string();
    key = std::move(z).value();
    fs::create_directories(allow);
    fs::create_directories(outside);
    for (const char* w : {"w00", "w01", "w02"})
      fs::copy_file(fixture("multi_io", (std::string(w) + ".wtns").c_str()), allow / (std::string(w) + ".wtns"));
    fs::copy_file(fixture("multi_io", "w03.wtns"), outside / "w03.wtns");
    policy.witness_root = dir / "witnesses";
    policy.allow_dirs = {allow};
    policy.max_witness_bytes = 1 << 20;
    policy.max_witnesses = 8;
  }

  Result<JobSpec> stage(const SubmitRequest& req) { return stage_job(req, "multi", *key, policy); }
  static SubmitRequest paths(std::vector<std::string> p, std::optional<std::string> id = std::nullopt) {
    SubmitRequest r;
    r.id = std::move(id);
    r.key = "multi";
    r.paths = std::move(p);
    return r;
  }
  static SubmitRequest uploads(std::vector<UploadedWitness> u) {
    SubmitRequest r;
    r.key = "multi";
    r.uploads = std::move(u);
    return r;
  }
  static SubmitRequest inputs(std::vector<UploadedWitness> in) {
    SubmitRequest r;
    r.key = "multi";
    r.inputs = std::move(in);
    return r;
  }
  static std::string bytes_of(const fs::path& p) { return read_text(p); }
  // The staging directories under the witness root.
  size_t staged_dirs() const {
    size_t n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(policy.witness_root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      ++n;
    return n;
  }
  // A refused submit: one line of `code` naming `file`, containing `needle`,
  // and no new staging directory left.
  void expect_refused(const SubmitRequest& req, ErrorCode code, const std::string& file, const std::string& needle) {
    const size_t before = staged_dirs();
    auto r = stage(req);
    ASSERT_FALSE(r.is_ok()) << "expected: " << needle;
    expect_error(r.status(), code, file, needle);
    EXPECT_EQ(r.status().message().find(policy.witness_root.string()), std::string::npos)
        << "names the client's file, not the copy: " << r.status().message();
    EXPECT_EQ(staged_dirs(), before) << "left behind by: " << needle;
  }

  TempDir dir;
  fs::path allow = dir / "allow";
  fs::path outside = dir / "outside";
  IntakePolicy policy;
  std::shared_ptr<const engine::PipelineKey> key;
};

TEST_F(Intake, StagesCopiesOfPathsAndUploads) {
  auto r = stage(paths({(allow / "w00.wtns").string(), (allow / "w01.wtns").string()}, "my-job.1"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->id, "my-job.1");
  EXPECT_EQ(r->key, "multi");
  ASSERT_EQ(r->witnesses.size(), 2u);
  EXPECT_EQ(r->witnesses[1].name, "w01");
  const fs::path stage_dir = r->witnesses[0].path.parent_path();
  EXPECT_EQ(stage_dir.parent_path(), policy.witness_root);
  EXPECT_TRUE(stage_dir.filename().string().starts_with("stage-")) << stage_dir;
  EXPECT_EQ(r->witnesses[0].path.filename(), "w00.wtns");
  EXPECT_EQ(bytes_of(r->witnesses[1].path), bytes_of(allow / "w01.wtns"));
  struct stat st {};
  ASSERT_EQ(::stat(stage_dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(r->digest.size(), 64u);
  // The client's file changes afterwards: the copy does not.
  { std::ofstream(allow / "w00.wtns", std::ios::trunc) << "gone"; }
  EXPECT_EQ(bytes_of(r->witnesses[0].path), bytes_of(fixture("multi_io", "w00.wtns")));

  // The same content uploaded: the same digest (the same job), another id.
  auto u = stage(
      uploads({{"w00.wtns", bytes_of(fixture("multi_io", "w00.wtns"))}, {"w01.wtns", bytes_of(allow / "w01.wtns")}}));
  ASSERT_TRUE(u.is_ok()) << u.status().to_string();
  EXPECT_EQ(u->digest, r->digest);
  EXPECT_TRUE(u->id.starts_with("job-") && u->id.size() == 4 + 24) << u->id;
  EXPECT_NE(u->witnesses[0].path.parent_path(), stage_dir);
  EXPECT_EQ(staged_dirs(), 2u);
}

TEST_F(Intake, TheDigestCoversKeyPriorityNamesAndEveryByte) {
  const std::string w0 = bytes_of(fixture("multi_io", "w00.wtns"));
  const auto digest = [&](std::vector<UploadedWitness> u, int64_t priority = 0, const char* key_name = "multi") {
    SubmitRequest req = uploads(std::move(u));
    req.priority = priority;
    auto r = stage_job(req, key_name, *key, policy);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? r->digest : std::string();
  };
  const std::string base = digest({{"a.wtns", w0}});
  EXPECT_EQ(digest({{"a.wtns", w0}}), base);
  EXPECT_NE(digest({{"a.wtns", w0}}, 1), base);
  EXPECT_NE(digest({{"a.wtns", w0}}, 0, "other"), base);
  EXPECT_NE(digest({{"b.wtns", w0}}), base);
  std::string flipped = w0;
  flipped[flipped.size() - 32] ^= 1;  // the low bit of the last value: still < r
  EXPECT_NE(digest({{"a.wtns", flipped}}), base);
  EXPECT_NE(digest({{"a.wtns", w0}, {"b.wtns", w0}}), base);
}

TEST_F(Intake, IdsAndNamesKeepToTheirCharset) {
  const std::string good = (allow / "w00.wtns").string();
  for (const std::string& id : {std::string(""), std::string("a/b"), std::string("."), std::string(".."),
                                std::string(129, 'x'), std::string("a b"), std::string("caf\xc3\xa9")}) {
    auto r = stage(paths({good}, id));
    ASSERT_FALSE(r.is_ok()) << id;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << id;
    EXPECT_NE(r.status().message().find("job id"), std::string::npos) << r.status().message();
    EXPECT_EQ(staged_dirs(), 0u);
  }
  EXPECT_TRUE(stage(paths({good}, std::string(128, 'x'))).is_ok());
  EXPECT_TRUE(stage(paths({good}, "A-z_0.9")).is_ok());
  const std::string w = bytes_of(allow / "w00.wtns");
  expect_refused(uploads({{"bad name.wtns", w}}), ErrorCode::kInvalidArgument, "bad name.wtns", "its name 'bad name'");
  expect_refused(uploads({{"..wtns", w}}), ErrorCode::kInvalidArgument, "..wtns", "not . or ..");
  // Only the last component names a partition: a client's directories are not ours.
  auto r = stage(uploads({{"../../etc/x.wtns", w}}));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->witnesses[0].name, "x");
  EXPECT_EQ(r->witnesses[0].path.parent_path().parent_path(), policy.witness_root);
}

TEST_F(Intake, RefusesDuplicatesMixesAndCounts) {
  fs::create_directories(allow / "sub");
  fs::copy_file(allow / "w00.wtns", allow / "sub" / "w00.wtns");
  expect_refused(paths({(allow / "w00.wtns").string(), (allow / "sub" / "w00.wtns").string()}),
                 ErrorCode::kInvalidArgument, (allow / "sub" / "w00.wtns").string(), "are both named 'w00'");
  SubmitRequest both = paths({(allow / "w00.wtns").string()});
  both.uploads.push_back({"w01.wtns", bytes_of(allow / "w01.wtns")});
  auto r = stage(both);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("not both"), std::string::npos) << r.status().message();
  EXPECT_EQ(stage(paths({})).status().code(), ErrorCode::kInvalidArgument);
  policy.max_witnesses = 2;
  r = stage(paths({(allow / "w00.wtns").string(), (allow / "w01.wtns").string(), (allow / "w02.wtns").string()}));
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("at most 2 witnesses"), std::string::npos) << r.status().message();
  EXPECT_EQ(staged_dirs(), 0u);
}

TEST_F(Intake, PathsMustLieUnderAnAllowDir) {
  const auto denied = [&](const fs::path& p) {
    SCOPED_TRACE(p);
    expect_refused(paths({p.string()}), ErrorCode::kPermissionDenied, p.string(), "is not under any --allow-dir");
  };
  denied(outside / "w03.wtns");
  denied(allow / ".." / "outside" / "w03.wtns");
  fs::create_symlink(outside / "w03.wtns", allow / "link.wtns");
  denied(allow / "link.wtns");
  fs::create_directory_symlink(outside, allow / "subdir");
  denied(allow / "subdir" / "w03.wtns");
  denied(outside / "missing.wtns");  // outside: refused alike whether it exists or not
  // Through a link inside, what lies outside is refused alike whether it
  // exists or not: the answer says nothing of a path the client may not see.
  denied(allow / "subdir" / "missing.wtns");
  denied(allow / "subdir" / "nodir" / "w03.wtns");
  denied(dir / "allow2" / "w00.wtns");  // a sibling whose name starts like the allow dir
  expect_refused(paths({(allow / "missing.wtns").string()}), ErrorCode::kNotFound, (allow / "missing.wtns").string(),
                 "does not exist");
  // A file used as a folder is missing too (the client's mistake, not the server's fault).
  expect_refused(paths({(allow / "w00.wtns" / "x.wtns").string()}), ErrorCode::kNotFound,
                 (allow / "w00.wtns" / "x.wtns").string(), "does not exist");
  fs::create_symlink("loop.wtns", allow / "loop.wtns");
  expect_refused(paths({(allow / "loop.wtns").string()}), ErrorCode::kInvalidArgument, (allow / "loop.wtns").string(),
                 "links");
  expect_refused(paths({"allow/w00.wtns"}), ErrorCode::kInvalidArgument, "allow/w00.wtns", "must be absolute");
  // A link inside that stays inside is fine.
  fs::create_symlink(allow / "w01.wtns", allow / "alias.wtns");
  auto r = stage(paths({(allow / "alias.wtns").string()}));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->witnesses[0].name, "alias");
  // No --allow-dir: no path at all.
  policy.allow_dirs.clear();
  expect_refused(paths({(allow / "w00.wtns").string()}), ErrorCode::kPermissionDenied, (allow / "w00.wtns").string(),
                 "no --allow-dir");
}

// A NUL ends the path for the system calls, while the partition would be
// named after what follows it: refused with one line, nothing staged.
TEST_F(Intake, APathWithANulIsRefused) {
  const std::string real = (allow / "w00.wtns").string();
  expect_refused(paths({real + std::string(1, '\0') + "/x/evil.wtns"}), ErrorCode::kInvalidArgument, real,
                 "has a NUL character");
  expect_refused(paths({(allow / "w01.wtns").string(), real + std::string(1, '\0')}), ErrorCode::kInvalidArgument, real,
                 "\\u0000");
}

TEST_F(Intake, RefusesNonRegularFilesAndOversizedOnes) {
  const fs::path fifo = allow / "pipe.wtns";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened without a writer: must answer at once, not wait for one.
  expect_refused(paths({fifo.string()}), ErrorCode::kInvalidArgument, fifo.string(), "is a FIFO, not a regular file");
  fs::create_directory(allow / "d.wtns");
  expect_refused(paths({(allow / "d.wtns").string()}), ErrorCode::kInvalidArgument, (allow / "d.wtns").string(),
                 "is a directory, not a regular file");
  const auto size = fs::file_size(allow / "w00.wtns");
  policy.max_witness_bytes = size - 1;
  expect_refused(paths({(allow / "w00.wtns").string()}), ErrorCode::kResourceExhausted, (allow / "w00.wtns").string(),
                 "over the limit of " + std::to_string(size - 1));
  expect_refused(uploads({{"up.wtns", bytes_of(allow / "w00.wtns")}}), ErrorCode::kResourceExhausted, "up.wtns",
                 "over the limit");
  policy.max_witness_bytes = size;
  EXPECT_TRUE(stage(paths({(allow / "w00.wtns").string()})).is_ok());
}

// A full state disk at intake is not an internal error (500, kIo): it is the
// service's state, not the request's fault: kUnavailable (503 and
// Retry-After), saying the disk is full, and the staging folder is gone.
// A small tmpfs on the witness root (root only; skipped otherwise).
TEST_F(Intake, AFullStateDiskIsUnavailableNotAnInternalError) {
  fs::create_directories(policy.witness_root);
  if (::mount("tmpfs", policy.witness_root.c_str(), "tmpfs", 0, "size=64k,mode=0700") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs (needs root): " << std::strerror(errno);
  struct Unmount {
    fs::path dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{policy.witness_root};
  {
    std::ofstream filler(policy.witness_root / "filler", std::ios::binary);
    const std::string page(4096, 'f');
    while (filler.write(page.data(), std::streamsize(page.size())) && filler.flush()) {
    }
  }
  for (const SubmitRequest& req :
       {paths({(allow / "w00.wtns").string()}), uploads({{"up.wtns", bytes_of(allow / "w00.wtns")}})}) {
    auto r = stage(req);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable) << r.status().to_string();
    EXPECT_NE(r.status().message().find("the state disk is full"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(std::strerror(ENOSPC)), std::string::npos) << r.status().message();
    EXPECT_EQ(staged_dirs(), 1u) << "a staging folder was left behind (only the filler should be there)";
  }
  // Space again: the same request is staged.
  fs::remove(policy.witness_root / "filler");
  EXPECT_TRUE(stage(paths({(allow / "w00.wtns").string()})).is_ok());
}

TEST_F(Intake, RefusesWitnessesThatDoNotFitTheKey) {
  const Bytes orig = read_bytes(allow / "w01.wtns");
  const std::string good(orig.begin(), orig.end());
  expect_refused(uploads({{"w00.wtns", good}, {"short.wtns", good.substr(0, 100)}}), ErrorCode::kBadFormat,
                 "short.wtns", "truncated");
  expect_refused(uploads({{"junk.wtns", std::string(4096, 'j')}}), ErrorCode::kBadFormat, "junk.wtns", "bad magic");
  Container c = Container::parse(orig);
  std::memset(c.section(2).data() + 3 * 32, 0xff, 32);
  const Bytes big = c.bytes();
  write_bytes(allow / "big.wtns", big);
  expect_refused(paths({(allow / "w00.wtns").string(), (allow / "big.wtns").string()}), ErrorCode::kBadFormat,
                 (allow / "big.wtns").string(), "w[3] is not below r");
  Container shorter = Container::parse(orig);
  shorter.section(2).resize(shorter.section(2).size() - 32);
  put_u32(shorter.section(1), 36, 350);
  expect_refused(uploads({{"w350.wtns",
                           [&] {
                             const Bytes b = shorter.bytes();
                             return std::string(b.begin(), b.end());
                           }()}}),
                 ErrorCode::kInvalidArgument, "w350.wtns", "has 350 values");
}

TEST_F(Intake, DiscardAndSweepRemoveOnlyTheirOwnFiles) {
  auto a = stage(paths({(allow / "w00.wtns").string()}));
  auto b = stage(paths({(allow / "w01.wtns").string(), (allow / "w02.wtns").string()}));
  auto c = stage(paths({(allow / "w02.wtns").string()}));
  ASSERT_TRUE(a.is_ok() && b.is_ok() && c.is_ok());
  const fs::path da = a->witnesses[0].path.parent_path(), db = b->witnesses[0].path.parent_path(),
                 dc = c->witnesses[0].path.parent_path();
  discard_staged(*b);
  EXPECT_FALSE(fs::exists(db));
  EXPECT_TRUE(fs::exists(da));

  // What the sweep must leave: a referenced job, a folder of another name, a
  // stage-named link, and a stage folder with a file intake never makes.
  const fs::path foreign = policy.witness_root / "keep-me";
  fs::create_directory(foreign);
  write_bytes(foreign / "x.wtns", {1});
  const fs::path target = dir / "elsewhere";
  fs::create_directory(target);
  write_bytes(target / "y.wtns", {1});
  fs::create_directory_symlink(target, policy.witness_root / ("stage-" + std::string(24, 'a')));
  write_bytes(dc / "notes.txt", {1});
  write_bytes(dc / "w02.wtns.tmp-abcdefABCDEF", {1});  // a copy cut short by a crash
  ASSERT_TRUE(sweep_staging(policy.witness_root, {da}).is_ok());
  EXPECT_TRUE(fs::exists(a->witnesses[0].path)) << "referenced by the journal";
  EXPECT_TRUE(fs::exists(foreign / "x.wtns"));
  EXPECT_TRUE(fs::exists(target / "y.wtns"));
  EXPECT_FALSE(fs::exists(dc / "w02.wtns"));
  EXPECT_FALSE(fs::exists(dc / "w02.wtns.tmp-abcdefABCDEF"));
  EXPECT_TRUE(fs::exists(dc / "notes.txt"));
  fs::remove(dc / "notes.txt");
  ASSERT_TRUE(sweep_staging(policy.witness_root, {da}).is_ok());
  EXPECT_FALSE(fs::exists(dc));
  EXPECT_TRUE(sweep_staging(dir / "never-made", {}).is_ok());
}

std::string input_text(int i) { return read_text(fixture("multi_io", fmt::format("inputs/w{:02}.json", i).c_str())); }

TEST_F(Intake, InputsAreStagedAsJsonCopiesEachOneObject) {
  auto r = stage(inputs({{"w00.json", input_text(0)}, {"dir/w01.json", input_text(1)}}));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->witnesses.size(), 2u);
  EXPECT_EQ(r->witnesses[1].name, "w01");
  EXPECT_TRUE(r->witnesses[0].input);
  EXPECT_EQ(r->witnesses[0].path.filename(), "w00.json");
  EXPECT_EQ(read_text(r->witnesses[1].path), input_text(1)) << "the bytes as uploaded";

  // The same bytes given as a witness are refused: not a .wtns.
  SubmitRequest as_witness;
  as_witness.key = "multi";
  as_witness.uploads = {{"w00.wtns", input_text(0)}};
  EXPECT_FALSE(stage_job(as_witness, "multi", *key, policy).is_ok());

  const size_t staged = std::distance(fs::directory_iterator(policy.witness_root), fs::directory_iterator());
  for (const std::string& bad : {std::string("[1, 2]"), std::string("{\"a\": }"), std::string("  "),
                                 std::string("\"text\""), std::string("{\"a\": 1} trailing")}) {
    auto b = stage(inputs({{"bad.json", bad}}));
    ASSERT_FALSE(b.is_ok()) << bad;
    EXPECT_EQ(b.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(b.status().message().find("input 'bad.json' is not a JSON object"), std::string::npos)
        << b.status().message();
  }
  policy.max_witness_bytes = 64;
  auto big = stage(inputs({{"big.json", input_text(0)}}));
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceExhausted) << big.status().to_string();
  EXPECT_NE(big.status().message().find("input 'big.json'"), std::string::npos) << big.status().message();
  EXPECT_EQ(std::distance(fs::directory_iterator(policy.witness_root), fs::directory_iterator()), long(staged))
      << "a refused job leaves no folder";

  // A crash between staging and the journal: the sweep takes input copies too.
  ASSERT_TRUE(sweep_staging(policy.witness_root, {}).is_ok());
  EXPECT_FALSE(fs::exists(r->witnesses[0].path));
  EXPECT_FALSE(fs::exists(r->witnesses[0].path.parent_path()));
}

TEST_F(Intake, InputsDigestTheirBytes) {
  auto a = stage(inputs({{"w00.json", input_text(0)}}));
  auto b = stage(inputs({{"w00.json", input_text(0)}}));
  auto c = stage(inputs({{"w00.json", input_text(1)}}));
  ASSERT_TRUE(a.is_ok() && b.is_ok() && c.is_ok());
  EXPECT_EQ(a->digest, b->digest);
  EXPECT_NE(a->digest, c->digest);
}

}  // namespace
}  // namespace proofpipe::test
