#!/usr/bin/env bash
# Scale-out on one machine (docs/scale-out.md): the same workload
# through 1 `proofpipe serve` node on the SQLite journal, 1 node on a
# PostgreSQL queue and 3 nodes sharing that queue, and what the queue itself
# costs per partition.
#
#   * workload: `proofpipe gen` with 2^k - 8 constraints and P witnesses
#     (TESTING ONLY dev key), cached in $BENCH_CACHE/gen_<k>_<P>, submitted
#     as P/10 jobs of 10 (uploads), round-robin over the nodes;
#   * each node: 1 synthesis + 1 proving worker, CPU backend, its own port
#     and state directory; wall time from the first submit to the last job done;
#   * PostgreSQL: a throwaway cluster (initdb in a temporary folder, Unix
#     socket only, fsync ON as in production, run as `postgres` when we are
#     root) with pg_stat_statements: the server's execution time of the
#     claims, renewals and commits, per partition (the network round trips
#     of a Unix socket come on top: a few tens of µs each, counted as calls);
#   * every proof is checked with `proofpipe verify` (SQLite: from the state
#     directory; PostgreSQL: fetched over HTTP from node 0).
#
# Usage: scripts/bench_scale_out.sh [k] [P]        (default 12 60)
# Env:   PROOFPIPE, BENCH_CACHE, BENCH_PORT (7400; nodes use PORT..PORT+2),
#        BENCH_LEASE (30s), PG_BIN (the newest /usr/lib/postgresql/*/bin).
# Budget on a quiet 2-core machine at 2^12 x 60: well under a minute of
# `gen` the first time, then 3 x 60 small proofs (about a minute in all).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
PORT="${BENCH_PORT:-7400}"
LEASE="${BENCH_LEASE:-30s}"
K="${1:-12}"
P="${2:-60}"
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"

die() { echo "bench_scale_out: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }
now() { date +%s.%N; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ "$K" =~ ^[0-9]+$ && "$K" -ge 3 && "$K" -le 22 ]] || die "k must be in [3, 22]"
[[ "$P" =~ ^[0-9]+$ && "$P" -ge 10 && $((P % 10)) -eq 0 ]] || die "P must be a multiple of 10"
[[ -x "$PG_BIN/initdb" ]] || die "no PostgreSQL server binaries (apt-get install postgresql)"
for c in curl psql bc; do command -v $c >/dev/null || die "$c not found"; done

W="$CACHE/gen_${K}_${P}"
if [[ ! -f "$W/circuit.zkey" ]]; then
    log "generating 2^$K - 8 constraints x $P partitions into $W"
    mkdir -p "$W"
    "$PROOFPIPE" gen --constraints $(( (1 << K) - 8 )) --partitions "$P" --out "$W" 2>"$W.gen.log" \
        || { tail -5 "$W.gen.log" >&2; die "gen failed"; }
