// PgQueue's retention (serve --retain, job_queue.hpp): ended jobs older than
// the cut leave the shared queue with their proofs, in one transaction per
// batch; any node may run it (a job another node removed is simply gone).
// A job with a partition whose lease still runs (a cancelled job's last
// proof being made) waits for the next pass.
#include <pqxx/pqxx>

#include "queue_pg.hpp"
#include "queue_pg_conn.hpp"

namespace proofpipe::service {

Result<size_t> PgQueue::expire(double ended_before, size_t max_jobs) {
  static constexpr const char* kEnded =
      "j.state IN ('done', 'failed', 'cancelled') AND j.finished_at > 0 AND j.finished_at < $1 AND NOT EXISTS "
      "(SELECT 1 FROM partitions p WHERE p.job_seq = j.seq AND p.lease_until > now())";
  return engine_->run<size_t>("expire ended jobs", [&](pqxx::connection_base& c) -> Result<size_t> {
    pqxx::work tx(c);
    const pqxx::result old =
        tx.exec_params(std::string("SELECT j.seq FROM jobs j WHERE ") + kEnded + " ORDER BY j.finished_at LIMIT $2",
                       ended_before, int64_t(max_jobs));
    size_t n = 0;
    for (const pqxx::row& row : old) {
      const int64_t seq = row[0].as<int64_t>();
      // Partition rows before the job's row, the order every transaction
      // takes them in (queue_pg_engine.cpp); then the job is checked again
      // (another node may have removed it meanwhile).
      tx.exec_params("SELECT 1 FROM partitions WHERE job_seq = $1 ORDER BY idx FOR UPDATE", seq);
      if (tx.exec_params(std::string("SELECT 1 FROM jobs j WHERE j.seq = $2 AND ") + kEnded + " FOR UPDATE",
                         ended_before, seq)
              .empty())
        continue;
      for (const char* table : {"proofs", "attempts", "partitions"}) {
        tx.exec_params(std::string("DELETE FROM ") + table + " WHERE job_seq = $1", seq);
      }
      tx.exec_params("DELETE FROM jobs WHERE seq = $1", seq);
      ++n;
    }
    tx.commit();
    return n;
  });
}

Result<JobQueue::StoredBytes> PgQueue::stored_bytes() {
  return engine_->run<StoredBytes>("size the tables", [&](pqxx::connection_base& c) -> Result<StoredBytes> {
    pqxx::read_transaction tx(c);
    const pqxx::row r = tx.exec1(
        "SELECT pg_total_relation_size('proofs'), pg_total_relation_size('jobs') + "
        "pg_total_relation_size('partitions') + pg_total_relation_size('attempts')");
    return StoredBytes{r[0].as<uint64_t>(), r[1].as<uint64_t>()};
  });
}

}  // namespace proofpipe::service
