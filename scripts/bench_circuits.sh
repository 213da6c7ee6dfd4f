#!/usr/bin/env bash
# proofpipe against snarkjs and rapidsnark on circuits people prove (BN254).
#
# Workloads (every one compiled, keyed and witnessed once, then cached):
#   sha256_64     circomlib's Sha256 of a 64-byte preimage
#   merkle_eddsa  a depth-20 Poseidon Merkle proof of a Baby Jubjub key and
#                 its EdDSA-Poseidon signature of a public message (circomlib)
#   semaphore20   Semaphore v4's circuit from npm at tree depth 20
#   gen_<k>       `proofpipe gen --curve bn128` at 2^k (2^k - 4 random
#                 constraints, one satisfying witness), for each k of --gen
# The wrappers and the input generator are in bench/circuits/; circomlib,
# circomlibjs and the Semaphore circuit are the exact versions of
# bench/circuits/package-lock.json, installed with `npm ci` into the cache
# (never into the repository). Circuits are compiled with the repository's
# pinned circom2 (its default -O1, --prime bn128). No keccak circuit: none
# that compiles with circom is published on npm (docs/performance.md).
#
# Keys: a local Powers of Tau ceremony with snarkjs (powersoftau new,
# contribute, prepare phase2; one, at the largest power the circuits need), then
# `groth16 setup` and one `zkey contribute`. The gen circuits use the
# TESTING-ONLY key `proofpipe gen` writes (random toxic waste), unless
# --gen-key ceremony: snarkjs's ceremony at 2^20 alone takes about an hour on
# two cores. Ptau files and keys are cached by what they are made of (the
# power and snarkjs's version; the r1cs's SHA-256 and the ptau), so a rerun
# proves at once.
#
# Inputs: bench/circuits/inputs.js writes valid inputs (a real EdDSA
# signature from circomlibjs, the Merkle root it implies); the witness is
# computed once with `snarkjs wtns calculate`, checked with `wtns check`,
# and every prover proves that same .wtns.
#
# Timing: each proof is a fresh process; --runs rounds, the provers' order
# rotating each round (proofpipe, rapidsnark, snarkjs; then rapidsnark,
# snarkjs, proofpipe; ...). Wall time and peak RSS from GNU time (%e, %M),
# medians over the rounds. Each timed run also records the CPU the rest of
# the machine used meanwhile (/proc/stat busy time minus the prover's own),
# reported as "other load" in cores: on a shared machine, numbers taken under
# a high other load are not trustworthy. Every proof of every prover is
# checked with `snarkjs groth16 verify`, and all provers' public.json must
# hold the same signals; one failure fails the script (exit 1).
#
# Output: a Markdown table on stdout and in bench-results/circuits-<time>.md,
# every run's figures in bench-results/circuits-<time>.json. If
# build/bin/pp_prove_stages_bench exists (configure with PP_BUILD_BENCH=ON),
# one more line per workload says where proofpipe's time goes (`proofpipe
# prove` itself prints no stage timings).
#
# Usage: scripts/bench_circuits.sh [--runs N] [--gen K[,K...]|none]
#                                  [--circuits NAME[,NAME...]|none]
#                                  [--gen-key dev|ceremony] [--help]
#   --runs N        rounds per workload (default 5, or $BENCH_RUNS)
#   --gen LIST      proofpipe gen sizes as exponents (default 20; the full set
#                   is 20,22; none skips them, for a quick run)
#   --circuits LIST the circom workloads (default sha256_64,merkle_eddsa,semaphore20)
#   --gen-key KIND  the gen workloads' key: dev (default) or ceremony
# Env:   PROOFPIPE (default build/bin/proofpipe), RAPIDSNARK (rapidsnark's
#        standalone `prover`; without it that column is empty),
#        BENCH_CACHE (default .cache/bench, gitignored), BENCH_RESULTS
#        (default bench-results, gitignored), PP_STAGES (default
#        build/bin/pp_prove_stages_bench; set empty to skip).
# Needs: node + `npm ci` (snarkjs 0.7.6, circom2 0.2.23), npm (the registry
#        once, to fill the cache), GNU time, python3, sha256sum.
# Budget on 2 cores: 13 minutes for the default set with --runs 3 on a loaded
# machine (snarkjs's 2^20 proofs are most of it), about 20 with 5 rounds;
# the first run adds the npm install, the compiles, `proofpipe gen` 2^20
# (~2 minutes) and the ceremony at 2^16 (prepare phase2 is the slow step:
# over an hour on a loaded 2-core machine). gen 2^22 adds about 40 minutes
# (keys ~3.4 GB, snarkjs ~10 GB of memory).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
RAPIDSNARK="${RAPIDSNARK:-}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
RESULTS="${BENCH_RESULTS:-$ROOT/bench-results}"
PP_STAGES="${PP_STAGES-$ROOT/build/bin/pp_prove_stages_bench}"
RUNS="${BENCH_RUNS:-5}"
GEN_SIZES="20"
CIRCUITS="sha256_64,merkle_eddsa,semaphore20"
GEN_KEY=dev
SNARKJS_CLI="$ROOT/node_modules/snarkjs/build/cli.cjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
SPEC="$ROOT/bench/circuits"
TIME=/usr/bin/time
CURVE=bn128   # the gen circuits' curve (prepare_gen_circuit)

