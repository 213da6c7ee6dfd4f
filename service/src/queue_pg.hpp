// The shared queue of many `proofpipe serve` nodes: JobQueue (job_queue.hpp)
// on PostgreSQL through libpqxx (docs/scale-out.md).
//
//   nodes(id, heartbeat_at, lease_s, started_at)     one row per node, renewed
//   jobs(seq, id, key, priority, digest, state, ...)  as the SQLite journal's
//   partitions(job_seq, idx, name, key, priority, witness_bytes, status,
//              attempts, last_error, claimed_by, lease_until, fence, times...,
//              kind: 'witness', or 'input' when witness_bytes are circom input JSON)
//   attempts(job_seq, idx, fence, node, claimed_at, ended_at, result, error)
//   proofs(job_seq, idx, fence, node, proof, public)  written with the done mark
//   schema_migrations(version, applied_at, node)      under an advisory lock
//
// A claim is ONE statement: UPDATE ... WHERE (job_seq, idx) IN (SELECT ...
// FOR UPDATE SKIP LOCKED ORDER BY priority DESC, job_seq, idx LIMIT n), so
// nodes claiming at once never wait on each other's rows, and each claim
// takes a fresh token from a sequence (it only rises). Leases run on the
// DATABASE's clock (now()), never the nodes'. A commit checks the token in
// the transaction that stores the proof and marks the partition done: a node
// that slept past its lease is refused (kStale) and writes nothing.
//
// Two connections: one for the engine's calls, one for the HTTP threads'.
// A lost connection is retried with back-off (0.1 s doubling to 5 s), the
// connect itself on a helper thread; until it is back, calls on it fail at
// once with kUnavailable and unavailable_reason() says why (for /readyz).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "proofpipe/service/job_queue.hpp"

namespace pqxx {
class transaction_base;
}

namespace proofpipe::service {

struct PgQueueConfig {
  std::string url;  // postgresql://...
  std::string node_id;
  double lease_s = 30;
  uint32_t max_attempts = 3;                // claims of one partition before it fails (leases that ran out count)
  std::filesystem::path witness_dir;        // where a claim writes its witness (--state-dir/witnesses)
  uint64_t max_witness_bytes = 1ull << 30;  // a stored witness read back at submit
};

class PgQueue final : public JobQueue {
 public:
  static constexpr int kSchemaVersion = 2;

  // Connects (one line naming the URL's host and database when it cannot),
  // then creates or migrates the schema under pg_advisory_xact_lock: of
  // several nodes starting at once, exactly one migrates. A database of a
  // newer schema is refused.
  static Result<std::unique_ptr<PgQueue>> open(const PgQueueConfig& cfg);
  ~PgQueue() override;

  Result<SubmitResult> submit(const JobSpec& spec, double now) override;
  Result<std::optional<Job>> get(std::string_view id) override;
  Result<std::vector<Job>> list(std::optional<JobState> state, size_t limit) override;
  Result<std::optional<Job>> cancel(std::string_view id, double now) override;
  Result<uint64_t> depth() override;

  Result<std::vector<WorkItem>> claim(const ClaimRequest& request, double now) override;
  Result<Renewal> renew(std::span<const Claim> held, double now) override;
  Result<uint32_t> start_attempt(const Claim& c, double now) override;
  Status fail_attempt(const Claim& c, std::string_view cause, double now) override;
  Status commit(const Claim& c, const PartTimes& times, const ProofFiles& proof, double now) override;
  Status fail_partition(const Claim& c, std::string_view cause, double now) override;
  Status release(const Claim& c, double now) override;

  void forget_witnesses(std::string_view /*job_id*/) override {}  // removed at submit and after each claim
  Result<std::optional<ProofFiles>> read_proof(std::string_view job_id, std::string_view name) override;
  std::string unavailable_reason() const override;
  // Retention (queue_pg_retain.cpp).
  Result<size_t> expire(double ended_before, size_t max_jobs) override;
  Result<StoredBytes> stored_bytes() override;

  const std::string& node_id() const { return cfg_.node_id; }

 private:
  // One connection with its back-off (queue_pg_conn.hpp).
  struct Conn;

  explicit PgQueue(PgQueueConfig cfg);
  Status migrate();
  // An end of a claim: the fence checked under a row lock, then `apply`
  // (which writes the end) and the job's end; kStale when the token is not
  // current. `done_ok`: the partition already done under this very token
  // counts as success (a commit retried after an in-doubt COMMIT).
  Status end_claim(const Claim& c, const char* what, bool done_ok, double now,
                   const std::function<void(pqxx::transaction_base&)>& apply);
  // The witness copy a claim wrote, removed when the claim ends.
  void forget_claim(const Claim& c);

  PgQueueConfig cfg_;
  std::unique_ptr<Conn> engine_, api_;
  std::mutex files_mu_;
  struct HeldFile {
    std::filesystem::path path;
    uint32_t attempts = 0;
  };
  std::map<std::pair<uint64_t, uint32_t>, HeldFile> held_;  // by (job seq, index)
};

}  // namespace proofpipe::service
