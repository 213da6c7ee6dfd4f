// What proofpipe writes, as root on a shared host: no write
// follows a link planted at a temporary or final name; a FIFO, device or
// directory given as an output, or one path given twice, is a one-line error;
// `prove` verifies before it writes and names a corrupt key or a witness that
// does not satisfy the circuit; and a run's outputs always agree with its
// summary.json (stale proofs, a full disk, bad input).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/json_file.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

const fs::path kMultiIo = data_dir() / "multi_io";
constexpr const char* kVictimBytes = "victim: must never change\n";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void spill(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// A shell that plants `links` (names relative to nothing: full paths, in
// which "PID" becomes the shell's pid) pointing at `victim`, then execs
// `command`, which keeps that pid: the old code's "<name>.tmp.<pid>" names.
CommandResult with_links_planted(const std::vector<std::string>& links, const fs::path& victim,
                                 const std::string& command) {
  std::string script;
  for (const auto& l : links) {
    std::string name = l;
    if (auto at = name.find("PID"); at != std::string::npos) name.replace(at, 3, "$$");
    script += "ln -s " + quote(victim) + " \"" + name + "\"; ";
  }
  script += "exec " + command;
  return run_command("sh -c " + quote(script));
}

// Every file directly in `dir` whose name holds ".tmp".
std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().find(".tmp") != std::string::npos) found.push_back(e.path().filename());
  }
  return found;
}

// One "proofpipe: error: " line naming `needle`, exit 2.
void expect_one_line_error(const CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("proofpipe: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

// The data of section `type` of a circom/snarkjs container (offset, size).
std::pair<size_t, size_t> section_of(const std::string& file, uint32_t type) {
  uint32_t n = 0;
  std::memcpy(&n, file.data() + 8, 4);
  size_t off = 12;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t t = 0;
    uint64_t size = 0;
    std::memcpy(&t, file.data() + off, 4);
    std::memcpy(&size, file.data() + off + 4, 8);
    if (t == type) return {off + 12, size_t(size)};
    off += 12 + size;
  }
  ADD_FAILURE() << "no section " << type;
  return {0, 0};
}

class OutputsSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    victim_ = tmp_ / "victim";
    spill(victim_, kVictimBytes);
  }
  void expect_victim_intact() { EXPECT_EQ(slurp(victim_), kVictimBytes) << "a write went through a planted link"; }
  std::string prove_cmd(const fs::path& zkey, const fs::path& wtns, const fs::path& proof, const fs::path& pub) {
    return proofpipe() + " prove --backend cpu " + quote(zkey) + " " + quote(wtns) + " " + quote(proof) + " " +
           quote(pub);
  }
  std::string run_cmd(const std::string& witnesses, const fs::path& out, const std::string& extra = "") {
    return proofpipe() + " run --backend cpu --synth-workers 1 --gpu-workers 1 --max-attempts 2 --zkey " +
           quote(kMultiIo / "circuit.zkey") + witnesses + " --out " + quote(out) + " --run-dir " + quote(tmp_ / "run") +
           extra;
  }
  static std::string witness(const char* name) { return " --witness " + quote(kMultiIo / name); }

  TempDir tmp_;
  fs::path victim_;
};

#define REQUIRE_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "plants links and device nodes as root"

TEST_F(OutputsSafety, ProveAndExportVkeyNeverWriteThroughPlantedLinks) {
  REQUIRE_ROOT();
  const fs::path proof = tmp_ / "p.json", pub = tmp_ / "pub.json", vkey = tmp_ / "vk.json";
  auto r = with_links_planted({proof.string() + ".tmp.PID", pub.string() + ".tmp.PID", proof.string(), pub.string()},
                              victim_, prove_cmd(kMultiIo / "circuit.zkey", kMultiIo / "w00.wtns", proof, pub));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_victim_intact();
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(proof))) << "the link at the final name must be replaced";
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(pub)));

  r = with_links_planted({vkey.string() + ".tmp.PID", vkey.string()}, victim_,
                         proofpipe() + " export-vkey " + quote(kMultiIo / "circuit.zkey") + " " + quote(vkey));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_victim_intact();
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(vkey)));

  const fs::path zkey = tmp_ / "dev.zkey";
  r = with_links_planted({zkey.string() + ".tmp-PID"}, victim_,
                         proofpipe() + " setup-dev " + quote(kMultiIo / "circuit.r1cs") + " " + quote(zkey));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_victim_intact();
}

