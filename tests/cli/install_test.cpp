// `cmake --install`: proofpipe and its two workers in
// <prefix>/bin, the PostgreSQL queue module in <prefix>/lib/proofpipe and
// the demo circuit in <prefix>/share/proofpipe, the systemd unit and the
// docs (cmake/Packaging.cmake); the
// installed prefix, moved elsewhere, still runs `demo`, which finds its data
// relative to its own executable: no source path is built into the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/subprocess.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

TEST(Install, DemoRunsFromAMovedPrefix) {
  TempDir tmp;
  const fs::path build = fs::path(PP_BIN_DIR).parent_path();
  auto inst = run_command("cmake --install " + quote(build) + " --prefix " + quote(tmp / "prefix"));
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  for (const char* exe : {"proofpipe", "proofpipe-synth-worker", "proofpipe-gpu-worker"}) {
    EXPECT_TRUE(fs::is_regular_file(tmp / "prefix" / "bin" / exe)) << exe;
  }
  const fs::path share = tmp / "prefix" / "share" / "proofpipe";
  for (const char* f : {"circuit.zkey", "verification_key.json", "w00.wtns", "w11.wtns"}) {
    EXPECT_TRUE(fs::is_regular_file(share / f)) << f;
  }
  // Moved: nothing may still point at the prefix it was installed to.
  fs::rename(tmp / "prefix", tmp / "moved");
  const fs::path exe = tmp / "moved" / "bin" / "proofpipe";
  auto demo = run_command("cd " + quote(tmp / "") + " && " + quote(exe) + " demo --out " + quote(tmp / "demo-out"));
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  EXPECT_NE(demo.output.find("proving the bundled circuit '" + (tmp / "moved" / "share" / "proofpipe").string()),
            std::string::npos)
      << demo.output;
  EXPECT_NE(demo.output.find("12 proved of 12, 12 verified from disk"), std::string::npos) << demo.output;
  // The bn128 build of the same circuit, installed beside it (demo --curve bn128).
  demo = run_command("cd " + quote(tmp / "") + " && " + quote(exe) + " demo --curve bn128 --out " +
                     quote(tmp / "demo-bn128"));
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  const fs::path bn128 = tmp / "moved" / "share" / "proofpipe" / "bn128";
  EXPECT_NE(demo.output.find("proving the bundled circuit '" + bn128.string() + "' (bn128)"), std::string::npos)
      << demo.output;
  EXPECT_NE(demo.output.find("12 proved of 12, 12 verified from disk"), std::string::npos) << demo.output;
  // The source tree's demo folder is not in the binary (it was, as PP_DEMO_DIR).
  std::ifstream in(exe, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.find(std::string(PP_SOURCE_DIR) + "/tests/data"), std::string::npos);
  auto version = run_command(quote(exe) + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.output.rfind("proofpipe 0.", 0), 0u) << version.output;
}

// The PostgreSQL queue module goes to <prefix>/<libdir>/proofpipe, and the
// moved executable finds it there (from its own place): `serve --queue
// postgresql://` gets as far as connecting (127.0.0.1 port 1 refuses at once).
TEST(Install, ServeFindsTheQueueModuleInAMovedPrefix) {
  TempDir tmp;
  const fs::path build = fs::path(PP_BIN_DIR).parent_path();
  auto inst = run_command("cmake --install " + quote(build) + " --prefix " + quote(tmp / "prefix"));
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  fs::path module;
  for (const auto& e : fs::recursive_directory_iterator(tmp / "prefix")) {
    if (e.path().filename() == "proofpipe_queue_pg.so") module = e.path();
  }
  ASSERT_FALSE(module.empty()) << "no proofpipe_queue_pg.so installed";
  EXPECT_EQ(module.parent_path().filename(), "proofpipe") << module;
  EXPECT_FALSE(fs::exists(tmp / "prefix" / "bin" / "proofpipe_queue_pg.so"));
  EXPECT_EQ(fs::status(module).permissions() & (fs::perms::group_write | fs::perms::others_write), fs::perms::none);
  fs::rename(tmp / "prefix", tmp / "moved");
  const fs::path zkey = tmp / "moved" / "share" / "proofpipe" / "circuit.zkey";
  auto serve = run_command("timeout 60 " + quote(tmp / "moved" / "bin" / "proofpipe") +
                           " serve --key m=" + quote(zkey) + " --listen 127.0.0.1:0 --state-dir " +
                           quote(tmp / "state") + " --queue postgresql://u@127.0.0.1:1/db");
  EXPECT_NE(serve.exit_code, 0) << serve.output;
  EXPECT_EQ(serve.output.find("queue module"), std::string::npos) << serve.output;
  EXPECT_NE(serve.output.find("cannot connect"), std::string::npos) << serve.output;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The systemd unit and the docs (cmake/Packaging.cmake, what the Debian
// package holds): the unit is packaging/proofpipe.service with its
// /usr/local paths turned into those of the prefix the build was configured
// with, and the page its Documentation= names is installed where it points.
TEST(Install, TheUnitNamesTheConfiguredPrefixAndItsDocsAreInstalled) {
  TempDir tmp;
  const fs::path build = fs::path(PP_BIN_DIR).parent_path();
  auto inst = run_command("cmake --install " + quote(build) + " --prefix " + quote(tmp / "prefix"));
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  const std::string cache = read_text(build / "CMakeCache.txt");
  const std::string key = "CMAKE_INSTALL_PREFIX:PATH=";
  const size_t at = cache.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string prefix = cache.substr(at + key.size(), cache.find('\n', at) - at - key.size());

  std::string want = read_text(fs::path(PP_SOURCE_DIR) / "packaging" / "proofpipe.service");
  for (size_t p = 0; (p = want.find("/usr/local/", p)) != std::string::npos;) {
    want.replace(p, 11, prefix + "/");
    p += prefix.size() + 1;
  }
  const fs::path unit = tmp / "prefix" / "lib" / "systemd" / "system" / "proofpipe.service";
  ASSERT_TRUE(fs::is_regular_file(unit));
  const std::string got = read_text(unit);
  EXPECT_EQ(got, want);
  EXPECT_NE(got.find("ExecStart=" + prefix + "/bin/proofpipe serve"), std::string::npos) << got;

  const fs::path doc = tmp / "prefix" / "share" / "doc" / "proofpipe";
  for (const char* f : {"README.md", "service.md", "operations.md", "bindings.md"}) {
    EXPECT_TRUE(fs::is_regular_file(doc / f)) << f;
  }
  EXPECT_NE(got.find("Documentation=file://" + prefix + "/share/doc/proofpipe/service.md"), std::string::npos) << got;
}

}  // namespace
}  // namespace proofpipe::test
