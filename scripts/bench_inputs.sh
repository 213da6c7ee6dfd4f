#!/usr/bin/env bash
# From circuit inputs to proofs (docs/witness-gen.md): the circom
# user's usual path against `proofpipe run --inputs`, on the same inputs of
# one circuit, same machine, same run of this script.
#
#   A  snarkjs:    for each input: `snarkjs wtns calculate` then `snarkjs groth16 prove`
#   B  prove:      for each input: `snarkjs wtns calculate` then `proofpipe prove`
#   C  run:        `proofpipe run --inputs <dir> --witness-gen wasm:<circuit_js>` (all inputs, one batch)
#
# Circuit: the square chain of 2^k constraints (scripts/lib/bench_circuit.sh),
# key from `proofpipe setup-dev` (TESTING ONLY). Inputs: x0 = 2 .. N+1, k = 7.
# Figures: seconds per proof (wall), the share of each stage (A, B: witness
# generation and proving per input; C: per partition, the generator's run,
# the rest of synthesis (a, b, c) and the proving worker's time, from
# summary.json; these overlap across partitions), and peak memory (A, B: the largest max RSS of one command,
# GNU time; C: the sum of the per-process peaks, summary.json). Every proof
# is checked with `snarkjs groth16 verify`.
#
# Usage: scripts/bench_inputs.sh [k]                 (default 16)
# Env:   PROOFPIPE (default build/bin/proofpipe), BENCH_CACHE (.cache/bench),
#        BENCH_INPUTS (default 10), RUN_FLAGS (extra flags for C, e.g.
#        "--synth-workers 4 --gpu-workers 1 --backend cuda").
# Needs: node + `npm ci`, GNU time, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
INPUTS="${BENCH_INPUTS:-10}"
RUN_FLAGS="${RUN_FLAGS:-}"
SNARKJS_CLI="$ROOT/node_modules/snarkjs/build/cli.cjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
TIME=/usr/bin/time
K="${1:-16}"

die() { echo "bench_inputs: error: $*" >&2; exit 2; }
log() { echo "[bench_inputs] $*" >&2; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe binary not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -f "$SNARKJS_CLI" && -x "$CIRCOM" ]] || die "snarkjs/circom2 missing: run 'npm ci' in $ROOT"
[[ -x "$TIME" ]] || die "GNU time ($TIME) not found"
[[ "$K" =~ ^[0-9]+$ && "$K" -ge 4 && "$K" -le 20 ]] || die "size exponent '$K' must be an integer in [4, 20]"
[[ "$INPUTS" =~ ^[0-9]+$ && "$INPUTS" -ge 1 ]] || die "BENCH_INPUTS must be a positive integer"

source "$ROOT/scripts/lib/bench_circuit.sh"
RUN="$CACHE/inputs_run"
rm -rf "$RUN"
mkdir -p "$RUN/in" "$RUN/A" "$RUN/B" "$RUN/wtns"

# timed <log> <cmd...>: prints "wall_s max_rss_kib".
timed() {
    local logf="$1" tf="$1.time"; shift
    "$TIME" -f "%e %M" -o "$tf" "$@" >"$logf" 2>&1 || { tail -20 "$logf" >&2; die "failed: $*"; }
    cat "$tf"
}
sum() { awk '{s+=$1} END {printf "%.3f", s}'; }
max() { sort -g | tail -1; }

base="$(prepare_circuit "$K")"
n=$(( (1 << K) - 3 ))
name="$(basename "$base")"
wasm_dir="${base}_js"
zkey="$RUN/sq.zkey" vk="$RUN/sq.vk.json"
log "2^$K ($n constraints), $INPUTS inputs; proofpipe $PROOFPIPE; cpus $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PROOFPIPE" setup-dev "$base.r1cs" "$zkey" >/dev/null
snarkjs zkey export verificationkey "$zkey" "$vk" >/dev/null
for ((i = 0; i < INPUTS; i++)); do
    printf '{"x0": "%d", "k": "7"}\n' $((i + 2)) >"$RUN/in/i$(printf %02d "$i").json"
done