die() { echo "bench_circuits: error: $*" >&2; exit 2; }
# prepare_gen_circuit <k>: `proofpipe gen`'s circuit, witness and dev key, cached.
# shellcheck source=scripts/lib/bench_circuit.sh
source "$ROOT/scripts/lib/bench_circuit.sh"
log() { echo "[bench_circuits] $*" >&2; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }
usage() { sed -n '2,/^set -euo pipefail/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="${2:-}"; shift 2 || die "--runs needs a value" ;;
        --gen) GEN_SIZES="${2:-}"; shift 2 || die "--gen needs a value" ;;
        --circuits) CIRCUITS="${2:-}"; shift 2 || die "--circuits needs a value" ;;
        --gen-key) GEN_KEY="${2:-}"; shift 2 || die "--gen-key needs a value" ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

[[ "$RUNS" =~ ^[0-9]+$ && "$RUNS" -ge 1 ]] || die "--runs '$RUNS' must be a positive integer"
[[ "$GEN_KEY" == dev || "$GEN_KEY" == ceremony ]] || die "--gen-key '$GEN_KEY' must be dev or ceremony"
GENS=() NAMES=()
[[ "$GEN_SIZES" == none ]] || IFS=, read -r -a GENS <<<"$GEN_SIZES"
[[ "$CIRCUITS" == none ]] || IFS=, read -r -a NAMES <<<"$CIRCUITS"
for k in "${GENS[@]}"; do
    [[ "$k" =~ ^[0-9]+$ && "$k" -ge 10 && "$k" -le 24 ]] || die "--gen size '$k' must be an integer in [10, 24]"
done
for c in "${NAMES[@]}"; do
    [[ -f "$SPEC/$c.circom" ]] || die "--circuits: no circuit '$c' (bench/circuits/$c.circom)"
