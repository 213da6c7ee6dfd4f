#!/usr/bin/env bash
# The resident service against one-shot runs: P single-partition
# jobs at 2^k constraints through one `proofpipe serve` against P separate
# `proofpipe run` calls on the same key and witnesses, same machine, same
# run, same worker counts. Each `run` pays the key's load and checks, the
# workers' start-up and their key loads; the service pays them once.
#
#   * workload: `proofpipe gen` with 2^k - 8 constraints and P witnesses
#     (TESTING ONLY dev key), cached in $BENCH_CACHE/gen_<k>_<P>;
#   * runs: P x `proofpipe run --witness w_i` one after another, wall time
#     of all of them; the largest per-run memory (summary.json: the sum of
#     every process's peak);
#   * service: started once (its start-up, to /readyz 200, is timed and
#     reported apart), then P jobs of one witness each submitted at once
#     (the upload form of `proofpipe submit`), wall time from the first
#     submit to the last job done; memory from /metrics (the sampled total
#     peak of all its processes);
#   * every service proof is checked with `proofpipe verify`.
#
# Usage: scripts/bench_service.sh [k] [P]        (default 18 20)
# Env:   PROOFPIPE, BENCH_CACHE, BENCH_SYNTH (2), BENCH_GPU (1), BENCH_PORT (7391).
# Budget on a quiet 2-core machine at 2^18 x 20: ~1 min of `gen` the first
# time, then about 2 x 20 proofs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
SYNTH="${BENCH_SYNTH:-2}"
GPU="${BENCH_GPU:-1}"
PORT="${BENCH_PORT:-7391}"
K="${1:-18}"
P="${2:-20}"

die() { echo "bench_service: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }
now() { date +%s.%N; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ "$K" =~ ^[0-9]+$ && "$K" -ge 3 && "$K" -le 22 ]] || die "k must be in [3, 22]"
[[ "$P" =~ ^[0-9]+$ && "$P" -ge 1 ]] || die "P must be a positive integer"
command -v curl >/dev/null || die "curl not found"

W="$CACHE/gen_${K}_${P}"
RUN="$CACHE/service_run"
rm -rf "$RUN" && mkdir -p "$RUN"
if [[ ! -f "$W/circuit.zkey" ]]; then
    log "generating 2^$K - 8 constraints x $P partitions into $W"
    "$PROOFPIPE" gen --constraints $(( (1 << K) - 8 )) --partitions "$P" --out "$W" 2>"$RUN/gen.log" \
        || { tail -5 "$RUN/gen.log" >&2; die "gen failed"; }
fi
mapfile -t WITNESSES < <(ls "$W"/*.wtns | sort | head -n "$P")
[[ ${#WITNESSES[@]} -eq $P ]] || die "expected $P witnesses in $W"
workers=(--synth-workers "$SYNTH" --gpu-workers "$GPU" --backend cpu)

# --- P one-shot runs -------------------------------------------------------
log "$P x proofpipe run (one witness each)"
t0=$(now)
run_peak=0
for i in "${!WITNESSES[@]}"; do
    out="$RUN/run_$i"
    PROOFPIPE_NO_PROGRESS=1 "$PROOFPIPE" run --zkey "$W/circuit.zkey" --witness "${WITNESSES[$i]}" --out "$out" \
        "${workers[@]}" >"$RUN/run_$i.log" 2>&1 || { tail -5 "$RUN/run_$i.log" >&2; die "run $i failed"; }
    peak=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['memory']['max_total_peak_bytes'])" \
        "$out/summary.json" 2>/dev/null || echo 0)
    (( peak > run_peak )) && run_peak=$peak
done
t1=$(now)
runs_s=$(echo "$t1 - $t0" | bc -l)

# --- one service, P jobs ----------------------------------------------------
log "proofpipe serve, $P jobs of one witness"
state="$RUN/state"
ts=$(now)
PROOFPIPE_NO_PROGRESS=1 "$PROOFPIPE" serve --key "g=$W/circuit.zkey" --state-dir "$state" \
    --listen "127.0.0.1:$PORT" "${workers[@]}" >"$RUN/serve.log" 2>&1 &
serve_pid=$!
trap 'kill -TERM $serve_pid 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do
    kill -0 $serve_pid 2>/dev/null || { tail -5 "$RUN/serve.log" >&2; die "serve exited"; }
    sleep 0.05
done
tr=$(now)
startup_s=$(echo "$tr - $ts" | bc -l)
t2=$(now)
for i in "${!WITNESSES[@]}"; do
    "$PROOFPIPE" submit --server "http://127.0.0.1:$PORT" --key g --id "b$i" "${WITNESSES[$i]}" \
        >>"$RUN/submit.log" 2>&1 || die "submit $i failed (see $RUN/submit.log)"
done
# All P done: one request per poll, every 0.2 s (a client polling faster
# takes CPU from the proofs on a small machine; 0.2 s is < 1 % of any run
# measured here).
count_state() { { grep -o "\"state\":\"$1\"" || true; } | wc -l; }
while :; do
    list=$(curl -sf "http://127.0.0.1:$PORT/v1/jobs?limit=10000")
    [[ $(count_state failed <<<"$list") -eq 0 ]] || die "jobs failed (see $RUN/serve.log)"
    [[ $(count_state done <<<"$list") -ge $P ]] && break
    sleep 0.2
done
t3=$(now)
service_s=$(echo "$t3 - $t2" | bc -l)
service_peak=$(curl -sf "http://127.0.0.1:$PORT/metrics" | awk '/^proofpipe_memory_total_peak_bytes /{printf "%d", $2}')
for i in "${!WITNESSES[@]}"; do
    name=$(basename "${WITNESSES[$i]}" .wtns)
    "$PROOFPIPE" verify "$W/verification_key.json" "$state/proofs/b$i/$name.public.json" \
        "$state/proofs/b$i/$name.proof.json" >/dev/null || die "proof of job b$i does not verify"
done
kill -TERM $serve_pid
wait $serve_pid || die "serve did not stop cleanly (see $RUN/serve.log)"
trap - EXIT

mib() { echo "scale=1; $1 / 1048576" | bc -l; }
printf '\n2^%s constraints, %s single-partition jobs, %s synth + %s proving workers (cpu backend), %s\n' \
    "$K" "$P" "$SYNTH" "$GPU" "$(nproc) cores"
printf '%-28s %10s %10s %14s\n' "" "total s" "s/proof" "peak memory"
printf '%-28s %10.2f %10.3f %11s MiB\n' "$P x proofpipe run" "$runs_s" "$(echo "$runs_s / $P" | bc -l)" "$(mib "$run_peak")"
printf '%-28s %10.2f %10.3f %11s MiB\n' "proofpipe serve, $P jobs" "$service_s" "$(echo "$service_s / $P" | bc -l)" \
    "$(mib "${service_peak:-0}")"
printf 'service start-up (to /readyz): %.2f s, paid once\n' "$startup_s"
printf 'ratio (runs / service): %.2fx\n' "$(echo "$runs_s / $service_s" | bc -l)"
