// The PostgreSQL queue as a loadable module (docs/scale-out.md, "The
// PostgreSQL module"): PgQueue (queue_pg.hpp) and libpqxx live in
// proofpipe_queue_pg.so, which `serve --queue postgresql://` loads with
// dlopen. The executable itself does not link libpq: libpqxx and libpq
// brought 15 of the 39 shared libraries `proofpipe` loaded (LDAP, GnuTLS,
// OpenSSL, SASL, nettle, p11-kit...), 6 ms of the loader's time at the start
// of every prove, verify or run that never touches PostgreSQL
// (docs/performance.md, "Process start-up").
//
// Only a factory crosses the boundary: the module's one export takes a
// PgQueueConfig and hands back a JobQueue (an abstract class; the object's
// vtable and code stay in the module, which is therefore never unloaded).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/common/version.hpp"
#include "proofpipe/service/job_queue.hpp"
#include "queue_pg.hpp"

namespace proofpipe::service {

// The module's export (queue_pg_entry.cpp). `build` is the loader's
// queue_module_build(): a module of another build is refused (nullptr), since
// it would read a PgQueueConfig and fill a JobQueue of another layout. On
// success the queue, which the caller owns; else nullptr and *error set.
extern "C" {
using PgQueueOpenFn = JobQueue* (*)(const char* build, const PgQueueConfig* cfg, Status* error);
}
inline constexpr const char* kPgQueueOpenSymbol = "proofpipe_queue_pg_open";

// The release and `git describe` of this build ("0.1.0 git 0fce3f1"),
// compiled into both sides: the module and the executable must agree on it.
inline std::string queue_module_build() { return std::string(kReleaseVersion) + " " + kGitDescribe; }

// PgQueue::open(cfg) through the module, loaded on the first call (once per
// process, RTLD_NOW | RTLD_LOCAL, never unloaded) from the executable's own
// folder (the build tree: bin/proofpipe_queue_pg.so beside bin/proofpipe),
// else from the installed lib/proofpipe/ beside bin/: never from the
// environment, the working directory or the loader's search path. The file
// must be a regular file (not a link), writable by its owner alone, and
// owned by root or by the executable's owner (serve may run as root). A
// module missing, refused or failing to load is one line naming `--queue
// <scheme>...`, every path tried and why; the URL itself is not repeated
// (it may hold a password).
Result<std::unique_ptr<JobQueue>> open_pg_module_queue(std::string_view scheme, const PgQueueConfig& cfg);

}  // namespace proofpipe::service
