// PgQueue (queue_pg.hpp), the engine's side: claims under leases with
// fencing tokens, renewals, and the ends of claims checked against the token.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "proofpipe/common/safe_file.hpp"
#include "queue_pg.hpp"
#include "queue_pg_conn.hpp"

namespace proofpipe::service {
namespace {

// A postgres array literal of numbers: {1,2,3}.
template <class T>
std::string array_of(const std::vector<T>& v) {
  return fmt::format("{{{}}}", fmt::join(v, ","));
}

// Key names are [A-Za-z0-9._-] (load_keys checks): quoted, they need no escapes.
std::string text_array(const std::vector<std::string>& v) {
  std::string out = "{";
  for (const std::string& s : v) out += (out.size() > 1 ? ",\"" : "\"") + s + "\"";
  return out + "}";
}

// A job still queued or running ends when its last partition does: done if
// every partition is, else failed. A cancelled job stays cancelled.
//
// Every transaction that ends partitions locks their job rows first, in a
// statement of its own (partition rows, then job rows, the order everywhere):
// two nodes committing a job's last two partitions at once then end it in
// turn, the second's statement seeing the first's commit (READ COMMITTED
// takes a snapshot per statement). Without the lock each would see the
// other's partition still running, and the job would never end.
void end_jobs_if_complete(pqxx::transaction_base& tx, const std::string& seqs, double now) {
  tx.exec_params("SELECT seq FROM jobs WHERE seq = ANY($1::bigint[]) ORDER BY seq FOR UPDATE", seqs);
  tx.exec_params(
      "UPDATE jobs j SET finished_at = $1, state = CASE WHEN EXISTS (SELECT 1 FROM partitions p "
      "WHERE p.job_seq = j.seq AND p.status = 'failed') THEN 'failed' ELSE 'done' END "
      "WHERE j.seq = ANY($2::bigint[]) AND j.state IN ('queued', 'running') AND NOT EXISTS "
      "(SELECT 1 FROM partitions p WHERE p.job_seq = j.seq AND p.status NOT IN ('done', 'failed'))",
      now, seqs);
}

}  // namespace

Result<uint64_t> PgQueue::depth() {
  return engine_->run<uint64_t>("count the queue", [&](pqxx::connection_base& c) -> Result<uint64_t> {
    pqxx::read_transaction tx(c);
    return tx
        .exec(
            "SELECT count(*) FROM partitions p JOIN jobs j ON j.seq = p.job_seq WHERE j.state IN ('queued', 'running') "
            "AND (p.status = 'queued' OR (p.status = 'running' AND p.lease_until < now()))")[0][0]
        .as<uint64_t>();
  });
}

Result<std::vector<WorkItem>> PgQueue::claim(const ClaimRequest& request, double now) {
  if (request.max_n == 0 || request.keys.empty()) return std::vector<WorkItem>();
  struct Row {
    WorkItem item;
    std::string bytes;
  };
  PP_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      engine_->run<std::vector<Row>>("claim", [&](pqxx::connection_base& c) -> Result<std::vector<Row>> {
        pqxx::work tx(c);
        // Claims whose lease ran out with no attempt left: failed for good.
        const pqxx::result dead = tx.exec_params(
            "WITH d AS (UPDATE partitions SET status = 'failed', finished_at = $1, claimed_by = NULL, "
            "last_error = 'the lease ran out ' || attempts || ' times (the nodes holding it died or stalled)' "
            "WHERE status = 'running' AND lease_until < now() AND attempts >= $2 RETURNING job_seq, idx, fence) "
            "UPDATE attempts a SET result = 'lost', ended_at = now() FROM d "
            "WHERE a.job_seq = d.job_seq AND a.idx = d.idx AND a.fence = d.fence RETURNING a.job_seq",
            now, cfg_.max_attempts);
        if (!dead.empty()) {
          std::vector<uint64_t> seqs;
          for (const pqxx::row& r : dead) seqs.push_back(r[0].as<uint64_t>());
          end_jobs_if_complete(tx, array_of(seqs), now);
        }
        // THE claim: one statement; rows another node is claiming right now are skipped, not waited for.
        const pqxx::result r = tx.exec_params(
            "WITH c AS (SELECT p.job_seq, p.idx, p.fence AS old_fence, j.id AS job_id, j.submitted_at "
            "FROM partitions p JOIN jobs j ON j.seq = p.job_seq "
            "WHERE (p.status = 'queued' OR (p.status = 'running' AND p.lease_until < now())) "
            "AND j.state IN ('queued', 'running') AND p.key = ANY($1::text[]) "
            "AND (p.kind = 'witness' OR p.key = ANY($6::text[])) "
            "ORDER BY p.priority DESC, p.job_seq, p.idx LIMIT $2 FOR UPDATE OF p SKIP LOCKED) "
            "UPDATE partitions p SET status = 'running', claimed_by = $3, "
            "lease_until = now() + $4 * interval '1 second', fence = nextval('fence_seq'), attempts = p.attempts + 1, "
            "started_at = CASE WHEN p.started_at = 0 THEN $5 ELSE p.started_at END "
            "FROM c WHERE p.job_seq = c.job_seq AND p.idx = c.idx "
            "RETURNING p.job_seq, p.idx, p.fence, c.old_fence, c.job_id, c.submitted_at, p.key, p.priority, p.name, "
            "p.witness_bytes, p.kind",
            text_array(request.keys), int64_t(request.max_n), cfg_.node_id, cfg_.lease_s, now,
            text_array(request.input_keys));
        std::vector<Row> out;
        std::vector<uint64_t> seqs;
        for (const pqxx::row& row : r) {
          Row x;
          x.item.job_seq = row[0].as<uint64_t>();
          x.item.index = row[1].as<uint32_t>();
          x.item.fence = row[2].as<uint64_t>();
          const auto old_fence = row[3].as<uint64_t>();
          x.item.job_id = row[4].as<std::string>();
          x.item.submitted_at = row[5].as<double>();
          x.item.key = row[6].as<std::string>();
          x.item.priority = row[7].as<int64_t>();
          x.item.name = row[8].as<std::string>();
          x.bytes = pqxx::binarystring(row[9]).str();
          x.item.input = row[10].as<std::string>() == "input";
          if (old_fence != 0) {  // taken over from a node whose lease ran out
            tx.exec_params(
                "UPDATE attempts SET result = 'lost', ended_at = now() WHERE job_seq = $1 AND idx = $2 "
                "AND fence = $3 AND result = 'running'",
                x.item.job_seq, x.item.index, old_fence);
          }
          tx.exec_params("INSERT INTO attempts (job_seq, idx, fence, node) VALUES ($1, $2, $3, $4)", x.item.job_seq,
                         x.item.index, x.item.fence, cfg_.node_id);
          seqs.push_back(x.item.job_seq);
          out.push_back(std::move(x));
        }
        if (!seqs.empty()) {
          tx.exec_params(
              "UPDATE jobs SET state = 'running', started_at = $1 WHERE seq = ANY($2::bigint[]) AND state = 'queued'",
              now, array_of(seqs));
        }
        tx.commit();
        return out;
      }));
  // The claimed witnesses, written to this node's own folder before the
  // engine reads them (a stage-named folder per job, swept at start).
  std::vector<WorkItem> items;
  Status full = Status::ok();  // the first write refused for want of space
  for (Row& x : rows) {
    const std::filesystem::path dir = cfg_.witness_dir / fmt::format("stage-{:024x}", x.item.job_seq);
    x.item.witness = dir / (x.item.name + (x.item.input ? ".json" : ".wtns"));
    Status st = full;  // once the disk is full, the rest are not tried
    if (st && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      st = make_error(ErrorCode::kIo, "cannot create '{}': {}", dir.string(), std::strerror(errno));
    } else if (st) {
      st = write_file_replace(x.item.witness, x.bytes, "claimed witness");
    }
    {
      std::lock_guard lock(files_mu_);
      held_[{x.item.job_seq, x.item.index}] = {x.item.witness, 0};
    }
    if (st) {
      items.push_back(std::move(x.item));
      continue;
    }
    // This node's disk, not the input: the claim goes back for a node that can write it.
    if (full && out_of_space(st)) {
      full = st;
    } else if (full) {
      spdlog::error("job {}: {}: {}; the claim goes back to the queue", x.item.job_id, x.item.name, st.message());
    }
    if (Status r = release({x.item.job_seq, x.item.index, x.item.fence}, now); !r)
      spdlog::warn("postgresql: {}", r.message());
  }
  if (full) return items;
  // A full disk: nothing is taken (the written copies go back too), and the
  // service backs off and says why (one line per 10 s, /readyz 503) instead
  // of claiming and releasing four times a second.
  for (const WorkItem& w : items) {
    if (Status r = release({w.job_seq, w.index, w.fence}, now); !r) spdlog::warn("postgresql: {}", r.message());
  }
  return make_error(ErrorCode::kResourceExhausted, "{} (the claims went back to the queue)", full.message());
}

