// Hostile inputs on a root proving host: clean-up removes only
// what proofpipe made (--run-dir, the stale-run scans of run directories and
// /dev/shm), inputs that are not regular files are refused at once instead
// of hanging open(), and every bad flag value is one "proofpipe: error:" line
// naming the flag, exit 2. Cases that need root effects (files of another
// user, running as nobody) skip when not root.
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/run_dirs.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
constexpr uid_t kNobody = 65534;

fs::path multi_io() { return data_dir() / "multi_io"; }

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// One "proofpipe: error: ..." line and exit 2.
void expect_one_error_line(const CommandResult& r, const std::string& names) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(names), std::string::npos) << "should name " << names << ": " << r.output;
  EXPECT_EQ(r.output.find("Success"), std::string::npos) << "errno read after it was clobbered: " << r.output;
}

// A small but complete run: 2 witnesses, cpu backend.
std::string run_flags(const fs::path& out) {
  return "--zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
         " --witness " + quote(multi_io() / "w01.wtns") + " --out " + quote(out) +
         " --synth-workers 1 --gpu-workers 1 --backend cpu";
}

// --- clean-up removes only what proofpipe made ------------------------------

TEST(HostileRunDir, RunJsonWithForeignPidDoesNotDeleteTheFolder) {
  for (const long pid : {1L, 0L, -1L}) {
    SCOPED_TRACE(pid);
    TempDir tmp;
    const fs::path dir = tmp / "victim";
    fs::create_directories(dir);
    write_json(dir / "run.json", {{"pid", pid}});
    write_file(dir / "precious.txt", "not proofpipe's");
    const auto r = pp_run(run_flags(tmp / "out") + " --run-dir " + quote(dir));
    expect_one_error_line(r, dir.string());
    EXPECT_TRUE(fs::exists(dir / "precious.txt"));
    EXPECT_TRUE(fs::exists(dir / "run.json"));
  }
}

TEST(HostileRunDir, ExistingEmptyRunDirIsUsedAndKept) {
  TempDir tmp;
  const fs::path dir = make_private_dir(tmp / "mine");
  const auto r = pp_run(run_flags(tmp / "out") + " --run-dir " + quote(dir));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_directory(dir)) << "proofpipe did not make it, so it must not remove it";
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(HostileRunDir, OtherUsersRunDirUnderTheBaseSurvivesARun) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a folder another user owns";
  TempDir base;
  const fs::path theirs = make_private_dir(base / "proofpipe-run-abc123");
  write_run_json(theirs, dead_pid());
  write_file(theirs / "precious.txt", "theirs");
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chown((theirs / "run.json").c_str(), kNobody, kNobody), 0);
  const auto r = pp_run(run_flags(base / "out"), "XDG_RUNTIME_DIR=" + quote(base.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(theirs / "precious.txt"));
  EXPECT_TRUE(fs::exists(theirs / "run.json"));
}

