// PgQueue (queue_pg.hpp): the connections and their back-off, the schema and
// its migration, and the API's side of JobQueue (submit, get, list, cancel,
// proofs). The claim side is queue_pg_engine.cpp.
#include "queue_pg.hpp"
#include "intake.hpp"

#include <cstdlib>

#include <spdlog/spdlog.h>
#include <pqxx/pqxx>

#include "proofpipe/common/safe_file.hpp"
#include "queue_pg_conn.hpp"

namespace proofpipe::service {
namespace {

// kMigrations[v - 1] takes the schema from version v - 1 to v; a node never
// opens a database newer than it knows.
constexpr const char* kMigrations[] = {R"sql(
CREATE SEQUENCE fence_seq;
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  heartbeat_at TIMESTAMPTZ NOT NULL,
  lease_s DOUBLE PRECISION NOT NULL,
  started_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE jobs (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL,
  priority BIGINT NOT NULL,
  digest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  submitted_at DOUBLE PRECISION NOT NULL,
  started_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  finished_at DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
CREATE TABLE partitions (
  job_seq BIGINT NOT NULL REFERENCES jobs (seq),
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  key TEXT NOT NULL,
  priority BIGINT NOT NULL,
  witness_bytes BYTEA NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  claimed_by TEXT,
  lease_until TIMESTAMPTZ,
  fence BIGINT NOT NULL DEFAULT 0,
  started_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  finished_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  wait_s DOUBLE PRECISION NOT NULL DEFAULT 0, synth_s DOUBLE PRECISION NOT NULL DEFAULT 0,
  prove_s DOUBLE PRECISION NOT NULL DEFAULT 0, intake_s DOUBLE PRECISION NOT NULL DEFAULT 0,
  h_s DOUBLE PRECISION NOT NULL DEFAULT 0, msms_s DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (job_seq, idx),
  UNIQUE (job_seq, name)
);
CREATE INDEX partitions_claimable ON partitions (priority DESC, job_seq, idx) WHERE status IN ('queued', 'running');
CREATE TABLE attempts (
  job_seq BIGINT NOT NULL,
  idx INTEGER NOT NULL,
  fence BIGINT NOT NULL,
  node TEXT NOT NULL,
  claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  ended_at TIMESTAMPTZ,
  result TEXT NOT NULL DEFAULT 'running' CHECK (result IN ('running', 'done', 'failed', 'lost', 'released')),
  error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (job_seq, idx, fence),
  FOREIGN KEY (job_seq, idx) REFERENCES partitions (job_seq, idx)
);
CREATE TABLE proofs (
  job_seq BIGINT NOT NULL,
  idx INTEGER NOT NULL,
  fence BIGINT NOT NULL,
  node TEXT NOT NULL,
  proof TEXT NOT NULL,
  public TEXT NOT NULL,
  committed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (job_seq, idx),
  FOREIGN KEY (job_seq, idx) REFERENCES partitions (job_seq, idx)
);
)sql",
                                       // 2: a partition given as circom input JSON (witness_bytes hold the
                                       // input; the key's --witness-gen makes the witness, docs/witness-gen.md).
                                       R"sql(
ALTER TABLE partitions ADD COLUMN kind TEXT NOT NULL DEFAULT 'witness' CHECK (kind IN ('witness', 'input'));
)sql"};
static_assert(std::size(kMigrations) == PgQueue::kSchemaVersion);

// Any fixed number: the lock every node's migration takes first.
constexpr int64_t kMigrationLock = 0x70726f6f66;  // "proof"

constexpr const char* kJobSelect =
    "SELECT j.seq, j.id, j.key, j.digest, j.priority, j.state, j.submitted_at, j.started_at, j.finished_at, "
    "count(p.idx), count(*) FILTER (WHERE p.status = 'done'), count(*) FILTER (WHERE p.status = 'failed'), "
    "count(*) FILTER (WHERE p.status = 'cancelled') FROM jobs j LEFT JOIN partitions p ON p.job_seq = j.seq ";

Job job_from_row(const pqxx::row& r) {
  Job j;
  j.seq = r[0].as<uint64_t>();
  j.id = r[1].as<std::string>();
  j.key = r[2].as<std::string>();
  j.digest = r[3].as<std::string>();
  j.priority = r[4].as<int64_t>();
  j.state = parse_job_state(r[5].as<std::string>()).value_or(JobState::kFailed);  // CHECK keeps it one of five
  j.submitted_at = r[6].as<double>();
  j.started_at = r[7].as<double>();
  j.finished_at = r[8].as<double>();
  j.total = r[9].as<uint32_t>();
  j.done = r[10].as<uint32_t>();
  j.failed = r[11].as<uint32_t>();
  j.cancelled = r[12].as<uint32_t>();
  return j;
}

Result<Job> load_job(pqxx::transaction_base& tx, uint64_t seq) {
  const pqxx::result jr = tx.exec_params(std::string(kJobSelect) + "WHERE j.seq = $1 GROUP BY j.seq", seq);
  if (jr.empty()) return make_error(ErrorCode::kInternal, "postgresql: no job #{}", seq);
  Job job = job_from_row(jr[0]);
  const pqxx::result pr = tx.exec_params(
      "SELECT idx, name, status, attempts, last_error, started_at, finished_at, wait_s, synth_s, prove_s, "
      "intake_s, h_s, msms_s, kind FROM partitions WHERE job_seq = $1 ORDER BY idx",
      seq);
  for (const pqxx::row& r : pr) {
    PartitionInfo p;
    p.index = r[0].as<uint32_t>();
    p.name = r[1].as<std::string>();
    p.input = r[13].as<std::string>() == "input";
    p.witness = p.name + (p.input ? ".json" : ".wtns");  // the bytes live in the queue; each claim writes its own copy
    p.status = PartStatus(parse_job_state(r[2].as<std::string>()).value_or(JobState::kFailed));
    p.attempts = r[3].as<uint32_t>();
    p.last_error = r[4].as<std::string>();
    p.started_at = r[5].as<double>();
    p.finished_at = r[6].as<double>();
    p.times = part_times(r[7].as<double>(), r[8].as<double>(), r[9].as<double>(),
                         {r[10].as<double>(), r[11].as<double>(), r[12].as<double>()});
    job.partitions.push_back(std::move(p));
  }
  return job;
}

std::optional<uint64_t> seq_of(pqxx::transaction_base& tx, std::string_view id) {
  const pqxx::result r = tx.exec_params("SELECT seq FROM jobs WHERE id = $1", std::string(id));
  if (r.empty()) return std::nullopt;
  return r[0][0].as<uint64_t>();
}

}  // namespace

PgQueue::PgQueue(PgQueueConfig cfg) : cfg_(std::move(cfg)) {
  engine_ = std::make_unique<Conn>(cfg_.url, "engine", /*connect_in_background=*/true);
  api_ = std::make_unique<Conn>(cfg_.url, "api", /*connect_in_background=*/false);
}
PgQueue::~PgQueue() = default;

Result<std::unique_ptr<PgQueue>> PgQueue::open(const PgQueueConfig& cfg) {
  // libpq waits forever for a host that drops packets: 5 s, unless the
  // operator set it (the URL's connect_timeout wins over both).
  ::setenv("PGCONNECT_TIMEOUT", "5", /*overwrite=*/0);
  std::unique_ptr<PgQueue> q(new PgQueue(cfg));
  PP_RETURN_IF_ERROR(q->engine_->connect_now());
  PP_RETURN_IF_ERROR(q->api_->connect_now());
  PP_RETURN_IF_ERROR(q->migrate());
  PP_RETURN_IF_ERROR(
      q->engine_
          ->run<bool>("register the node",
                      [&](pqxx::connection_base& c) -> Result<bool> {
                        pqxx::work tx(c);
                        tx.exec_params(
                            "INSERT INTO nodes (id, heartbeat_at, lease_s) VALUES ($1, now(), $2) "
                            "ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), lease_s = $2, started_at = now()",
                            q->cfg_.node_id, q->cfg_.lease_s);
                        tx.commit();
                        return true;
                      })
          .status());
  return q;
}

Status PgQueue::migrate() {
  return engine_
      ->run<bool>("migrate the schema",
                  [&](pqxx::connection_base& c) -> Result<bool> {
                    pqxx::work tx(c);
                    // Every node takes the lock before it looks: the first migrates, the
                    // others wait for its COMMIT and then find the version current.
                    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLock);
                    tx.exec(
                        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                        "applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), node TEXT NOT NULL)");
                    const int version =
                        tx.exec("SELECT coalesce(max(version), 0) FROM schema_migrations")[0][0].as<int>();
                    if (version > kSchemaVersion) {
                      return make_error(
                          ErrorCode::kBadFormat,
                          "--queue {}: the database has schema version {}, newer than the version {} this proofpipe "
                          "reads (a newer proofpipe migrated it)",
                          engine_->display(), version, kSchemaVersion);
                    }
                    for (int v = version + 1; v <= kSchemaVersion; ++v) {
                      tx.exec(kMigrations[v - 1]);
                      tx.exec_params("INSERT INTO schema_migrations (version, node) VALUES ($1, $2)", v, cfg_.node_id);
                      spdlog::info("postgresql: schema migrated to version {} by node {}", v, cfg_.node_id);
                    }
                    tx.commit();
                    return true;
                  })
      .status();
}