Result<Renewal> PgQueue::renew(std::span<const Claim> held, double /*now*/) {
  return engine_->run<Renewal>("renew", [&](pqxx::connection_base& c) -> Result<Renewal> {
    pqxx::work tx(c);
    tx.exec_params(
        "INSERT INTO nodes (id, heartbeat_at, lease_s) VALUES ($1, now(), $2) "
        "ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), lease_s = $2",
        cfg_.node_id, cfg_.lease_s);
    Renewal out;
    if (held.empty()) {
      tx.commit();
      return out;
    }
    std::vector<uint64_t> seqs, fences;
    std::vector<uint32_t> idxs;
    for (const Claim& h : held) {
      seqs.push_back(h.job_seq);
      idxs.push_back(h.index);
      fences.push_back(h.fence);
    }
    tx.exec_params(
        "UPDATE partitions SET lease_until = now() + $1 * interval '1 second' "
        "WHERE claimed_by = $2 AND status = 'running' AND fence = ANY($3::bigint[])",
        cfg_.lease_s, cfg_.node_id, array_of(fences));
    // What became of each held claim: still ours and running (renewed),
    // cancelled under our token, or someone else's token now.
    const pqxx::result r = tx.exec_params(
        "SELECT p.job_seq, p.idx, p.fence, p.status FROM partitions p "
        "JOIN unnest($1::bigint[], $2::integer[]) AS h(s, i) ON p.job_seq = h.s AND p.idx = h.i",
        array_of(seqs), array_of(idxs));
    tx.commit();
    for (const pqxx::row& row : r) {
      const Claim now_c{row[0].as<uint64_t>(), row[1].as<uint32_t>(), row[2].as<uint64_t>()};
      const std::string status = row[3].as<std::string>();
      for (const Claim& h : held) {
        if (h.job_seq != now_c.job_seq || h.index != now_c.index) continue;
        if (h.fence != now_c.fence) {
          out.lost.push_back(h);
        } else if (status == "cancelled") {
          out.cancelled.push_back(h);
        }
      }
    }
    return out;
  });
}