TEST_F(OutputsSafety, RunNeverWritesThroughPlantedLinks) {
  REQUIRE_ROOT();
  const fs::path out = tmp_ / "out";
  fs::create_directories(out);
  const fs::path metrics = out / "m.jsonl";
  auto r = with_links_planted({(out / "summary.json.tmp").string(), (out / "w00.proof.json.tmp.PID").string(),
                               (out / "w00.public.json.tmp.PID").string(), metrics.string()},
                              victim_, run_cmd(witness("w00.wtns"), out, " --metrics " + quote(metrics)));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_victim_intact();
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out / "summary.json")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(metrics)));

  // Links at the final names, replaced (not written through) under --overwrite.
  const fs::path out2 = tmp_ / "out2";
  fs::create_directories(out2);
  r = with_links_planted(
      {(out2 / "summary.json").string(), (out2 / "w00.proof.json").string(), (out2 / "w00.public.json").string()},
      victim_, run_cmd(witness("w00.wtns"), out2, " --overwrite"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_victim_intact();
  for (const char* name : {"summary.json", "w00.proof.json", "w00.public.json"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out2 / name))) << name;
  }
}

TEST_F(OutputsSafety, NonRegularOutputsAreOneLineErrors) {
  const fs::path fifo = tmp_ / "fifo", dir = tmp_ / "dir", pub = tmp_ / "pub.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directories(dir);
  const std::string zkey = quote(kMultiIo / "circuit.zkey"), wtns = kMultiIo / "w00.wtns";
  // `timeout`: a command that blocks on the FIFO fails here instead of hanging.
  auto prove = [&](const fs::path& proof, const fs::path& p) {
    return run_command("timeout 60 " + prove_cmd(kMultiIo / "circuit.zkey", wtns, proof, p));
  };
  expect_one_line_error(prove(fifo, pub), "is a FIFO");
  expect_one_line_error(prove(tmp_ / "p.json", dir), "is a directory");
  expect_one_line_error(prove(pub, pub), "same file");
  expect_one_line_error(run_command("timeout 60 " + proofpipe() + " export-vkey " + zkey + " " + quote(fifo)),
                        "is a FIFO");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_FALSE(fs::exists(tmp_ / "p.json"));
  EXPECT_FALSE(fs::exists(pub));
  EXPECT_TRUE(temp_files(tmp_.path()).empty());
  if (::geteuid() == 0) {  // a device node like /dev/null, made here so the real one is never at risk
    const fs::path null = tmp_ / "null";
    ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
    expect_one_line_error(prove(null, pub), "is a character device");
    EXPECT_EQ(fs::status(null).type(), fs::file_type::character);
    expect_one_line_error(
        run_command("timeout 60 " + run_cmd(witness("w00.wtns"), tmp_ / "out", " --metrics " + quote(null))),
        "is a character device");
  }
}

TEST_F(OutputsSafety, ProveNamesACorruptKeyAndWritesNothing) {
  std::string key = slurp(kMultiIo / "circuit.zkey");
  const auto [h_off, h_size] = section_of(key, 9);  // H: every point is used by every proof
  ASSERT_GT(h_size, 4 * 96u);
  key[h_off + 3 * 96 + 48] ^= 1;  // point 3's y: off the curve, still below q
  const fs::path zkey = tmp_ / "bad.zkey", proof = tmp_ / "p.json", pub = tmp_ / "pub.json";
  spill(zkey, key);
  auto r = run_command(prove_cmd(zkey, kMultiIo / "w00.wtns", proof, pub));
  expect_one_line_error(r, "section 9 (H) point 3 is not on the curve");
  EXPECT_NE(r.output.find(zkey.string()), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(proof));
  EXPECT_FALSE(fs::exists(pub));
}

TEST_F(OutputsSafety, ProveNamesAnUnsatisfiedWitnessAndWritesNothing) {
  std::string w = slurp(kMultiIo / "w00.wtns");
  const auto [off, size] = section_of(w, 2);
  ASSERT_GT(size, 7 * 32u);
  w[off + 6 * 32] ^= 1;  // s[0], the first private input: x[0] = a * s[0] no longer holds
  const fs::path wtns = tmp_ / "bad.wtns", proof = tmp_ / "p.json", pub = tmp_ / "pub.json";
  spill(wtns, w);
  auto r = run_command(prove_cmd(kMultiIo / "circuit.zkey", wtns, proof, pub));
  expect_one_line_error(r, "the witness does not satisfy the circuit's constraints (the proof does not verify)");
  EXPECT_NE(r.output.find(wtns.string()), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(proof));
  EXPECT_FALSE(fs::exists(pub));
}