std::string PgQueue::unavailable_reason() const { return engine_->down_reason(); }

Result<SubmitResult> PgQueue::submit(const JobSpec& spec, double now) {
  if (spec.id.empty() || spec.witnesses.empty())
    return make_error(ErrorCode::kInvalidArgument, "postgresql: a job needs an id and at least one witness");
  // The staged copies' bytes go into the queue: the node that claims a
  // partition may be any node, and it writes its own copy.
  std::vector<std::string> bytes;
  for (const WitnessEntry& w : spec.witnesses) {
    PP_ASSIGN_OR_RETURN(std::string b, read_regular_file(w.path, cfg_.max_witness_bytes, "staged witness",
                                                         /*follow_links=*/false));
    bytes.push_back(std::move(b));
  }
  // Read: intake's copies are nobody's now, whatever the outcome.
  discard_staged(spec);
  return api_->run<SubmitResult>("submit", [&](pqxx::connection_base& c) -> Result<SubmitResult> {
    // Two nodes given the same new id at once: one INSERT wins, the other
    // finds it on its second look.
    for (int tries = 0;; ++tries) {
      try {
        pqxx::work tx(c);
        SubmitResult out;
        if (std::optional<uint64_t> existing = seq_of(tx, spec.id)) {
          PP_ASSIGN_OR_RETURN(out.job, load_job(tx, *existing));
          out.outcome = out.job.digest == spec.digest ? SubmitOutcome::kExisting : SubmitOutcome::kConflict;
          return out;
        }
        const auto seq = tx.exec_params(
                               "INSERT INTO jobs (id, key, priority, digest, state, submitted_at) "
                               "VALUES ($1, $2, $3, $4, 'queued', $5) RETURNING seq",
                               spec.id, spec.key, spec.priority, spec.digest, now)[0][0]
                             .as<uint64_t>();
        for (size_t i = 0; i < spec.witnesses.size(); ++i) {
          tx.exec_params(
              "INSERT INTO partitions (job_seq, idx, name, key, priority, witness_bytes, kind, status) "
              "VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued')",
              seq, uint32_t(i), spec.witnesses[i].name, spec.key, spec.priority,
              pqxx::binarystring(bytes[i].data(), bytes[i].size()),
              std::string(spec.witnesses[i].input ? "input" : "witness"));
        }
        PP_ASSIGN_OR_RETURN(out.job, load_job(tx, seq));
        tx.commit();
        out.outcome = SubmitOutcome::kCreated;
        return out;
      } catch (const pqxx::unique_violation&) {
        if (tries > 0) throw;
      }
    }
  });
}