# A and B: one input after another, as a user's loop does.
declare -A gen_s prove_s rss
for path in A B; do
    gen_s[$path]=0 prove_s[$path]=0 rss[$path]=0
    for inp in "$RUN"/in/*.json; do
        stem="$(basename "$inp" .json)"
        wtns="$RUN/wtns/$path-$stem.wtns"
        read -r w1 m1 < <(timed "$RUN/$path/$stem.gen.log" node "$SNARKJS_CLI" wtns calculate "$wasm_dir/$name.wasm" "$inp" "$wtns")
        if [[ $path == A ]]; then
            read -r w2 m2 < <(timed "$RUN/$path/$stem.prove.log" node "$SNARKJS_CLI" groth16 prove "$zkey" "$wtns" \
                "$RUN/$path/$stem.proof.json" "$RUN/$path/$stem.public.json")
        else
            read -r w2 m2 < <(timed "$RUN/$path/$stem.prove.log" "$PROOFPIPE" prove "$zkey" "$wtns" \
                "$RUN/$path/$stem.proof.json" "$RUN/$path/$stem.public.json")
        fi
        gen_s[$path]="$(printf '%s\n%s\n' "${gen_s[$path]}" "$w1" | sum)"
        prove_s[$path]="$(printf '%s\n%s\n' "${prove_s[$path]}" "$w2" | sum)"
        rss[$path]="$(printf '%s\n%s\n%s\n' "${rss[$path]}" "$m1" "$m2" | max)"
        log "$path $stem: witness ${w1}s, prove ${w2}s"
    done
done

# C: the whole batch through the pipeline.
read -r c_wall c_rss < <(timed "$RUN/C.log" "$PROOFPIPE" run --zkey "$zkey" --inputs "$RUN/in" \
    --witness-gen "wasm:$wasm_dir" --out "$RUN/C" $RUN_FLAGS)
log "C: run --inputs ${c_wall}s"

verified=0 total=0
for proof in "$RUN"/{A,B,C}/*.proof.json; do
    total=$((total + 1))
    if snarkjs groth16 verify "$vk" "${proof%.proof.json}.public.json" "$proof" 2>&1 | grep -q "OK"; then
        verified=$((verified + 1))
    else
        log "snarkjs REJECTED $proof"
    fi
done

echo
echo "inputs -> proofs, 2^$K square chain ($n constraints), $INPUTS inputs, $(nproc) cpus"
echo "| path | s/proof | witness share | proving share | peak memory |"
echo "|------|---------|---------------|---------------|-------------|"
for path in A B; do
    label="snarkjs wtns calculate + snarkjs groth16 prove"
    [[ $path == B ]] && label="snarkjs wtns calculate + proofpipe prove"
    awk -v l="$label" -v g="${gen_s[$path]}" -v p="${prove_s[$path]}" -v m="${rss[$path]}" -v n="$INPUTS" 'BEGIN {
        t = g + p; printf "| %s | %.3f | %.0f %% witness | %.0f %% | %.1f MiB (one command) |\n",
        l, t / n, 100 * g / t, 100 * p / t, m / 1024 }'
done
python3 - "$RUN/C/summary.json" "$c_wall" "$RUN_FLAGS" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
parts = [p for p in s["per_partition"] if p["state"] == "done"]
n = max(1, len(parts))
gen = sum(p["generate_s"] for p in parts)
synth = sum(p["synth_s"] for p in parts)
prove = sum(p["prover_s"] for p in parts)
total = synth + prove
wall = float(sys.argv[2])
mem = s["memory"]
print(f"| proofpipe run --inputs --witness-gen wasm {sys.argv[3]} | {wall / n:.3f} | "
      f"{100 * gen / total:.0f} % witness ({gen / n:.2f} s each), {100 * (synth - gen) / total:.0f} % a,b,c "
      f"(overlapped with proving) | {100 * prove / total:.0f} % ({prove / n:.2f} s each) | "
      f"{mem['sum_of_peak_rss_bytes'] / 2**20:.1f} MiB (sum of process peaks) |")
EOF
echo "proofs verified by snarkjs: $verified/$total; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $verified -eq $total ]] || die "$((total - verified)) of $total proofs failed snarkjs verify"
