// `serve --queue postgresql://` takes its queue from the PostgreSQL module
// (service/src/queue_module.hpp), found only beside the running executable
// or in the prefix's lib/proofpipe/: an executable copied without it, or
// beside one it must not trust, stops at once with one line naming the
// module and the paths tried; beside a good one it gets as far as
// connecting. 127.0.0.1 port 1 refuses a connection at once, so no server
// is needed, and `timeout` turns a hang into a failure.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModule = "proofpipe_queue_pg.so";

// A copy of `proofpipe` in <tmp>/bin, with the build's module beside it when `with_module`.
fs::path copy_exe(const TempDir& tmp, bool with_module) {
  fs::create_directories(tmp / "bin");
  fs::copy_file(bin_path("proofpipe"), tmp / "bin" / "proofpipe");
  if (with_module) fs::copy_file(bin_path(kModule), tmp / "bin" / kModule);
  return tmp / "bin" / "proofpipe";
}

// `serve --queue postgresql://` from `exe`: it must fail (nothing listens on
// port 1), and at once rather than after `timeout`'s 60 s.
CommandResult serve_pg(const TempDir& tmp, const fs::path& exe) {
  const fs::path zkey = data_dir() / "multi_io" / "circuit.zkey";
  CommandResult r =
      run_command("timeout 60 " + quote(exe) + " serve --key m=" + quote(zkey) + " --listen 127.0.0.1:0 --state-dir " +
                  quote(tmp / "state") + " --queue postgresql://u@127.0.0.1:1/db");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.exit_code, 124) << "serve hung: " << r.output;
  return r;
}

// The line of the output that names the module ("" if none does).
std::string module_line(const std::string& output) {
  const size_t at = output.find("PostgreSQL queue module");
  if (at == std::string::npos) return {};
  const size_t nl = output.rfind('\n', at);
  const size_t begin = nl == std::string::npos ? 0 : nl + 1;
  return output.substr(begin, output.find('\n', at) - begin);
}

TEST(QueueModule, AnExecutableWithoutItsModuleSaysSoInOneLine) {
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/false);
  const CommandResult r = serve_pg(tmp, exe);
  const std::string line = module_line(r.output);
  ASSERT_FALSE(line.empty()) << r.output;
  EXPECT_NE(line.find("--queue postgresql://..."), std::string::npos) << line;
  EXPECT_NE(line.find((tmp / "bin" / kModule).string()), std::string::npos) << line;
  EXPECT_NE(line.find("/lib/proofpipe/"), std::string::npos) << line;  // the installed place, tried second
  EXPECT_NE(line.find("reinstall proofpipe"), std::string::npos) << line;
  EXPECT_EQ(line.find("u@127.0.0.1"), std::string::npos) << "the URL, which may hold a password, is not repeated";
}

TEST(QueueModule, AGroupWritableModuleIsRefused) {
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/true);
  fs::permissions(tmp / "bin" / kModule, fs::perms::group_write, fs::perm_options::add);
  const CommandResult r = serve_pg(tmp, exe);
  const std::string line = module_line(r.output);
  EXPECT_NE(line.find("writable by group or others"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("cannot connect"), std::string::npos) << "the module was loaded: " << r.output;
}

TEST(QueueModule, ALinkToTheModuleIsRefused) {
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/false);
  fs::create_symlink(bin_path(kModule), tmp / "bin" / kModule);
  const CommandResult r = serve_pg(tmp, exe);
  EXPECT_NE(module_line(r.output).find("a symbolic link, refused"), std::string::npos) << r.output;
}

// A FIFO where the module should be is one line, not a wait for a writer.
TEST(QueueModule, AFifoInPlaceOfTheModuleIsRefusedAtOnce) {
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/false);
  ASSERT_EQ(::mkfifo((tmp / "bin" / kModule).c_str(), 0600), 0);
  const CommandResult r = serve_pg(tmp, exe);
  EXPECT_NE(module_line(r.output).find("not a regular file"), std::string::npos) << r.output;
}

// Root may hand the file to a third user, who could then rewrite it.
TEST(QueueModule, AModuleOfAThirdUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the module to another user";
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/true);
  ASSERT_EQ(::chown((tmp / "bin" / kModule).c_str(), 4242, 4242), 0);
  const CommandResult r = serve_pg(tmp, exe);
  EXPECT_NE(module_line(r.output).find("owned by uid 4242"), std::string::npos) << r.output;
}

// Beside its module the copy loads it and gets as far as libpq.
TEST(QueueModule, BesideItsModuleTheCopyConnects) {
  TempDir tmp;
  const fs::path exe = copy_exe(tmp, /*with_module=*/true);
  const CommandResult r = serve_pg(tmp, exe);
  EXPECT_EQ(module_line(r.output), "") << r.output;
  EXPECT_NE(r.output.find("cannot connect"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace proofpipe::test