done
[[ ${#GENS[@]} -gt 0 || ${#NAMES[@]} -gt 0 ]] || die "nothing to run: --gen none and --circuits none"
[[ -x "$PROOFPIPE" ]] || die "proofpipe binary not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -z "$RAPIDSNARK" || -x "$RAPIDSNARK" ]] || die "RAPIDSNARK='$RAPIDSNARK' is not an executable"
[[ -f "$SNARKJS_CLI" && -x "$CIRCOM" ]] || die "snarkjs/circom2 missing: run 'npm ci' in $ROOT"
for tool in node npm python3 sha256sum; do command -v "$tool" >/dev/null || die "$tool not found"; done
[[ -x "$TIME" ]] || die "GNU time ($TIME) not found"
[[ -z "$PP_STAGES" || -x "$PP_STAGES" ]] || PP_STAGES=""

PROVERS=(proofpipe)
[[ -n "$RAPIDSNARK" ]] && PROVERS+=(rapidsnark)
PROVERS+=(snarkjs)

SNARKJS_VERSION="$(node -p "require('$ROOT/node_modules/snarkjs/package.json').version")"
CIRCOM2_VERSION="$(node -p "require('$ROOT/node_modules/circom2/package.json').version")"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RUN="$CACHE/circuits_run"
rm -rf "$RUN"
mkdir -p "$RUN" "$RESULTS" "$CACHE/ptau" "$CACHE/keys" "$CACHE/circuits"
RAW="$RUN/runs.tsv"        # workload prover round wall_s rss_kib other_cores
: >"$RAW"
export PROOFPIPE_NO_PROGRESS=1

hash_of() { cat "$@" | sha256sum | cut -c1-16; }

# quiet <log> <cmd...>: runs a set-up step with its output in <log>; on
# failure prints the log's tail and stops.
quiet() {
    local logf="$1"; shift
    "$@" >"$logf" 2>&1 || { tail -20 "$logf" >&2; die "failed: $* (log: $logf)"; }
}

# --- the pinned npm packages ------------------------------------------------
NPM_DIR=""
npm_packages() {
    [[ -n "$NPM_DIR" ]] && return 0
    NPM_DIR="$CACHE/npm/$(hash_of "$SPEC/package-lock.json")"
    if [[ ! -f "$NPM_DIR/.done" ]]; then
        log "npm ci of bench/circuits/package-lock.json into $NPM_DIR"
        rm -rf "$NPM_DIR"; mkdir -p "$NPM_DIR"
        cp "$SPEC/package.json" "$SPEC/package-lock.json" "$NPM_DIR/"
        # No install scripts: blake-hash's native build is optional (it falls back to JS).
        quiet "$NPM_DIR.log" npm ci --prefix "$NPM_DIR" --ignore-scripts --no-audit --no-fund
        touch "$NPM_DIR/.done"
    fi
}

# --- the Powers of Tau ceremony --------------------------------------------
# ptau_for <power>: a prepared (phase 2) ptau of at least 2^power from a
# local ceremony with one contribution, cached per power and snarkjs version:
# the smallest cached one that is large enough, else a new one of 2^power.
ptau_for() {
    local p="$1" f q
    for ((q = p; q <= 28; q++)); do
        f="$CACHE/ptau/bn128_${q}_snarkjs${SNARKJS_VERSION}.ptau"
        [[ -f "$f" ]] && { echo "$f"; return 0; }
    done
    f="$CACHE/ptau/bn128_${p}_snarkjs${SNARKJS_VERSION}.ptau"
    if [[ ! -f "$f" ]]; then
        local t="$RUN/ptau_$p" t0=$SECONDS
        mkdir -p "$t"
        log "ceremony 2^$p: powersoftau new, contribute, prepare phase2"
        quiet "$t/new.log" snarkjs powersoftau new bn128 "$p" "$t/p0.ptau"
        quiet "$t/contribute.log" snarkjs powersoftau contribute "$t/p0.ptau" "$t/p1.ptau" \
            --name="proofpipe bench_circuits" -e="proofpipe bench_circuits $p $(date +%s%N) $RANDOM"
        quiet "$t/prepare.log" snarkjs powersoftau prepare phase2 "$t/p1.ptau" "$t/final.ptau"
        mv "$t/final.ptau" "$f"
        rm -rf "$t"
        log "ceremony 2^$p: $((SECONDS - t0)) s"
    fi
    echo "$f"
}

# power_for <r1cs>: the smallest p with 2^p >= constraints + public inputs + 1
# (snarkjs's domain), from `snarkjs r1cs info`.
constraints_of() {
    snarkjs r1cs info "$1" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p'
}
power_for() {
    local n pub p=1
    n="$(constraints_of "$1")"
    pub="$(snarkjs r1cs info "$1" | awk -F': ' '/# of Public Inputs|# of Outputs/ {s += $NF} END {print s+0}')"
    while (( (1 << p) < n + pub + 1 )); do p=$((p + 1)); done
    echo "$p"
}

# ceremony_key <r1cs> <out-var-prefix>: groth16 setup + one zkey contribution
# on the ptau for this circuit; cached by the r1cs's hash and the ptau.
# Sets ZKEY and VKEY.
ceremony_key() {
    local r1cs="$1" p ptau id t
    p="$(power_for "$r1cs")"
    ptau="$(ptau_for "$p")"
    id="$(hash_of "$r1cs")-$(basename "$ptau" .ptau)"
    ZKEY="$CACHE/keys/$id.zkey" VKEY="$CACHE/keys/$id.vk.json"
    if [[ ! -f "$ZKEY" || ! -f "$VKEY" ]]; then
        t="$RUN/key_$id"; mkdir -p "$t"
        local t0=$SECONDS
        log "key for $(basename "$r1cs"): groth16 setup on 2^$p, zkey contribute"
        quiet "$t/setup.log" snarkjs groth16 setup "$r1cs" "$ptau" "$t/k0.zkey"
        quiet "$t/contribute.log" snarkjs zkey contribute "$t/k0.zkey" "$t/k1.zkey" \
            --name="proofpipe bench_circuits" -e="proofpipe bench_circuits $(date +%s%N) $RANDOM"
        quiet "$t/vk.log" snarkjs zkey export verificationkey "$t/k1.zkey" "$t/vk.json"
        mv "$t/vk.json" "$VKEY"; mv "$t/k1.zkey" "$ZKEY"
        rm -rf "$t"
        log "key for $(basename "$r1cs"): $((SECONDS - t0)) s"
    fi
}

# --- the workloads ----------------------------------------------------------
# prepare_circom <name>: compiles bench/circuits/<name>.circom in the npm
# cache, makes its inputs and witness; cached by the sources, the lock and
# circom2's version. Sets R1CS, WTNS.
prepare_circom() {
    local name="$1" id dir
    npm_packages
    id="$(hash_of "$SPEC/$name.circom" "$SPEC/inputs.js" "$SPEC/package-lock.json" <(echo "circom2 $CIRCOM2_VERSION"))"
    dir="$CACHE/circuits/$name-$id"
    R1CS="$dir/$name.r1cs" WTNS="$dir/$name.wtns"
    if [[ ! -f "$WTNS" ]]; then
        local t0=$SECONDS
        log "$name: circom2 $CIRCOM2_VERSION --prime bn128, inputs, witness"
        rm -rf "$dir"; mkdir -p "$dir"
        cp "$SPEC/$name.circom" "$NPM_DIR/$name.circom"
        # circom2 (WASI) resolves paths against the current directory only
        # (pitfall P1): compile inside the npm folder, then move the outputs.
        rm -rf "$NPM_DIR/out-$name"; mkdir -p "$NPM_DIR/out-$name"
        (cd "$NPM_DIR" && "$CIRCOM" "$name.circom" --r1cs --wasm --prime bn128 -o "out-$name" \
            -l node_modules/circomlib/circuits -l node_modules/@zk-kit/binary-merkle-root.circom/src) \
            >"$dir/compile.log" 2>&1 || { tail -20 "$dir/compile.log" >&2; die "circom2 failed for $name"; }
        mv "$NPM_DIR/out-$name/$name.r1cs" "$NPM_DIR/out-$name/${name}_js" "$dir/"
        rm -rf "$NPM_DIR/out-$name"
        quiet "$dir/inputs.log" node "$SPEC/inputs.js" "$NPM_DIR" "$name" "$dir/input.json"
        quiet "$dir/wtns.log" snarkjs wtns calculate "$dir/${name}_js/$name.wasm" "$dir/input.json" "$dir/tmp.wtns"
        quiet "$dir/wtns_check.log" snarkjs wtns check "$R1CS" "$dir/tmp.wtns"
        mv "$dir/tmp.wtns" "$WTNS"
        log "$name: $((SECONDS - t0)) s"
    fi
}

# prepare_gen <k>: `proofpipe gen --curve bn128` at 2^k with its dev key
# (prepare_gen_circuit, scripts/lib/bench_circuit.sh; the cache
# bench_vs_snarkjs.sh --curve bn128 uses too). Sets R1CS, WTNS, ZKEY, VKEY.
prepare_gen() {
    local base
    base="$(prepare_gen_circuit "$1")"
    R1CS="$base.r1cs" WTNS="$base.wtns"
    ZKEY="$(dirname "$base")/circuit.zkey" VKEY="$(dirname "$base")/verification_key.json"
}

# --- timing -----------------------------------------------------------------
# timed <label> <cmd...>: one fresh process; prints "wall_s rss_kib other_cores".
timed() {
    local f
    f="$(timed_fields "$@")" || exit 2
    awk '{ printf "%.3f %d %.2f\n", $1, $4, $3 }' <<<"$f"
}

# prover_cmd <prover>: sets CMD to the prover's command line (before its
# four file arguments: zkey, wtns, proof, public).
prover_cmd() {
    case "$1" in
        proofpipe) CMD=("$PROOFPIPE" prove) ;;
        rapidsnark) CMD=("$RAPIDSNARK") ;;
        snarkjs) CMD=(node "$SNARKJS_CLI" groth16 prove) ;;
    esac
}

