#!/usr/bin/env bash
# Wall-clock and peak-memory comparison of `snarkjs groth16 prove` and
# `proofpipe prove` on the same zkey and witness (Groth16 over BLS12-381, or
# BN254 with --curve bn128), at several circuit sizes.
#
# For each size 2^k (default k = 12 14 16):
#   * circuit: a circom square chain x[i+1] <== x[i]*x[i] + k with N = 2^k - 3
#     steps (one constraint each; with nPublic = 2 the domain is exactly 2^k),
#     compiled once with the pinned circom2 (--prime bls12381 or bn128) into the cache
#     ($BENCH_CACHE, default .cache/bench/, gitignored) and reused;
#   * witness: `snarkjs wtns calculate` (checked once with `wtns check`), cached;
#   * from 2^$BENCH_GEN_FROM (default 20) the circuit and its witness come from
#     `proofpipe gen` instead (a random R1CS of 2^k - 4 constraints, 3 public
#     signals, and one satisfying witness; cached): the pinned circom2
#     (WebAssembly) did not finish compiling the 2^20 square chain in 25
#     minutes. Its witness has many 0 and 1 values, cheaper for both provers;
#     snarkjs's verification of every proof still checks the witness;
#   * key: `proofpipe setup-dev` (TESTING-ONLY toxic waste, so no ptau is
#     needed), made fresh on every run of this script; verification key from
#     `snarkjs zkey export verificationkey`;
#   * timing: the two provers ALTERNATE (ABBA order: snarkjs first on odd runs,
#     proofpipe first on even runs), $BENCH_RUNS_BIG runs each at k >= 16
#     (default 3) and $BENCH_RUNS_SMALL below (default 5); medians and the ratio
#     are printed;
#   * every proof of both provers is checked with `snarkjs groth16 verify`.
#
# The machine may be shared (docs/design/formats.md §5): each timed run
# also records the CPU seconds the rest of the machine used meanwhile
# (/proc/stat busy time minus the prover's own user+sys), shown as "other
# load" in cores; numbers taken under a high other load are not trustworthy.
#
# Usage: scripts/bench_vs_snarkjs.sh [--curve bls12381|bn128] [k ...]
#        e.g. scripts/bench_vs_snarkjs.sh 12 14; scripts/bench_vs_snarkjs.sh --curve bn128 12 14 16 18 20
# Env:   PROOFPIPE (default build/bin/proofpipe), BENCH_CACHE, BENCH_RUNS_SMALL,
#        BENCH_RUNS_BIG, BENCH_KEEP=1 (keep proofs/keys under $BENCH_CACHE/run),
#        BENCH_GEN_FROM (default 20: sizes from there use `proofpipe gen`).
# Needs: node + `npm ci` (snarkjs 0.7.6, circom2 0.2.23 in node_modules), GNU time.
# Budget: about 3-4 minutes on an idle 2-core machine for 12 14 16 (snarkjs
# alone is ~2 s, ~4.6 s and ~14.5 s per prove there), under 10 when loaded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
RUNS_SMALL="${BENCH_RUNS_SMALL:-5}"
RUNS_BIG="${BENCH_RUNS_BIG:-3}"
GEN_FROM="${BENCH_GEN_FROM:-20}"
SNARKJS_CLI="$ROOT/node_modules/snarkjs/build/cli.cjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
TIME=/usr/bin/time
CURVE=bls12381
if [[ "${1:-}" == --curve ]]; then CURVE="${2:-}"; shift 2 || true; fi
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(12 14 16)