TEST(HostileRunDir, OurStaleRunDirIsCleaned) {
  TempDir base;
  const fs::path stale = make_private_dir(base / "proofpipe-run-zzz999");
  write_run_json(stale, dead_pid());
  const auto r = pp_run(run_flags(base / "out"), "XDG_RUNTIME_DIR=" + quote(base.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  // The run's own directory is gone too: only the output folder is left.
  for (const auto& e : fs::directory_iterator(base.path())) EXPECT_EQ(e.path().filename(), "out");
}

TEST(HostileRunDir, OtherUsersShmSegmentNamedLikeOursSurvives) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a segment another user owns";
  const fs::path seg = fmt::format("/dev/shm/proofpipe-{}-00000000deadbeef-ctl", dead_pid());
  write_file(seg, "theirs");
  ASSERT_EQ(::chown(seg.c_str(), kNobody, kNobody), 0);
  TempDir tmp;
  const auto r = pp_run(run_flags(tmp / "out"));
  const bool survived = fs::exists(seg);
  std::error_code ec;
  fs::remove(seg, ec);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(survived);
}

// --- inputs that are not regular files ---------------------------------------

// `node` (a FIFO, /dev/null, a directory) as each input of each subcommand:
// refused in one line naming it, within a few seconds (a hang is killed by
// timeout and fails the exit-code check).
void expect_refused_everywhere(const fs::path& node, const fs::path& tmp) {
  const fs::path zkey = multi_io() / "circuit.zkey", wtns = multi_io() / "w00.wtns";
  const fs::path vkey = multi_io() / "verification_key.json", pub = multi_io() / "snarkjs_public.json",
                 proof = multi_io() / "snarkjs_proof.json";
  const fs::path wdir = tmp / "wdir";
  fs::create_directories(wdir);
  fs::create_symlink(node, wdir / "bad.wtns");
  const std::string out = quote(tmp / "out");
  const std::vector<std::string> commands = {
      "run --zkey " + quote(node) + " --witness " + quote(wtns) + " --out " + out,
      "run --zkey " + quote(zkey) + " --witness " + quote(node) + " --out " + out,
      "run --zkey " + quote(zkey) + " --witness-dir " + quote(wdir) + " --out " + out,
      "prove " + quote(node) + " " + quote(wtns) + " " + quote(tmp / "p.json") + " " + quote(tmp / "q.json"),
      "prove " + quote(zkey) + " " + quote(node) + " " + quote(tmp / "p.json") + " " + quote(tmp / "q.json"),
      "verify " + quote(node) + " " + quote(pub) + " " + quote(proof),
      "verify " + quote(vkey) + " " + quote(node) + " " + quote(proof),
      "verify " + quote(vkey) + " " + quote(pub) + " " + quote(node),
      "export-vkey " + quote(node) + " " + quote(tmp / "vk.json"),
      "setup-dev " + quote(node) + " " + quote(tmp / "k.zkey"),
  };
  for (const auto& c : commands) {
    SCOPED_TRACE(c);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_command("timeout -k 1 5 " + proofpipe() + " " + c);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool in_dir = c.find("--witness-dir") != std::string::npos;
    expect_one_error_line(r, in_dir ? (wdir / "bad.wtns").string() : node.string());
    EXPECT_LT(s, 3.0);
  }
}

TEST(HostileInputFile, FifoIsRefusedWithoutBlocking) {
  TempDir tmp;
  const fs::path fifo = tmp / "input.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused_everywhere(fifo, tmp.path());
}

TEST(HostileInputFile, DevNullIsRefused) {
  TempDir tmp;
  expect_refused_everywhere("/dev/null", tmp.path());
}

TEST(HostileInputFile, DirectoryIsRefused) {
  TempDir tmp;
  fs::create_directories(tmp / "a_dir");
  expect_refused_everywhere(tmp / "a_dir", tmp.path());
}

// --- every flag value validated ------------------------------------------------

struct BadFlag {
  const char* name;
  std::string args;  // after `proofpipe`
  const char* flag;  // the one line must name it
};

// "@OUT@" becomes a fresh folder per case, which must stay unmade.
std::string run_with(const std::string& extra) {
  return "run --zkey " + quote(multi_io() / "circuit.zkey") + " --witness " + quote(multi_io() / "w00.wtns") +
         " --out @OUT@ " + extra;
}

class HostileFlag : public ::testing::TestWithParam<BadFlag> {};

TEST_P(HostileFlag, IsOneErrorLineNamingTheFlag) {
  TempDir tmp;
  std::string args = GetParam().args;
  if (const size_t at = args.find("@OUT@"); at != std::string::npos) args.replace(at, 5, quote(tmp / "out"));
  const auto r = run_command("timeout -k 1 20 " + proofpipe() + " " + args);
  expect_one_error_line(r, GetParam().flag);
  EXPECT_FALSE(fs::exists(tmp / "out")) << "a bad flag must stop the run before anything is written";
}

const BadFlag kBadFlags[] = {
    {"hang_nan", run_with("--hang-timeout nan"), "--hang-timeout"},
    {"hang_inf", run_with("--hang-timeout inf"), "--hang-timeout"},
    {"hang_huge", run_with("--hang-timeout 1e300"), "--hang-timeout"},
    {"hang_tiny", run_with("--hang-timeout 1e-300"), "--hang-timeout"},
    {"hang_negative", run_with("--hang-timeout -1"), "--hang-timeout"},
    {"hang_zero", run_with("--hang-timeout 0"), "--hang-timeout"},
    {"hang_text", run_with("--hang-timeout soon"), "--hang-timeout"},
    {"slots_zero", run_with("--slots 0"), "--slots"},
    {"slots_huge", run_with("--slots 99999"), "--slots"},
    {"slots_negative", run_with("--slots -3"), "--slots"},
    {"synth_zero", run_with("--synth-workers 0"), "--synth-workers"},
    {"synth_negative", run_with("--synth-workers -1"), "--synth-workers"},
    {"gpu_zero", run_with("--gpu-workers 0"), "--gpu-workers"},
    {"workers_too_many", run_with("--synth-workers 200 --gpu-workers 100"), "--synth-workers"},
    {"attempts_zero", run_with("--max-attempts 0"), "--max-attempts"},
    {"sample_zero", run_with("--sample-ms 0"), "--sample-ms"},
    {"sample_text", run_with("--sample-ms fast"), "--sample-ms"},
    {"synth_mem_negative", run_with("--synth-mem-max -5G"), "--synth-mem-max"},
    {"synth_mem_nan", run_with("--synth-mem-max nanG"), "--synth-mem-max"},
    {"synth_mem_zero", run_with("--synth-mem-max 0"), "--synth-mem-max"},
    {"synth_mem_unit", run_with("--synth-mem-max 5Q"), "--synth-mem-max"},
    {"gpu_mem_huge", run_with("--gpu-mem-max 1e300"), "--gpu-mem-max"},
    {"gpu_mem_zero", run_with("--gpu-mem-max 0G"), "--gpu-mem-max"},
    {"budget_garbage", run_with("--mem-budget lots"), "--mem-budget"},
    {"budget_zero", run_with("--mem-budget 0"), "--mem-budget"},
    {"gpus_garbage", run_with("--gpus zero,one"), "--gpus"},
    {"gpus_empty_entry", run_with("--gpus 0,,1"), "--gpus"},
    {"backend_garbage", run_with("--backend tpu"), "backend"},
    {"unknown_flag", run_with("--frobnicate 3"), "--frobnicate"},
    {"missing_value", run_with("--slots"), "--slots"},
    {"missing_zkey", "run --out x --witness y", "--zkey"},
    {"gen_constraints_zero", "gen --out x --constraints 0", "--constraints"},
    {"gen_partitions_zero", "gen --out x --partitions 0", "--partitions"},
    {"gen_seed_text", "gen --out x --seed abc", "--seed"},
    {"demo_synth_zero", "demo --synth-workers 0", "--synth-workers"},
    {"demo_gpu_zero", "demo --gpu-workers 0", "--gpu-workers"},
    {"prove_backend", "prove a b c d --backend tpu", "backend"},
    {"no_subcommand", "", "subcommand"},
};

INSTANTIATE_TEST_SUITE_P(HostileInput, HostileFlag, ::testing::ValuesIn(kBadFlags),
                         [](const ::testing::TestParamInfo<BadFlag>& p) { return std::string(p.param.name); });

// --- proofpipe status without access -------------------------------------------

TEST(HostileStatus, UserWithoutAccessGetsOneLine) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run as nobody";
  TempDir tmp;
  // The parent is open to all, the run directory is root's and private.
  fs::permissions(tmp.path(), fs::perms::all, fs::perm_options::replace);
  const fs::path run_dir = make_private_dir(tmp / "proofpipe-run-root01");
  write_run_json(run_dir, ::getpid());
  const std::string as_nobody = "runuser -u nobody -- env XDG_RUNTIME_DIR=" + quote(tmp.path()) + " ";
  const auto given = run_command(as_nobody + proofpipe() + " status --run-dir " + quote(run_dir));
  expect_one_error_line(given, run_dir.string());
  const auto scanned = run_command(as_nobody + proofpipe() + " status");
  expect_one_error_line(scanned, "proofpipe");
}

}  // namespace
}  // namespace proofpipe::test
