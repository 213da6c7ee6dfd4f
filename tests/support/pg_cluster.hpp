// A throwaway PostgreSQL server for the shared-queue tests (docs/scale-out.md):
// initdb into a fresh temporary folder, pg_ctl start on a Unix socket in that
// folder (no TCP port to collide on), trust authentication, and stop + remove
// in the destructor, also when the test failed. initdb and postgres refuse
// to run as root: as root, the server runs as the `postgres` system user
// (the folder is chowned to it). Without the server binaries the tests skip,
// naming what is missing (a developer machine without the package); CI
// installs them (scripts/setup.sh).
#pragma once

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

namespace proofpipe::test {

class PgCluster {
 public:
  // nullptr with `why` set when the server cannot be run here.
  static std::unique_ptr<PgCluster> start(std::string& why) {
    const std::filesystem::path bin = find_bin();
    if (bin.empty()) {
      why = "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): apt-get install postgresql";
      return nullptr;
    }
    std::unique_ptr<PgCluster> c(new PgCluster(bin));
    if (c->dir_.path().empty()) {
      why = "cannot create a temporary folder";
      return nullptr;
    }
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (!pw) {
        why = "running as root and there is no `postgres` user to run the server as";
        return nullptr;
      }
      c->as_ = "runuser -u postgres -- ";
      if (::chown(c->dir_.path().c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        why = "cannot chown the cluster folder to postgres";
        return nullptr;
      }
    }
    const auto init = run_command(c->as_ + quote(bin / "initdb") + " -D " + quote(c->data()) +
                                  " -A trust -U pp --no-sync --no-instructions -E UTF8");
    if (init.exit_code != 0) {
      why = "initdb failed: " + init.output;
      return nullptr;
    }
    if (!c->up()) {
      why = "pg_ctl start failed: " + c->log();
      return nullptr;
    }
    return c;
  }

  ~PgCluster() {
    if (running_) run_command(as_ + quote(bin_ / "pg_ctl") + " -D " + quote(data()) + " -m immediate -w stop");
  }

  // postgresql://pp@/postgres?host=<socket folder>
  std::string url() const { return "postgresql://pp@/postgres?host=" + dir_.path().string(); }

  // pg_ctl stop -m fast (every session is cut) and start again.
  bool stop() {
    running_ = false;
    return run_command(as_ + quote(bin_ / "pg_ctl") + " -D " + quote(data()) + " -m fast -w stop").exit_code == 0;
  }
  bool up() {
    // No TCP, the socket in the cluster's folder; fsync off: a test's data
    // need not survive the machine.
    const auto r = run_command(as_ + quote(bin_ / "pg_ctl") + " -D " + quote(data()) + " -l " +
                               quote(dir_.path() / "server.log") + " -w -t 30 -o \"-c listen_addresses='' -k " +
                               dir_.path().string() + " -c fsync=off -c max_connections=40\" start");
    running_ = r.exit_code == 0;
    return running_;
  }
  std::string log() const { return run_command("cat " + quote(dir_.path() / "server.log")).output; }

 private:
  explicit PgCluster(std::filesystem::path bin) : bin_(std::move(bin)) {}
  std::filesystem::path data() const { return dir_.path() / "data"; }

  static std::filesystem::path find_bin() {
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      if (std::filesystem::exists(e.path() / "bin" / "initdb")) found.push_back(e.path() / "bin");
    }
    if (found.empty()) return {};
    std::sort(found.begin(), found.end());
    return found.back();  // the newest major version
  }

  std::filesystem::path bin_;
  TempDir dir_;
  std::string as_;  // "runuser -u postgres -- " as root
  bool running_ = false;
};

}  // namespace proofpipe::test
