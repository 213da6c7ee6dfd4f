// The SQLite journal's retention (serve --retain, job_queue.hpp): jobs that
// ended long enough ago leave the journal with their proof files, and the
// bytes the journal holds are counted for /metrics.
//
//   expire(before, n):  one transaction: the oldest n ended jobs with
//                       finished_at < before, their attempts, partitions and
//                       job rows; then, the rows gone, their files:
//                       proofs/<id>/<name>.{proof,public}.json, proofs/<id>/
//                       (only if that empties it), and any witness copy.
//   A crash between the two leaves files no row names: the next expire of
//   nothing does not find them, so the start-up sweep of staging removes the
//   copies, and the proof files stay until an operator deletes them (they
//   are a few KB each; never another file than those two names).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "intake.hpp"
#include "journal_sqlite.hpp"
#include "sqlite_db.hpp"

namespace proofpipe::service {
namespace {

namespace fs = std::filesystem;

// A regular file's size, 0 when it is anything else or gone (never through a link).
uint64_t file_bytes(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
}

}  // namespace

uint64_t SqliteJournal::count_proof_bytes() const {
  uint64_t total = 0;
  std::error_code ec;
  // Our own layout: proofs/<job>/<two files per partition>; links are not followed.
  for (fs::directory_iterator job(proofs_dir_, ec); !ec && job != fs::directory_iterator(); job.increment(ec)) {
    if (!job->is_directory(ec) || job->is_symlink(ec)) continue;
    std::error_code ec2;
    for (fs::directory_iterator f(job->path(), ec2); !ec2 && f != fs::directory_iterator(); f.increment(ec2)) {
      total += file_bytes(f->path());
    }
  }
  return total;
}

Result<size_t> SqliteJournal::expire(double ended_before, size_t max_jobs) {
  struct Gone {
    std::string id;
    JobSpec copies;                   // its witness copies, for discard_staged
    std::vector<std::string> proofs;  // names of its done partitions
  };
  std::vector<Gone> gone;
  {
    std::lock_guard lock(mu_);
    const Status st = db_->transaction([&]() -> Status {
      PP_ASSIGN_OR_RETURN(sql::Stmt jobs,
                          db_->query("SELECT seq, id FROM jobs WHERE state IN ('done', 'failed', 'cancelled') AND "
                                     "finished_at > 0 AND finished_at < ? ORDER BY finished_at LIMIT ?",
                                     ended_before, int64_t(max_jobs)));
      std::vector<std::pair<int64_t, std::string>> seqs;
      for (;;) {
        PP_ASSIGN_OR_RETURN(bool row, jobs.step());
        if (!row) break;
        seqs.emplace_back(jobs.i64(0), jobs.text(1));
      }
      for (const auto& [seq, id] : seqs) {
        Gone g;
        g.id = id;
        g.copies.id = id;
        PP_ASSIGN_OR_RETURN(sql::Stmt parts,
                            db_->query("SELECT name, witness, status FROM partitions WHERE job_seq = ?", seq));
        for (;;) {
          PP_ASSIGN_OR_RETURN(bool row, parts.step());
          if (!row) break;
          g.copies.witnesses.push_back({parts.text(0), parts.text(1)});
          if (parts.text(2) == "done") g.proofs.push_back(parts.text(0));
        }
        PP_RETURN_IF_ERROR(db_->exec("DELETE FROM attempts WHERE job_seq = ?", seq));
        PP_RETURN_IF_ERROR(db_->exec("DELETE FROM partitions WHERE job_seq = ?", seq));
        PP_RETURN_IF_ERROR(db_->exec("DELETE FROM jobs WHERE seq = ?", seq));
        gone.push_back(std::move(g));
      }
      return Status::ok();
    });
    if (!st) return st;
  }
  for (const Gone& g : gone) {
    const fs::path dir = proofs_dir_ / g.id;
    // The job's folder opened without following a link: only its own two
    // files per partition are removed, never through a planted link.
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0) {
      for (const std::string& name : g.proofs) {
        for (const char* suffix : {".proof.json", ".public.json"}) {
          const std::string f = name + suffix;
          struct stat st {};
          if (::fstatat(dfd, f.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
          const uint64_t bytes = S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
          if (::unlinkat(dfd, f.c_str(), 0) == 0) proof_bytes_ -= std::min<uint64_t>(bytes, proof_bytes_);
        }
      }
      ::close(dfd);
      (void)::rmdir(dir.c_str());  // only if empty: nothing else of anyone's goes
    }
    discard_staged(g.copies);
  }
  return gone.size();
}

Result<JobQueue::StoredBytes> SqliteJournal::stored_bytes() {
  const std::string db = db_->file().string();
  return StoredBytes{proof_bytes_.load(), file_bytes(db) + file_bytes(db + "-wal") + file_bytes(db + "-shm")};
}

}  // namespace proofpipe::service