Result<std::optional<Job>> PgQueue::get(std::string_view id) {
  return api_->run<std::optional<Job>>("get", [&](pqxx::connection_base& c) -> Result<std::optional<Job>> {
    pqxx::read_transaction tx(c);
    std::optional<uint64_t> seq = seq_of(tx, id);
    if (!seq) return std::optional<Job>();
    PP_ASSIGN_OR_RETURN(Job job, load_job(tx, *seq));
    return std::optional<Job>(std::move(job));
  });
}

Result<std::vector<Job>> PgQueue::list(std::optional<JobState> state, size_t limit) {
  return api_->run<std::vector<Job>>("list", [&](pqxx::connection_base& c) -> Result<std::vector<Job>> {
    pqxx::read_transaction tx(c);
    const auto n = int64_t(std::min<size_t>(limit, INT64_MAX));
    const pqxx::result r =
        state
            ? tx.exec_params(std::string(kJobSelect) + "WHERE j.state = $1 GROUP BY j.seq ORDER BY j.seq DESC LIMIT $2",
                             std::string(job_state_name(*state)), n)
            : tx.exec_params(std::string(kJobSelect) + "GROUP BY j.seq ORDER BY j.seq DESC LIMIT $1", n);
    std::vector<Job> jobs;
    for (const pqxx::row& row : r) jobs.push_back(job_from_row(row));
    return jobs;
  });
}