fi
mapfile -t WITNESSES < <(ls "$W"/*.wtns | sort | head -n "$P")
[[ ${#WITNESSES[@]} -eq $P ]] || die "expected $P witnesses in $W"

# --- the throwaway PostgreSQL cluster ----------------------------------------
PGDIR=$(mktemp -d /tmp/proofpipe-bench-pg-XXXXXX)
AS=()
if [[ $(id -u) -eq 0 ]]; then chown postgres "$PGDIR"; AS=(runuser -u postgres --); fi
NODES=()
cleanup() {
    for pid in "${NODES[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${NODES[@]}"; do wait "$pid" 2>/dev/null || true; done
    "${AS[@]}" "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PGDIR"
}
trap cleanup EXIT
"${AS[@]}" "$PG_BIN/initdb" -D "$PGDIR/data" -A trust -U pp >"$PGDIR/initdb.log" 2>&1 || die "initdb failed"
"${AS[@]}" "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
    -o "-c listen_addresses='' -k $PGDIR -c shared_preload_libraries=pg_stat_statements" start >/dev/null \
    || die "pg_ctl start failed (see $PGDIR/server.log)"
URL="postgresql://pp@/postgres?host=$PGDIR"
q() { psql -X -q -A -t -d "$URL" -c "$1"; }
q "CREATE SCHEMA bench; CREATE EXTENSION pg_stat_statements SCHEMA bench" >/dev/null

# run_case NAME NODES QUEUE: sets WALL_S and SPREAD (proofs per node)
run_case() {
    local name=$1 n=$2 queue=$3 run="$CACHE/scale_out/$1"
    rm -rf "$run" && mkdir -p "$run"
    [[ $queue == sqlite ]] || q "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public"
    NODES=()
    for ((i = 0; i < n; i++)); do
        PROOFPIPE_NO_PROGRESS=1 "$PROOFPIPE" serve --key "g=$W/circuit.zkey" --state-dir "$run/state$i" \
            --listen "127.0.0.1:$((PORT + i))" --synth-workers 1 --gpu-workers 1 --backend cpu \
            --queue "$queue" --node-id "n$i" --lease "$LEASE" >"$run/node$i.log" 2>&1 &
        NODES+=($!)
    done
    for ((i = 0; i < n; i++)); do
        until curl -sf "http://127.0.0.1:$((PORT + i))/readyz" >/dev/null; do
            kill -0 "${NODES[$i]}" 2>/dev/null || { tail -5 "$run/node$i.log" >&2; die "$name: node $i exited"; }
            sleep 0.05
        done
    done
    [[ $queue == sqlite ]] || q "SELECT bench.pg_stat_statements_reset()" >/dev/null
    local t0 t1 jobs=$((P / 10))
    t0=$(now)
    for ((j = 0; j < jobs; j++)); do
        "$PROOFPIPE" submit --server "http://127.0.0.1:$((PORT + j % n))" --key g --id "b$j" \
            "${WITNESSES[@]:$((j * 10)):10}" >>"$run/submit.log" 2>&1 || die "$name: submit $j failed"
    done
    while :; do
        list=$(curl -sf "http://127.0.0.1:$PORT/v1/jobs?limit=1000" || true)
        [[ $(grep -o '"state":"failed"' <<<"$list" | wc -l) -eq 0 ]] || die "$name: jobs failed (see $run)"
        [[ $(grep -o '"state":"done"' <<<"$list" | wc -l) -ge $jobs ]] && break
        sleep 0.2
    done
    t1=$(now)
    SPREAD="-"
    if [[ $queue != sqlite ]]; then
        SPREAD=$(q "SELECT string_agg(node || ':' || c, ' ' ORDER BY node) FROM (SELECT node, count(*) c FROM proofs GROUP BY node) x")
        # The queue's cost: server execution time of every statement the nodes sent, per partition.
        # pg_stat_statements shows literals as $n: the patterns use only the statements' fixed words.
        q "SELECT CASE WHEN query LIKE '%SKIP LOCKED%' OR query LIKE 'WITH d AS%' OR query LIKE 'INSERT INTO attempts%'
                            OR query LIKE 'UPDATE jobs SET state%ANY%' OR query LIKE 'UPDATE attempts%AND result = \$%' THEN 'claim'
                       WHEN query LIKE '%unnest%' OR query LIKE '%INTO nodes%' OR query LIKE 'UPDATE partitions SET lease_until%' THEN 'renew'
                       WHEN query LIKE '%FOR UPDATE OF p%' OR query LIKE 'INSERT INTO proofs%' OR query LIKE 'UPDATE jobs j SET finished_at%'
                            OR query LIKE 'SELECT seq FROM jobs WHERE seq = ANY%'
                            OR query LIKE 'UPDATE attempts%' OR query LIKE '%wait_s = \$%' THEN 'commit'
                       WHEN query IN ('BEGIN', 'COMMIT') OR query LIKE 'BEGIN%' THEN 'begin/commit'
                       WHEN query LIKE 'INSERT INTO jobs%' OR query LIKE 'INSERT INTO partitions%' THEN 'submit'
                       WHEN query LIKE 'SELECT count(*) FROM partitions%' THEN 'depth (metrics)'
                       ELSE 'api reads' END AS kind, sum(calls), round(sum(total_exec_time)::numeric, 2)
             FROM bench.pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'postgres')
             GROUP BY 1 ORDER BY 1" >"$run/statements.txt"
        q "SELECT calls, round(total_exec_time::numeric, 3), regexp_replace(query, '\s+', ' ', 'g')
             FROM bench.pg_stat_statements ORDER BY total_exec_time DESC" >"$run/statements_raw.txt"
        for ((j = 0; j < jobs; j++)); do
            for ((k = 0; k < 10; k++)); do
                local wt="${WITNESSES[$((j * 10 + k))]}" name
                name=$(basename "$wt" .wtns)
                curl -sf "http://127.0.0.1:$PORT/v1/jobs/b$j/proofs/$name" >"$run/pair.json" || die "$name: no proof"
                python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d['proof'], open(sys.argv[2],'w')); json.dump(d['public'], open(sys.argv[3],'w'))" \
                    "$run/pair.json" "$run/p.json" "$run/i.json"
                "$PROOFPIPE" verify "$W/verification_key.json" "$run/i.json" "$run/p.json" >/dev/null \
                    || die "$name of b$j does not verify"
            done
        done
    else
        for ((j = 0; j < jobs; j++)); do
            for ((k = 0; k < 10; k++)); do
                local name
                name=$(basename "${WITNESSES[$((j * 10 + k))]}" .wtns)
                "$PROOFPIPE" verify "$W/verification_key.json" "$run/state0/proofs/b$j/$name.public.json" \
                    "$run/state0/proofs/b$j/$name.proof.json" >/dev/null || die "$name of b$j does not verify"
            done
        done
    fi
    for pid in "${NODES[@]}"; do kill -TERM "$pid"; done
    for pid in "${NODES[@]}"; do wait "$pid" || die "$name: a node did not stop cleanly (see $run)"; done
    NODES=()
    WALL_S=$(echo "$t1 - $t0" | bc -l)
}

log "1 node, SQLite journal"
run_case sqlite1 1 sqlite
s1=$WALL_S
log "1 node, PostgreSQL"
run_case pg1 1 "$URL"
p1=$WALL_S
log "3 nodes, PostgreSQL"
run_case pg3 3 "$URL"
p3=$WALL_S
spread3=$SPREAD

printf '\n2^%s constraints, %s partitions in %s jobs, 1 synth + 1 proving worker per node (cpu backend), %s cores\n' \
    "$K" "$P" "$((P / 10))" "$(nproc)"
printf '%-26s %9s %9s\n' "" "total s" "s/proof"
for row in "1 node, SQLite:$s1" "1 node, PostgreSQL:$p1" "3 nodes, PostgreSQL:$p3"; do
    printf '%-26s %9.2f %9.3f\n' "${row%%:*}" "${row##*:}" "$(echo "${row##*:} / $P" | bc -l)"
done
printf 'proofs per node (3 nodes): %s\n' "$spread3"
for c in pg1 pg3; do
    printf '\nqueue statements, %s (kind | calls | server ms):\n' "$c"
    cat "$CACHE/scale_out/$c/statements.txt"
    awk -F'|' -v p="$P" '$1 ~ /^(claim|renew|commit|begin\/commit)$/ { ms += $3; calls += $2 }
        END { printf "claims + renewals + commits: %.3f ms server time and %.1f statements per partition\n", ms / p, calls / p }' \
        "$CACHE/scale_out/$c/statements.txt"
done