die() { echo "bench_vs_snarkjs: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe binary not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -f "$SNARKJS_CLI" && -x "$CIRCOM" ]] || die "snarkjs/circom2 missing: run 'npm ci' in $ROOT"
command -v node >/dev/null || die "node not found"
[[ -x "$TIME" ]] || die "GNU time ($TIME) not found"
[[ "$CURVE" == bls12381 || "$CURVE" == bn128 ]] || die "--curve '$CURVE' must be bls12381 or bn128"
for k in "${SIZES[@]}"; do
    [[ "$k" =~ ^[0-9]+$ && "$k" -ge 3 && "$k" -le 20 ]] || die "size exponent '$k' must be an integer in [3, 20]"
done

mkdir -p "$CACHE/run"
RUN="$CACHE/run"


# timed <label> <cmd...>: runs the command with its output in $RUN/<label>.log;
# prints "wall own_cpu other_load peak_rss" (seconds, seconds, cores, MB; the
# peak RSS is GNU time's %M, the largest resident size of the process).
timed() {
    local f
    f="$(timed_fields "$@")" || exit 2
    awk '{ printf "%.3f %.3f %.2f %.0f\n", $1, $2, $3, $4 / 1024 }' <<<"$f"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mean() { printf '%s\n' "$@" | awk '{s+=$1} END {printf "%.2f", s/NR}'; }

# prepare_circuit <k>: the square chain for 2^k; prepare_gen_circuit <k>:
# `proofpipe gen`'s circuit (both scripts/lib/bench_circuit.sh).
source "$ROOT/scripts/lib/bench_circuit.sh"

declare -a TABLE
START=$SECONDS
log "curve: $CURVE; proofpipe: $PROOFPIPE; threads: ${PROOFPIPE_THREADS:-all}; cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"

for k in "${SIZES[@]}"; do
    if (( k >= GEN_FROM )); then
        base="$(prepare_gen_circuit "$k")"
        n=$(( (1 << k) - 4 ))
    else
        base="$(prepare_circuit "$k")"
        n=$(( (1 << k) - 3 ))
    fi
    runs=$RUNS_SMALL; [[ "$k" -ge 16 ]] && runs=$RUNS_BIG
    zkey="$RUN/sq_$n.zkey" vk="$RUN/sq_$n.vk.json"

    res="$(timed "setup_$k" "$PROOFPIPE" setup-dev "$base.r1cs" "$zkey")"
    read -r setup_wall _ _ <<<"$res"
    snarkjs zkey export verificationkey "$zkey" "$vk" >/dev/null
    log "2^$k: setup-dev ${setup_wall}s; $runs alternating runs per prover"

    sj=() pp=() sj_other=() pp_other=() sj_rss=() pp_rss=() verified=0 total=0
    for ((i = 1; i <= runs; i++)); do
        order=(snarkjs proofpipe); (( i % 2 == 0 )) && order=(proofpipe snarkjs)
        for who in "${order[@]}"; do
            proof="$RUN/${who}_${k}_$i.proof.json" pub="$RUN/${who}_${k}_$i.public.json"
            if [[ $who == snarkjs ]]; then
                res="$(timed "snarkjs_${k}_$i" node "$SNARKJS_CLI" groth16 prove "$zkey" "$base.wtns" "$proof" "$pub")"
                read -r wall own other rss <<<"$res"
                sj+=("$wall"); sj_other+=("$other"); sj_rss+=("$rss")
            else
                res="$(timed "proofpipe_${k}_$i" "$PROOFPIPE" prove "$zkey" "$base.wtns" "$proof" "$pub")"
                read -r wall own other rss <<<"$res"
                pp+=("$wall"); pp_other+=("$other"); pp_rss+=("$rss")
            fi
            log "2^$k run $i $who: wall ${wall}s, own cpu ${own}s, peak rss ${rss} MB, other load ${other} cores"
        done
    done
    # Every proof, from both provers, must pass snarkjs.
    for proof in "$RUN"/*_"${k}"_*.proof.json; do
        total=$((total + 1))
        if snarkjs groth16 verify "$vk" "${proof%.proof.json}.public.json" "$proof" 2>&1 | grep -q "OK"; then
            verified=$((verified + 1))
        else
            log "2^$k: snarkjs REJECTED $proof"
        fi
    done
    [[ -n "${BENCH_KEEP:-}" ]] || rm -f "$RUN"/*_"${k}"_*.json "$zkey"
    ms="$(median "${sj[@]}")" mp="$(median "${pp[@]}")"
    ratio="$(awk -v a="$ms" -v b="$mp" 'BEGIN {printf "%.1f", (b > 0 ? a / b : 0)}')"
    circuit="$n"; (( k >= GEN_FROM )) && circuit="$n gen"
    TABLE+=("$(printf '| 2^%-2d | %11s | %4s | %7.2f s | %7.2f s | %6sx | %5s / %-5s MB | %12.2f / %-11.2f | %7.1f s | %9s |' \
        "$k" "$circuit" "${runs}+${runs}" "$ms" "$mp" "$ratio" "$(median "${sj_rss[@]}")" "$(median "${pp_rss[@]}")" \
        "$(mean "${sj_other[@]}")" "$(mean "${pp_other[@]}")" "$setup_wall" "$verified/$total")")
    log "2^$k: snarkjs [${sj[*]}] proofpipe [${pp[*]}]"
    [[ $verified -eq $total ]] || die "2^$k: $((total - verified)) of $total proofs failed snarkjs verify"
done

echo
echo "snarkjs groth16 prove vs proofpipe prove, curve $CURVE (same zkey from proofpipe setup-dev, same wtns; median wall time, median peak RSS)"
echo "| size | constraints | runs |   snarkjs | proofpipe | speedup | peak RSS sj / pp | other load sj / pp (cores) | setup-dev | verify OK |"
echo "|------|-------------|------|-----------|-----------|---------|------------------|----------------------------|-----------|-----------|"
printf '%s\n' "${TABLE[@]}"
echo "total script time: $((SECONDS - START)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