# bench_workload <name> <constraints>: RUNS rounds of every prover on ZKEY and
# WTNS, then snarkjs verifies every proof; appends to $RAW.
FAILED=0
bench_workload() {
    local name="$1" np=${#PROVERS[@]} i j who res wall rss other
    for ((i = 0; i < RUNS; i++)); do
        for ((j = 0; j < np; j++)); do
            who="${PROVERS[$(( (i + j) % np ))]}"
            prover_cmd "$who"
            res="$(timed "${name}_${who}_$i" "${CMD[@]}" "$ZKEY" "$WTNS" \
                "$RUN/${name}_${who}_$i.proof.json" "$RUN/${name}_${who}_$i.public.json")"
            read -r wall rss other <<<"$res"
            printf '%s\t%s\t%d\t%s\t%s\t%s\n' "$name" "$who" "$i" "$wall" "$rss" "$other" >>"$RAW"
            log "$name round $((i + 1))/$RUNS $who: ${wall} s, peak RSS $((rss / 1024)) MiB, other load $other cores"
        done
    done
    local first="$RUN/${name}_${PROVERS[0]}_0.public.json" bad=0 proof pub
    for proof in "$RUN/${name}"_*.proof.json; do
        pub="${proof%.proof.json}.public.json"
        if ! snarkjs groth16 verify "$VKEY" "$pub" "$proof" >"$proof.verify.log" 2>&1 \
            || ! grep -q "OK" "$proof.verify.log"; then
            log "$name: snarkjs groth16 verify REJECTED $(basename "$proof")"; bad=$((bad + 1))
        elif ! python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
            "$first" "$pub"; then
            log "$name: $(basename "$pub") differs from $(basename "$first")"; bad=$((bad + 1))
        fi
    done
    log "$name: $((RUNS * np - bad)) of $((RUNS * np)) proofs verified by snarkjs"
    printf '%s\tverified\t%d\t%d\n' "$name" "$((RUNS * np - bad))" "$((RUNS * np))" >>"$RUN/verified.tsv"
    FAILED=$((FAILED + bad))
    rm -f "$RUN/${name}"_*.proof.json "$RUN/${name}"_*.public.json
}

# stages <name>: where proofpipe's time goes (pp_prove_stages_bench), if built.
stages() {
    [[ -n "$PP_STAGES" ]] || return 0
    "$PP_STAGES" "$ZKEY" "$WTNS" 3 >"$RUN/$1.stages.txt" 2>&1 || { log "$1: pp_prove_stages_bench failed"; return 0; }
}

# --- main ---------------------------------------------------------------------
START=$SECONDS
log "provers: ${PROVERS[*]}; rounds: $RUNS; circom workloads: ${NAMES[*]:-none}; gen: ${GENS[*]:-none} ($GEN_KEY key)"
log "cpus: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg); cache: $CACHE"
: >"$RUN/workloads.tsv" ; : >"$RUN/verified.tsv"
# One ceremony for all circom workloads, at the largest power they need.
max_power=0
for name in "${NAMES[@]}"; do
    prepare_circom "$name"
    p="$(power_for "$R1CS")"; (( p > max_power )) && max_power=$p
done
(( max_power == 0 )) || ptau_for "$max_power" >/dev/null
for name in "${NAMES[@]}"; do
    prepare_circom "$name"
    ceremony_key "$R1CS"
    n="$(constraints_of "$R1CS")"
    printf '%s\t%s\t%s\tceremony\n' "$name" "$n" "$(power_for "$R1CS")" >>"$RUN/workloads.tsv"
    stages "$name"
    bench_workload "$name"
done
for k in "${GENS[@]}"; do
    prepare_gen "$k"
    [[ "$GEN_KEY" == ceremony ]] && ceremony_key "$R1CS"
    name="gen_2^$k"
    printf '%s\t%s\t%s\t%s\n' "$name" "$(( (1 << k) - 4 ))" "$k" "$GEN_KEY" >>"$RUN/workloads.tsv"
    stages "$name"
    bench_workload "$name"
done

# rapidsnark's commit, when the binary sits in its git work tree.
RAPIDSNARK_VERSION=""
if [[ -n "$RAPIDSNARK" ]]; then
    RAPIDSNARK_VERSION="$(git -C "$(dirname "$(realpath "$RAPIDSNARK")")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    RAPIDSNARK_VERSION="rapidsnark $RAPIDSNARK_VERSION"
fi
python3 - "$RUN" "$RESULTS/circuits-$STAMP" "$STAMP" "$SNARKJS_VERSION" "$CIRCOM2_VERSION" \
    "$("$PROOFPIPE" --version 2>/dev/null | head -1)" "$RAPIDSNARK_VERSION" "$RUNS" "$((SECONDS - START))" <<'EOF'
import json, os, statistics, sys, platform
run, out, stamp, sj_ver, circom_ver, pp_ver, rapidsnark, runs, elapsed = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(run, "runs.tsv")) if l.strip()]
workloads = [l.rstrip("\n").split("\t") for l in open(os.path.join(run, "workloads.tsv")) if l.strip()]
verified = {l.split("\t")[0]: [int(x) for x in l.rstrip("\n").split("\t")[2:]] for l in open(os.path.join(run, "verified.tsv")) if l.strip()}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
provers = ["proofpipe", "rapidsnark", "snarkjs"]
result = {"stamp": stamp, "host": {"cpu": cpu, "cpus": os.cpu_count()},
          "versions": {"proofpipe": pp_ver, "snarkjs": sj_ver, "circom2": circom_ver,
                       "rapidsnark": rapidsnark or None},
          "rounds": int(runs), "script_seconds": int(elapsed), "workloads": []}