TEST_F(OutputsSafety, StaleOutputsAreRefusedWithoutOverwrite) {
  const fs::path out = tmp_ / "out";
  fs::create_directories(out);
  spill(out / "w00.proof.json", "stale proof\n");
  spill(out / "w00.public.json", "stale public\n");
  auto r = run_command(run_cmd(witness("w00.wtns") + witness("w01.wtns"), out));
  expect_one_line_error(r, "--overwrite");
  EXPECT_EQ(slurp(out / "w00.proof.json"), "stale proof\n");
  EXPECT_EQ(slurp(out / "w00.public.json"), "stale public\n");
  EXPECT_FALSE(fs::exists(out / "summary.json"));
  EXPECT_FALSE(fs::exists(out / "w01.proof.json"));
}

TEST_F(OutputsSafety, OverwriteLeavesNoProofForAFailedPartition) {
  const fs::path out = tmp_ / "out";
  fs::create_directories(out);
  spill(out / "w00.proof.json", "stale proof\n");
  spill(out / "w00.public.json", "stale public\n");
  spill(out / "summary.json", "{}\n");
  auto r = run_command("PROOFPIPE_FAULTS=gpu.mid_compute~0:error " +
                       run_cmd(witness("w00.wtns") + witness("w01.wtns"), out, " --overwrite"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_FALSE(fs::exists(out / "w00.proof.json")) << "a failed partition kept a proof";
  EXPECT_FALSE(fs::exists(out / "w00.public.json"));
  EXPECT_TRUE(fs::exists(out / "w01.proof.json"));
  const auto summary = read_json(out / "summary.json");
  ASSERT_EQ(summary["failed"].size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["failed"][0]["partition"], "w00");
}

// A tmpfs of 64 KiB filled up to its last `free_pages` pages.
class FullDisk : public OutputsSafety {
 protected:
  bool mount_full(unsigned free_pages) {
    out_ = tmp_ / "out";
    fs::create_directories(out_);
    if (::geteuid() != 0 || ::mount("tmpfs", out_.c_str(), "tmpfs", 0, "size=64k") != 0) return false;
    mounted_ = true;
    std::ofstream fill(out_ / ".filler", std::ios::binary);
    const std::string page(4096, 'x');
    while (fill.write(page.data(), page.size()) && fill.flush()) {
    }
    fill.close();
    const auto size = fs::file_size(out_ / ".filler");
    fs::resize_file(out_ / ".filler", size - std::min<uintmax_t>(size, free_pages * 4096u));
    return true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(out_.c_str(), MNT_DETACH);
  }
  fs::path out_;
  bool mounted_ = false;
};

TEST_F(FullDisk, APairIsWrittenWholeOrNotAtAll) {
  if (!mount_full(1)) GTEST_SKIP() << "needs root and a tmpfs mount";
  auto r = run_command(run_cmd(witness("w00.wtns"), out_));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(out_ / "w00.public.json")) << "orphan public.json\n" << r.output;
  EXPECT_FALSE(fs::exists(out_ / "w00.proof.json")) << r.output;
  EXPECT_TRUE(temp_files(out_).empty()) << r.output;
}

TEST_F(FullDisk, AFailedSummaryLeavesNoTempAndTheLastLineSaysSo) {
  if (!mount_full(0)) GTEST_SKIP() << "needs root and a tmpfs mount";
  // stderr alone: the table on stdout is flushed at exit, after it, in a pipe.
  auto r = run_command("{ " + run_cmd(witness("w00.wtns"), out_) + " 2>&1 >/dev/null; }");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(out_ / "summary.json"));
  EXPECT_TRUE(temp_files(out_).empty()) << r.output;
  std::string last = r.output.substr(0, r.output.size() - 1);
  last = last.substr(last.rfind('\n') + 1);
  EXPECT_NE(last.find("summary could not be written"), std::string::npos) << r.output;
}

TEST_F(OutputsSafety, BadInputLeavesNoOutFolder) {
  const fs::path out = tmp_ / "new" / "out";
  // Refused while checking the flags, and refused while setting up (--metrics a folder).
  expect_one_line_error(run_command(run_cmd(witness("w00.wtns"), out, " --mem-budget 1K")), "--mem-budget");
  EXPECT_FALSE(fs::exists(tmp_ / "new"));
  fs::create_directories(tmp_ / "metrics-dir");
  auto r = run_command(run_cmd(witness("w00.wtns"), out, " --metrics " + quote(tmp_ / "metrics-dir")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(fs::exists(tmp_ / "new")) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