Result<uint32_t> PgQueue::start_attempt(const Claim& c, double /*now*/) {
  // The claim is the attempt the queue counts (and limits); a retry on this
  // node after a worker died is the ledger's, numbered here per claim.
  std::lock_guard lock(files_mu_);
  return ++held_[{c.job_seq, c.index}].attempts;
}

Status PgQueue::fail_attempt(const Claim& c, std::string_view cause, double /*now*/) {
  return engine_
      ->run<bool>("record a failed attempt",
                  [&](pqxx::connection_base& conn) -> Result<bool> {
                    pqxx::work tx(conn);
                    tx.exec_params(
                        "UPDATE partitions SET last_error = $1 WHERE job_seq = $2 AND idx = $3 AND fence = $4",
                        std::string(cause), c.job_seq, c.index, c.fence);
                    tx.commit();
                    return true;
                  })
      .status();
}

Status PgQueue::end_claim(const Claim& c, const char* what, bool done_ok, double now,
                          const std::function<void(pqxx::transaction_base&)>& apply) {
  return engine_
      ->run<bool>(what,
                  [&](pqxx::connection_base& conn) -> Result<bool> {
                    pqxx::work tx(conn);
                    const pqxx::result r = tx.exec_params(
                        "SELECT p.fence, p.status, coalesce(p.claimed_by, ''), p.name, j.id FROM partitions p "
                        "JOIN jobs j ON j.seq = p.job_seq WHERE p.job_seq = $1 AND p.idx = $2 FOR UPDATE OF p",
                        c.job_seq, c.index);
                    if (r.empty())
                      return make_error(ErrorCode::kInternal, "postgresql: {}: no partition {} of job #{}", what,
                                        c.index, c.job_seq);
                    const auto fence = r[0][0].as<uint64_t>();
                    const std::string status = r[0][1].as<std::string>(), holder = r[0][2].as<std::string>();
                    if (fence != c.fence) {
                      return make_error(ErrorCode::kStale,
                                        "fencing token {} is stale: partition {} of job {} is {} under token {}{}",
                                        c.fence, r[0][3].as<std::string>(), r[0][4].as<std::string>(), status, fence,
                                        holder.empty() ? "" : " held by node " + holder);
                    }
                    if (status == "done" && done_ok) return true;  // our own commit, retried after an in-doubt COMMIT
                    if (status != "running" && status != "cancelled") {
                      return make_error(ErrorCode::kInternal, "postgresql: {} on partition {} of job {}, which is {}",
                                        what, r[0][3].as<std::string>(), r[0][4].as<std::string>(), status);
                    }
                    apply(tx);
                    end_jobs_if_complete(tx, fmt::format("{{{}}}", c.job_seq), now);
                    tx.commit();
                    return true;
                  })
      .status();
}