Result<std::optional<Job>> PgQueue::cancel(std::string_view id, double now) {
  return api_->run<std::optional<Job>>("cancel", [&](pqxx::connection_base& c) -> Result<std::optional<Job>> {
    pqxx::work tx(c);
    std::optional<uint64_t> seq = seq_of(tx, id);
    if (!seq) return std::optional<Job>();
    // Any node may cancel: the holders of its partitions learn it at their
    // next renew. A partition being proved keeps its claim; a proof that
    // lands still counts (done), as on one node.
    // Partition rows before the job's row, the order every transaction
    // takes them in (queue_pg_engine.cpp): no deadlock with a commit.
    tx.exec_params("SELECT 1 FROM partitions WHERE job_seq = $1 ORDER BY idx FOR UPDATE", *seq);
    const pqxx::result open =
        tx.exec_params("SELECT 1 FROM jobs WHERE seq = $1 AND state IN ('queued', 'running') FOR UPDATE", *seq);
    if (!open.empty()) {
      tx.exec_params(
          "UPDATE partitions SET status = 'cancelled', finished_at = CASE WHEN finished_at = 0 THEN $1 "
          "ELSE finished_at END WHERE job_seq = $2 AND status NOT IN ('done', 'failed')",
          now, *seq);
      tx.exec_params("UPDATE jobs SET state = 'cancelled', finished_at = $1 WHERE seq = $2", now, *seq);
    }
    PP_ASSIGN_OR_RETURN(Job job, load_job(tx, *seq));
    tx.commit();
    return std::optional<Job>(std::move(job));
  });
}

Result<std::optional<ProofFiles>> PgQueue::read_proof(std::string_view job_id, std::string_view name) {
  return api_->run<std::optional<ProofFiles>>(
      "read a proof", [&](pqxx::connection_base& c) -> Result<std::optional<ProofFiles>> {
        pqxx::read_transaction tx(c);
        const pqxx::result r = tx.exec_params(
            "SELECT pr.proof, pr.public FROM proofs pr JOIN partitions p ON p.job_seq = pr.job_seq AND p.idx = pr.idx "
            "JOIN jobs j ON j.seq = p.job_seq WHERE j.id = $1 AND p.name = $2 AND p.status = 'done'",
            std::string(job_id), std::string(name));
        if (r.empty()) return std::optional<ProofFiles>();
        return std::optional<ProofFiles>(ProofFiles{r[0][0].as<std::string>(), r[0][1].as<std::string>()});
      });
}

}  // namespace proofpipe::service
