#!/usr/bin/env bash
# Pipeline against sequential proving: wall time and peak memory of
# `proofpipe run` over P partitions against P sequential `proofpipe prove`
# calls on the same key and witnesses, same machine, same run.
#
#   * workload ($BENCH_WORKLOAD): "gen" (default): `proofpipe gen` with
#     2^k - 8 constraints and P witnesses (a realistic mix of sparse and dense
#     constraints, TESTING ONLY dev key), cached in $BENCH_CACHE/gen_<k>_<P>;
#     "square": the circom square chain of 2^k constraints
#     (scripts/lib/bench_circuit.sh), P witnesses for x0 = 3, 4, ..., key from
#     `proofpipe setup-dev`;
#   * order: sequential then pipeline, then pipeline then sequential
#     ($BENCH_ROUNDS rounds, default 2, alternating); medians are reported;
#     each pipeline configuration in $BENCH_CONFIGS ("synth:gpu:slots ...",
#     default "2:1:3") is run in every round;
#   * memory: sequential = the largest peak RSS of one `prove` (GNU time %M);
#     pipeline = the sum of every process's peak RSS (summary.json: the
#     coordinator and each worker, ring pages counted in the workers that
#     touched them), and the ring size;
#   * every pipeline proof is checked with `proofpipe verify`, one with snarkjs.
#
# Usage: scripts/bench_pipeline.sh [k] [P]        (default 16 10)
# Env:   PROOFPIPE, BENCH_CACHE, BENCH_ROUNDS, BENCH_WORKLOAD, BENCH_CONFIGS.
# Budget on a quiet 2-core machine, 1 round: 2^16 x 10 about 1 min, 2^18 x 10
# about 3 min, 2^20 x 4 about 6 min (plus ~1 min of `gen` the first time).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
ROUNDS="${BENCH_ROUNDS:-2}"
WORKLOAD="${BENCH_WORKLOAD:-gen}"
read -r -a CONFIGS <<<"${BENCH_CONFIGS:-2:1:3}"
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

RUN="$CACHE/pipeline_run"
rm -rf "$RUN" && mkdir -p "$RUN"
if [[ $WORKLOAD == gen ]]; then
    W="$CACHE/gen_${K}_${P}"
    if [[ ! -f "$W/circuit.zkey" ]]; then
        log "generating 2^$K - 8 constraints x $P partitions into $W"
        "$PROOFPIPE" gen --constraints $(( (1 << K) - 8 )) --partitions "$P" --out "$W" 2>"$RUN/gen.log" \
            || { tail -5 "$RUN/gen.log" >&2; die "gen failed"; }
    fi
    zkey="$W/circuit.zkey" vk="$W/verification_key.json"
else
    base="$(prepare_circuit "$K")"
    n=$(( (1 << K) - 3 ))
    W="$CACHE/sq_${n}_witnesses"
    mkdir -p "$W"
    for ((i = 0; i < P; i++)); do witness_for "$base" $((3 + i)) "$W/w$(printf %02d "$i").wtns"; done
    zkey="$RUN/key.zkey" vk="$RUN/vk.json"
    "$PROOFPIPE" setup-dev "$base.r1cs" "$zkey" >/dev/null 2>&1 || die "setup-dev failed"
    "$PROOFPIPE" export-vkey "$zkey" "$vk"
fi
wtns=("$W"/w*.wtns)
wtns=("${wtns[@]:0:$P}")
log "2^$K ($WORKLOAD) x $P partitions; cpus $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); configs ${CONFIGS[*]}"

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

pipeline() {  # pipeline <synth:gpu:slots>; prints "wall sum_peak_rss_bytes ring_bytes max_at_one_sample"
    rm -rf "$RUN/out"
    local args=() t0 t1 sy gp sl
    IFS=: read -r sy gp sl <<<"$1"
    for w in "${wtns[@]}"; do args+=(--witness "$w"); done
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    PROOFPIPE_NO_PROGRESS=1 "$PROOFPIPE" run --zkey "$zkey" "${args[@]}" --out "$RUN/out" \
        --synth-workers "$sy" --gpu-workers "$gp" --slots "$sl" >"$RUN/run.log" 2>&1 \
        || { tail -20 "$RUN/run.log" >&2; die "run failed"; }
    t1=$(date +%s.%N)
    python3 - "$RUN/out/summary.json" "$t0" "$t1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = s['memory']
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.3f} {m['sum_of_peak_rss_bytes']} {s['ring']['ring_bytes']} {m['max_total_peak_bytes']}")
PY
}

declare -A pipe_t pipe_m pipe_one ring
seq_t=() seq_m=0
for ((r = 1; r <= ROUNDS; r++)); do
    order=(seq pipe); (( r % 2 == 0 )) && order=(pipe seq)
    for who in "${order[@]}"; do
        if [[ $who == seq ]]; then
            read -r t m <<<"$(sequential)"; seq_t+=("$t"); (( m > seq_m )) && seq_m=$m
            log "round $r sequential: ${t}s, max prove RSS $((m >> 20)) MiB"
        else
            for cfg in "${CONFIGS[@]}"; do
                read -r t m rb one <<<"$(pipeline "$cfg")"
                pipe_t[$cfg]="${pipe_t[$cfg]:-} $t"
                (( m > ${pipe_m[$cfg]:-0} )) && pipe_m[$cfg]=$m
                (( one > ${pipe_one[$cfg]:-0} )) && pipe_one[$cfg]=$one
                ring[$cfg]=$rb
                log "round $r pipeline $cfg: ${t}s, sum of peak RSS $((m >> 20)) MiB, most at one sample $((one >> 20)) MiB, ring $((rb >> 20)) MiB"
            done
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

ms="$(median "${seq_t[@]}")"
echo
echo "proofpipe run vs $P sequential proofpipe prove (2^$K $WORKLOAD, $ROUNDS round(s), median wall; $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| size | P | run synth:gpu:slots | sequential | pipeline | speedup | s/proof seq / pipe | proofs/h pipe | peak mem seq (one prove) | pipe: sum of peaks / most at one sample | ring |"
echo "|------|---|---------------------|------------|----------|---------|--------------------|---------------|--------------------------|------------------------------------------|------|"
for cfg in "${CONFIGS[@]}"; do
    # shellcheck disable=SC2086
    mp="$(median ${pipe_t[$cfg]})"
    awk -v k="$K" -v p="$P" -v c="$cfg" -v a="$ms" -v b="$mp" -v sm="$seq_m" -v pm="${pipe_m[$cfg]}" \
        -v one="${pipe_one[$cfg]}" -v rg="${ring[$cfg]}" 'BEGIN {
        printf "| 2^%d | %d | %s | %.2f s | %.2f s | %.2fx | %.3f / %.3f | %.0f | %.0f MiB | %.0f / %.0f MiB | %.1f MiB |\n",
            k, p, c, a, b, a / b, a / p, b / p, 3600 * p / b, sm / 1048576, pm / 1048576, one / 1048576, rg / 1048576 }'
done
echo "verified: $ok/$P pipeline proofs (last configuration) with proofpipe verify, 1 with snarkjs"
