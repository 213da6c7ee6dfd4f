#!/usr/bin/env bash
# Pipeline against sequential proving (issue 4): wall time and peak memory of
# `proofpipe run` over P partitions against P sequential `proofpipe prove`
# calls on the same key and witnesses, same machine, same run.
#
#   * circuit: the square chain of 2^k constraints (scripts/lib/bench_circuit.sh),
#     P witnesses for inputs x0 = 3, 4, ...; key from `proofpipe setup-dev`;
#   * order: sequential then pipeline, then pipeline then sequential
#     ($BENCH_ROUNDS rounds, default 2, alternating); medians are reported;
#   * memory: sequential = the largest peak RSS of one `prove` (GNU time %M);
#     pipeline = the sum of every process's peak RSS (summary.json: the
#     coordinator and each worker, ring pages counted in the workers that
#     touched them), and the ring size;
#   * every pipeline proof is checked with `proofpipe verify`, one with snarkjs.
#
# Usage: scripts/bench_pipeline.sh [k] [P]        (default 16 10)
# Env:   PROOFPIPE, BENCH_CACHE, BENCH_ROUNDS, BENCH_RUN_ARGS (extra `run` flags,
#        default "--synth-workers 2 --gpu-workers 1").
# Budget at 2^16 x 10 on a quiet 2-core machine: about 2-3 minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
ROUNDS="${BENCH_ROUNDS:-2}"
RUN_ARGS="${BENCH_RUN_ARGS:---synth-workers 2 --gpu-workers 1}"
SNARKJS_CLI="$ROOT/node_modules/snarkjs/build/cli.cjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
TIME=/usr/bin/time
K="${1:-16}"
P="${2:-10}"

die() { echo "bench_pipeline: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
source "$ROOT/scripts/lib/bench_circuit.sh"

[[ -x "$PROOFPIPE" ]] || die "proofpipe not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -x "$TIME" ]] || die "GNU time ($TIME) not found"
[[ "$K" =~ ^[0-9]+$ && "$K" -ge 3 && "$K" -le 22 ]] || die "k must be in [3, 22]"
[[ "$P" =~ ^[0-9]+$ && "$P" -ge 1 ]] || die "P must be a positive integer"

base="$(prepare_circuit "$K")"
n=$(( (1 << K) - 3 ))
W="$CACHE/sq_${n}_witnesses"
RUN="$CACHE/pipeline_run"
mkdir -p "$W"
rm -rf "$RUN" && mkdir -p "$RUN"
for ((i = 0; i < P; i++)); do witness_for "$base" $((3 + i)) "$W/w$(printf %02d "$i").wtns"; done
wtns=("$W"/w*.wtns)
wtns=("${wtns[@]:0:$P}")
zkey="$RUN/key.zkey" vk="$RUN/vk.json"
"$PROOFPIPE" setup-dev "$base.r1cs" "$zkey" >/dev/null 2>&1 || die "setup-dev failed"
"$PROOFPIPE" export-vkey "$zkey" "$vk"
log "2^$K x $P partitions; cpus $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); run flags: $RUN_ARGS"

sequential() {  # prints "wall max_rss_bytes"
    local t0 t1 rss=0 r
    t0=$(date +%s.%N)
    for w in "${wtns[@]}"; do
        "$TIME" -f "%M" -o "$RUN/time.txt" "$PROOFPIPE" prove "$zkey" "$w" "$RUN/seq.proof.json" "$RUN/seq.public.json" \
            >/dev/null 2>&1 || die "prove failed on $w"
        r=$(( $(tail -1 "$RUN/time.txt") * 1024 ))
        (( r > rss )) && rss=$r
    done
    t1=$(date +%s.%N)
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') $rss"
}

pipeline() {  # prints "wall sum_peak_rss_bytes ring_bytes"
    rm -rf "$RUN/out"
    local args=() t0 t1
    for w in "${wtns[@]}"; do args+=(--witness "$w"); done
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$PROOFPIPE" run --zkey "$zkey" "${args[@]}" --out "$RUN/out" $RUN_ARGS >"$RUN/run.log" 2>&1 \
        || { tail -20 "$RUN/run.log" >&2; die "run failed"; }
    t1=$(date +%s.%N)
    python3 - "$RUN/out/summary.json" "$t0" "$t1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.3f} {s['memory']['sum_of_peak_rss_bytes']} {s['ring']['ring_bytes']}")
PY
}

seq_t=() pipe_t=() seq_m=0 pipe_m=0 ring=0
for ((r = 1; r <= ROUNDS; r++)); do
    order=(seq pipe); (( r % 2 == 0 )) && order=(pipe seq)
    for who in "${order[@]}"; do
        if [[ $who == seq ]]; then
            read -r t m <<<"$(sequential)"; seq_t+=("$t"); (( m > seq_m )) && seq_m=$m
            log "round $r sequential: ${t}s, max prove RSS $((m >> 20)) MiB"
        else
            read -r t m rb <<<"$(pipeline)"; pipe_t+=("$t"); (( m > pipe_m )) && pipe_m=$m; ring=$rb
            log "round $r pipeline:   ${t}s, sum of peak RSS $((m >> 20)) MiB, ring $((rb >> 20)) MiB"
        fi
    done
done

ok=0
for w in "${wtns[@]}"; do
    stem="$(basename "$w" .wtns)"
    "$PROOFPIPE" verify "$vk" "$RUN/out/$stem.public.json" "$RUN/out/$stem.proof.json" >/dev/null 2>&1 && ok=$((ok + 1))
done
first="$(basename "${wtns[0]}" .wtns)"
snarkjs groth16 verify "$vk" "$RUN/out/$first.public.json" "$RUN/out/$first.proof.json" | grep -q OK \
    || die "snarkjs rejected $first"
[[ $ok -eq $P ]] || die "$((P - ok)) pipeline proofs failed verification"

ms="$(median "${seq_t[@]}")" mp="$(median "${pipe_t[@]}")"
echo
echo "proofpipe run vs $P sequential proofpipe prove (2^$K square chain, $ROUNDS rounds, median wall; $(nproc) cpus)"
echo "| size | partitions | sequential | pipeline | speedup | s/proof seq / pipe | peak mem seq (max one prove) | peak mem pipe (sum) | ring | verified |"
echo "|------|------------|------------|----------|---------|--------------------|------------------------------|---------------------|------|----------|"
awk -v k="$K" -v p="$P" -v a="$ms" -v b="$mp" -v sm="$seq_m" -v pm="$pipe_m" -v rg="$ring" -v ok="$ok" 'BEGIN {
    printf "| 2^%d | %d | %.2f s | %.2f s | %.2fx | %.3f / %.3f | %.0f MiB | %.0f MiB | %.1f MiB | %d/%d + snarkjs 1 |\n",
        k, p, a, b, a / b, a / p, b / p, sm / 1048576, pm / 1048576, rg / 1048576, ok, p }'