Status PgQueue::commit(const Claim& c, const PartTimes& t, const ProofFiles& proof, double now) {
  Status st = end_claim(c, "commit", /*done_ok=*/true, now, [&](pqxx::transaction_base& tx) {
    tx.exec_params(
        "UPDATE partitions SET status = 'done', finished_at = $1, wait_s = $2, synth_s = $3, prove_s = $4, "
        "intake_s = $5, h_s = $6, msms_s = $7, claimed_by = NULL, lease_until = NULL "
        "WHERE job_seq = $8 AND idx = $9",
        now, t.wait_s, t.synth_s, t.prove_s, t.stages.intake_s, t.stages.h_s, t.stages.msms_s, c.job_seq, c.index);
    tx.exec_params("INSERT INTO proofs (job_seq, idx, fence, node, proof, public) VALUES ($1, $2, $3, $4, $5, $6)",
                   c.job_seq, c.index, c.fence, cfg_.node_id, proof.proof_json, proof.public_json);
    tx.exec_params(
        "UPDATE attempts SET result = 'done', ended_at = now() WHERE job_seq = $1 AND idx = $2 AND fence = $3",
        c.job_seq, c.index, c.fence);
  });
  if (st.code() != ErrorCode::kUnavailable) forget_claim(c);
  return st;
}

Status PgQueue::fail_partition(const Claim& c, std::string_view cause, double now) {
  Status st = end_claim(c, "fail a partition", /*done_ok=*/false, now, [&](pqxx::transaction_base& tx) {
    tx.exec_params(
        "UPDATE partitions SET last_error = $1, finished_at = $2, claimed_by = NULL, lease_until = NULL, "
        "status = CASE status WHEN 'cancelled' THEN 'cancelled' ELSE 'failed' END WHERE job_seq = $3 AND idx = $4",
        std::string(cause), now, c.job_seq, c.index);
    tx.exec_params(
        "UPDATE attempts SET result = 'failed', error = $1, ended_at = now() WHERE job_seq = $2 AND idx = $3 "
        "AND fence = $4",
        std::string(cause), c.job_seq, c.index, c.fence);
  });
  if (st.code() != ErrorCode::kUnavailable) forget_claim(c);
  return st;
}

Status PgQueue::release(const Claim& c, double /*now*/) {
  Status st = engine_
                  ->run<bool>("release a claim",
                              [&](pqxx::connection_base& conn) -> Result<bool> {
                                pqxx::work tx(conn);
                                // Only our own running claim goes back; a cancelled one stays cancelled,
                                // one another node holds is not ours to touch.
                                const pqxx::result r = tx.exec_params(
                                    "UPDATE partitions SET status = 'queued', claimed_by = NULL, lease_until = NULL, "
                                    "attempts = greatest(attempts - 1, 0) WHERE job_seq = $1 AND idx = $2 AND fence = "
                                    "$3 AND status = 'running' "
                                    "RETURNING 1",
                                    c.job_seq, c.index, c.fence);
                                tx.exec_params(
                                    "UPDATE attempts SET result = 'released', ended_at = now() WHERE job_seq = $1 AND "
                                    "idx = $2 AND fence = $3 "
                                    "AND result = 'running'",
                                    c.job_seq, c.index, c.fence);
                                tx.commit();
                                return !r.empty();
                              })
                  .status();
  if (st.code() != ErrorCode::kUnavailable) forget_claim(c);
  return st;
}

void PgQueue::forget_claim(const Claim& c) {
  std::filesystem::path file;
  {
    std::lock_guard lock(files_mu_);
    auto it = held_.find({c.job_seq, c.index});
    if (it == held_.end()) return;
    file = it->second.path;
    held_.erase(it);
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
  std::filesystem::remove(file.parent_path(), ec);  // only once empty: the job's other claims keep it
}

}  // namespace proofpipe::service
