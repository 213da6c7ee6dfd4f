// Which queue `proofpipe serve` runs on (--queue, docs/scale-out.md): the
// SQLite journal in --state-dir (one node), or a PostgreSQL database that
// many nodes share. Also the node's id and the --lease flag.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/job_queue.hpp"
#include "serve_setup.hpp"

namespace proofpipe::service {

struct NodeSettings {
  std::string node_id;
  double lease_s = 30;
  uint32_t max_attempts = 3;
};

// "sqlite": the journal (its stage folders and proof temporaries swept as
// at every start). "postgresql://..." or "postgres://...": the shared queue
// (from its module, queue_module.hpp), its schema migrated; witnesses
// claimed from it are written under the state directory's witnesses/.
// Anything else, a bad URL, a module that cannot be loaded or a database
// that cannot be reached: one line naming --queue.
Result<std::unique_ptr<JobQueue>> open_queue(const std::string& spec, const StateDir& state, const NodeSettings& node);

// A password given in a postgresql:// --queue URL (user:PASSWORD@host, or a
// password= parameter) can be read by every local user in /proc/PID/cmdline
// and ps for the life of the service. Empty if the URL holds none, else the
// one warning line serve logs: libpq takes the password from $PGPASSWORD or
// a passfile ($PGPASSFILE, default ~/.pgpass) when the URL has none.
std::string url_password_warning(std::string_view url);

// "30s", "1.5s", "500ms", "2m", or plain seconds; between 1 s and 1 day.
Result<double> parse_lease(std::string_view text);

// <hostname>-<pid>: unique among the live nodes, stable for the process.
std::string default_node_id();

}  // namespace proofpipe::service
