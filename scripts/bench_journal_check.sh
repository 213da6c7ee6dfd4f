#!/usr/bin/env bash
# What the journal check at `proofpipe serve`'s start costs
# (service/src/journal_sqlite.cpp, check_pages): SQLite's quick_check (the
# pages and b-trees) against integrity_check (also every index against its
# table, which catches index-only damage), side by side on the same file, on
# journals of JOBS jobs (default "10000 100000") of 4 partitions with one
# attempt each, in the schema the service writes (taken from the source).
# Each pragma runs RUNS times (default 3) on a warm page cache; the median is
# printed. Uses Python's sqlite3 module, which links the system's libsqlite3
# (the one proofpipe links).
#
#   scripts/bench_journal_check.sh            # 10k and 100k jobs
#   JOBS="1000000" RUNS=1 scripts/bench_journal_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-"10000 100000"}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lscpu | grep 'Model name' || true
python3 - "$tmp" "$RUNS" $JOBS <<'PY'
import os, random, sqlite3, statistics, sys, time
tmp, runs, sizes = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
src = open("service/src/journal_sqlite.cpp").read()
schema = src[src.index('R"sql(') + 6:src.index(')sql"')]
migrations = src[src.index("kMigrations[] = {"):src.index("static_assert(std::size(kMigrations)")]
print(f"sqlite {sqlite3.sqlite_version}")
for n in sizes:
    f = os.path.join(tmp, f"journal-{n}.db")
    db = sqlite3.connect(f)
    db.executescript(schema)
    for stmt in migrations.split('"')[1::2]:
        if stmt.startswith("ALTER"): db.execute(stmt)
    db.execute("INSERT INTO schema_version VALUES (1)")
    db.execute("INSERT INTO lives (opened_at) VALUES (1)")
    rnd = random.Random(n)
    for seq in range(1, n + 1):
        db.execute("INSERT INTO jobs (id, key, priority, digest, state, submitted_at, started_at, finished_at) "
                   "VALUES (?, 'k', 0, ?, 'done', ?, ?, ?)",
                   (f"job-{rnd.getrandbits(96):024x}", f"{rnd.getrandbits(256):064x}", 1e9 + seq, 1e9 + seq, 1e9 + seq))
        stage = f"/var/lib/proofpipe/witnesses/stage-{rnd.getrandbits(96):024x}"
        for p in range(4):
            db.execute("INSERT INTO partitions (job_seq, idx, name, witness, status, attempts) "
                       "VALUES (?, ?, ?, ?, 'done', 1)", (seq, p, f"w{p:02}", f"{stage}/w{p:02}.wtns"))
            db.execute("INSERT INTO attempts (job_seq, idx, attempt, life, started_at, ended_at, result) "
                       "VALUES (?, ?, 1, 1, 1, 2, 'done')", (seq, p))
    db.commit()
    db.close()
    size = os.path.getsize(f) / 2**20
    times = {}
    for pragma in ("quick_check(1)", "integrity_check(1)"):
        t = []
        for _ in range(runs):
            db = sqlite3.connect(f)
            t0 = time.perf_counter()
            assert db.execute(f"PRAGMA {pragma}").fetchone()[0] == "ok"
            t.append(time.perf_counter() - t0)
            db.close()
        times[pragma] = statistics.median(t)
    q, i = times["quick_check(1)"], times["integrity_check(1)"]
    print(f"{n:>8} jobs  {size:7.1f} MiB  quick_check {q * 1000:7.0f} ms  integrity_check {i * 1000:7.0f} ms  ({i / q:.1f}x)")
PY