def med(v): return statistics.median(v) if v else None
for name, constraints, power, key in workloads:
    w = {"workload": name, "constraints": int(constraints), "domain_log2": int(power), "key": key,
         "verified": verified.get(name), "provers": {}}
    for p in provers:
        rs = [r for r in rows if r[0] == name and r[1] == p]
        if not rs: continue
        w["provers"][p] = {"wall_s": [float(r[3]) for r in rs], "peak_rss_mib": [int(r[4]) / 1024 for r in rs],
                           "other_load_cores": [float(r[5]) for r in rs],
                           "median_wall_s": med([float(r[3]) for r in rs]),
                           "median_peak_rss_mib": med([int(r[4]) / 1024 for r in rs])}
    st = os.path.join(run, name + ".stages.txt")
    if os.path.exists(st):
        w["proofpipe_stages"] = {}
        for l in open(st):
            c = [x.strip() for x in l.strip().strip("|").split("|")]
            if len(c) == 3 and c[0] not in ("stage", "---", "total"):
                try: w["proofpipe_stages"][c[0]] = float(c[1])
                except ValueError: pass
    result["workloads"].append(w)
json.dump(result, open(out + ".json", "w"), indent=1)

def s(x): return f"{x:.2f}" if x is not None else "—"
def ratio(a, b): return f"{a / b:.1f}x" if a and b else "—"
lines = ["| workload | constraints | proofpipe s | rapidsnark s | snarkjs s | vs rapidsnark | vs snarkjs | peak RSS proofpipe / rapidsnark / snarkjs MiB | other load (cores) | verified |",
         "|---|---|---|---|---|---|---|---|---|---|"]
