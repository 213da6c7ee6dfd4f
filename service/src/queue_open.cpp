// --queue, --node-id and --lease of `proofpipe serve` (queue_open.hpp).
#include "queue_open.hpp"

#include <unistd.h>

#include <cctype>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "intake.hpp"
#include "journal_sqlite.hpp"
#include "pg_secrets.hpp"
#include "proofpipe/common/clock.hpp"
#include "queue_module.hpp"

namespace proofpipe::service {

Result<std::unique_ptr<JobQueue>> open_queue(const std::string& spec, const StateDir& state, const NodeSettings& node) {
  if (spec == "sqlite") {
    PP_RETURN_IF_ERROR(check_journal_not_lost(state.path()));
    PP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteJournal> journal, SqliteJournal::open(state.path() / "journal.db"));
    // Lives are numbered without reuse: life 1 is a journal that never ran
    // before, which knows no job, so every copy would look like nobody's.
    // Those copies are left alone (the check above refuses the usual way
    // to get here with copies present; this covers a journal file that
    // held no proofpipe schema yet).
    if (journal->life() > 1) {
      PP_ASSIGN_OR_RETURN(auto referenced, journal->witness_dirs());
      PP_RETURN_IF_ERROR(sweep_staging(state.path() / "witnesses", referenced));
      PP_RETURN_IF_ERROR(sweep_proof_temps(state.path() / "proofs"));
    }
    return std::unique_ptr<JobQueue>(std::move(journal));
  }
  if (spec.starts_with("postgresql://") || spec.starts_with("postgres://")) {
    if (const std::string warning = url_password_warning(spec); !warning.empty()) spdlog::warn("{}", warning);
    // This node holds no claim yet: every witness copy an earlier life
    // wrote is nobody's (its claims ran out and are another node's now).
    PP_RETURN_IF_ERROR(sweep_staging(state.path() / "witnesses", {}));
    PgQueueConfig cfg;
    cfg.url = spec;
    cfg.node_id = node.node_id;
    cfg.lease_s = node.lease_s;
    cfg.max_attempts = node.max_attempts;
    cfg.witness_dir = state.path() / "witnesses";
    return open_pg_module_queue(spec.substr(0, spec.find("://") + 3), cfg);
  }
  return make_error(ErrorCode::kInvalidArgument, "--queue '{}': use sqlite or a postgresql://USER@HOST/DB URL",
                    hide_passwords(spec, spec));
}

std::string url_password_warning(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::string_view rest = url.substr(scheme + 3);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  const size_t at = authority.rfind('@');
  bool given = at != std::string_view::npos && authority.substr(0, at).find(':') != std::string_view::npos;
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    const std::string_view query = rest.substr(q + 1);
    given = given || query.starts_with("password=") || query.find("&password=") != std::string_view::npos;
  }
  if (!given) return {};
  return "--queue: the URL holds a password, which every local user can read in /proc/<pid>/cmdline and ps "
         "while the service runs; put it in a passfile ($PGPASSFILE or ~/.pgpass, mode 0600) or $PGPASSWORD, "
         "and leave it out of the URL";
}

Result<double> parse_lease(std::string_view text) {
  const std::optional<double> s = parse_duration_s(text);
  // Shorter than a second cannot be renewed reliably (every lease/3) past
  // one slow turn of the engine; longer than a day means a dead node's work
  // waits a day.
  if (!s || !(*s >= 1 && *s <= 86400)) {
    return make_error(ErrorCode::kInvalidArgument, "--lease '{}': give a duration between 1s and 24h, e.g. 30s", text);
  }
  return *s;
}

std::string default_node_id() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::string h;
  for (const char* c = host; *c; ++c) h += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-') ? *c : '_';
  return fmt::format("{}-{}", h.empty() ? "node" : h, ::getpid());
}

}  // namespace proofpipe::service