notes = []
for w in result["workloads"]:
    P = w["provers"]
    g = lambda p, k: P[p][k] if p in P else None
    pp, rs, sj = g("proofpipe", "median_wall_s"), g("rapidsnark", "median_wall_s"), g("snarkjs", "median_wall_s")
    rss = " / ".join(f"{g(p, 'median_peak_rss_mib'):.0f}" if p in P else "—" for p in provers)
    other = max(max(v["other_load_cores"]) for v in P.values())
    ver = "/".join(map(str, w["verified"])) if w["verified"] else "—"
    label = w["workload"] + (" (dev key)" if w["key"] == "dev" else "")
    lines.append(f"| {label} | {w['constraints']} (2^{w['domain_log2']}) | {s(pp)} | {s(rs)} | {s(sj)} | {ratio(rs, pp)} | {ratio(sj, pp)} | {rss} | ≤ {other:.2f} | {ver} |")
    if "proofpipe_stages" in w:
        st = w["proofpipe_stages"]; tot = sum(st.values())
        parts = ", ".join(f"{k} {v:.3f} s ({100 * v / tot:.0f} %)" for k, v in st.items())
        notes.append(f"- {w['workload']}: {parts}; the rest of `prove` (reading the files, checking the proof, writing) {max(pp - tot, 0):.3f} s")
hdr = (f"Median of {runs} rounds (fresh process per proof, provers rotating), wall time and peak RSS; "
       f"\"vs\" = that prover's time / proofpipe's. snarkjs {sj_ver}, circom2 {circom_ver}, {pp_ver}"
       + (f", {rapidsnark}" if rapidsnark else "") + "; "
       f"{cpu}, {os.cpu_count()} CPUs; script {elapsed} s.")
text = hdr + "\n\n" + "\n".join(lines) + "\n"
if notes: text += "\nWhere proofpipe's time goes (pp_prove_stages_bench, median of 3):\n\n" + "\n".join(notes) + "\n"
open(out + ".md", "w").write(text)
print(text)
EOF
log "results: $RESULTS/circuits-$STAMP.md and .json; $((SECONDS - START)) s"
[[ $FAILED -eq 0 ]] || { echo "bench_circuits: $FAILED proofs failed snarkjs verify or differ in public.json" >&2; exit 1; }
