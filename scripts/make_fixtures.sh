#!/usr/bin/env bash
# make_fixtures.sh -- generate the circom/snarkjs test fixtures for proofpipe (Groth16 over BLS12-381
# and BN254, snarkjs's "bn128").
#
# Usage:  scripts/make_fixtures.sh [OUTPUT_DIR]        (default: tests/data)
#         (run `npm ci` in the repository root first; the pinned tools come from node_modules)
#
# What it does, with the versions pinned in package.json (snarkjs 0.7.6, circom2 0.2.23 = circom 2.2.3,
# circomlib 2.0.5):
#   1. Powers of tau for curve bls12-381, power $PTAU_POWER (default 12): `powersoftau new`, one
#      `contribute`, `prepare phase2`.  The result is cached in $FIXTURE_CACHE (default .cache/fixtures,
#      gitignored) and reused on later runs if it is a prepared bls12-381 ptau of sufficient power
#      (prepare phase2 alone takes ~2-3 minutes on 2 cores).
#   2. For each circuit tests/data/circuits/<name>.circom:
#        - compiles it with `circom2 --prime bls12381 --r1cs --wasm --c --sym` (in a build dir under the cache,
#          with a copy of circomlib/circuits next to the source, because circom2 resolves includes
#          relative to the cwd only);
#        - `groth16 setup` + one `zkey contribute` (fixed entropy string; note snarkjs still mixes in OS
#          randomness, so the zkey and proofs differ between runs -- test-only, NOT a secure setup);
#        - exports verification_key.json; checks the zkey with `zkey verify`;
#        - writes deterministic input JSON files and computes one witness per input (`wtns calculate`,
#          checked with `wtns check`);
#        - makes a snarkjs reference proof for witness w00 (snarkjs_proof.json / snarkjs_public.json)
#          and checks it with `groth16 verify`.
#   Output layout, per circuit:
#        OUTPUT_DIR/<name>/{circuit.r1cs, circuit.zkey, verification_key.json, inputs/wNN.json, wNN.wtns,
#                           snarkjs_proof.json, snarkjs_public.json,
#                           circuit_js/{<name>.wasm, generate_witness.js, witness_calculator.js}}
#        and for multi_io the native generator's sources (circom --c), OUTPUT_DIR/multi_io/circuit_cpp/
#        (no binaries: the tests build it when nasm is installed; docs/witness-gen.md).
#   `run --inputs --witness-gen wasm:OUTPUT_DIR/<name>/circuit_js` starts from the inputs. The .sym and
#   logs stay in the cache only.
#
# Environment overrides: FIXTURE_CACHE (cache dir), PTAU_POWER (ptau power, >= what the circuits need),
# FIXTURE_CURVES (default "bls12381 bn128"; bn128 fixtures are written as <name>_bn128/, from a bn128
# ptau and circom --prime bn128).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_ARG="${1:-$ROOT/tests/data}"
mkdir -p "$OUT_ARG"
OUT="$(cd "$OUT_ARG" && pwd)"
CIRCUITS_DIR="$ROOT/tests/data/circuits"
CACHE="${FIXTURE_CACHE:-$ROOT/.cache/fixtures}"
PTAU_POWER="${PTAU_POWER:-12}"

SNARKJS_CLI="$ROOT/node_modules/snarkjs/build/cli.cjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
CIRCOMLIB="$ROOT/node_modules/circomlib/circuits"

log() { echo "[make_fixtures $(date +%H:%M:%S)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }

for f in "$SNARKJS_CLI" "$CIRCOM" "$CIRCOMLIB/comparators.circom"; do
    [[ -e "$f" ]] || die "missing $f -- run 'npm ci' in $ROOT first"
done
command -v node >/dev/null || die "node not found"

T_START=$SECONDS
mkdir -p "$CACHE"

# --------------------------------------------------------------------------------------------------
# 1. powers of tau (cached)
# --------------------------------------------------------------------------------------------------

# Prints "ok" if $1 is a ptau for curve $3 (bls12381 or bn128) of power >= $2 that has the prepared
# (phase 2) sections.
ptau_suitable() {
    node - "$1" "$2" "$3" <<'EOF'
const fs = require("fs");
const [file, minPower, curve] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const Q = curve === "bn128"
    ? 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n
    : 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
try {
    const buf = fs.readFileSync(file);
    if (buf.toString("latin1", 0, 4) !== "ptau") throw new Error("bad magic");
    const nSections = buf.readUInt32LE(8);
    let off = 12, power = -1, q = 0n;
    const seen = new Set();
    for (let i = 0; i < nSections; i++) {
        const type = buf.readUInt32LE(off);
        const size = Number(buf.readBigUInt64LE(off + 4));
        const data = off + 12;
        if (data + size > buf.length) throw new Error("truncated");
        seen.add(type);
        if (type === 1) {
            const n8 = buf.readUInt32LE(data);
            for (let j = n8 - 1; j >= 0; j--) q = (q << 8n) | BigInt(buf[data + 4 + j]);
            power = buf.readUInt32LE(data + 4 + n8);
        }
        off = data + size;
    }
    const prepared = [12, 13, 14, 15].every((s) => seen.has(s));
    if (q === Q && power >= minPower && prepared) console.log("ok");
    else console.log(`unsuitable (power=${power}, ${curve}=${q === Q}, prepared=${prepared})`);
} catch (e) {
    console.log("unsuitable (" + e.message + ")");
}
EOF
}

# ensure_ptau <curve>: sets PTAU to a prepared ptau for the curve (bls12381 or bn128), cached.
ensure_ptau() {
    local curve="$1" snark_curve="$1"
    [[ "$curve" == bls12381 ]] && snark_curve=bls12-381
    PTAU="$CACHE/pot${PTAU_POWER}_${curve}_final.ptau"
    if [[ -f "$PTAU" && "$(ptau_suitable "$PTAU" "$PTAU_POWER" "$curve")" == "ok" ]]; then
        log "reusing cached ptau $PTAU"
    else
        log "building ptau ($curve, power $PTAU_POWER); prepare phase2 takes a few minutes"
        TMP_PTAU="$CACHE/ptau.tmp.$$"
        rm -rf "$TMP_PTAU"
        mkdir -p "$TMP_PTAU"
        snarkjs powersoftau new "$snark_curve" "$PTAU_POWER" "$TMP_PTAU/pot_0000.ptau"
        snarkjs powersoftau contribute "$TMP_PTAU/pot_0000.ptau" "$TMP_PTAU/pot_0001.ptau" \
            --name="proofpipe fixtures (test only)" -e="proofpipe test-only ptau entropy"
        snarkjs powersoftau prepare phase2 "$TMP_PTAU/pot_0001.ptau" "$TMP_PTAU/pot_final.ptau"
        [[ "$(ptau_suitable "$TMP_PTAU/pot_final.ptau" "$PTAU_POWER" "$curve")" == "ok" ]] || die "generated ptau is not suitable"
        mv "$TMP_PTAU/pot_final.ptau" "$PTAU"   # atomic: an interrupted run never leaves a half-written ptau
        rm -rf "$TMP_PTAU"
        log "ptau done ($((SECONDS - T_START)) s so far)"
    fi
}

# --------------------------------------------------------------------------------------------------
# 2. deterministic input files
# --------------------------------------------------------------------------------------------------
# gen_inputs <circuit> <dir>: writes <dir>/wNN.json. Values come from a fixed LCG, so reruns give the same files.
gen_inputs() {
    node - "$1" "$2" "$3" <<'EOF'
const fs = require("fs");
const path = require("path");
const [name, dir, curve] = [process.argv[2], process.argv[3], process.argv[4]];
// The scalar field modulus of the curve.
const R = curve === "bn128"
    ? 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n
    : 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
let st = 0x9e3779b97f4a7c15n ^ BigInt(name.length * 7919);
const M64 = (1n << 64n) - 1n;
function next64() { st = (st * 6364136223846793005n + 1442695040888963407n) & M64; return st; }
function u32() { return next64() >> 32n; }
function fe() { let v = 0n; for (let i = 0; i < 4; i++) v = (v << 64n) | next64(); return v % R; }
const s = (v) => v.toString();
const write = (i, obj) => fs.writeFileSync(path.join(dir, `w${String(i).padStart(2, "0")}.json`),
                                          JSON.stringify(obj, null, 1) + "\n");
if (name === "multi_io") {
    // a, b, c, s[3], small must be < 2^32 (LessThan(32)); s[0..2] are arbitrary field elements.
    for (let i = 0; i < 12; i++) {
        let a = u32(), b = u32(), c = u32();
        const sv = [fe(), fe(), fe(), u32()];
        let small = u32();
        if (i % 4 === 3) small = sv[3];        // IsZero branch: small == s[3] -> iz.out = 1
        if (i === 5) a = 0n;                   // a zero public input
        if (i === 7) { b = 1n; c = 0n; }       // tiny public inputs
        if (i === 9) small = 0n;               // small < c almost surely
        if (i === 11) sv[0] = 0n;              // x[0] = 0
        write(i, { a: s(a), b: s(b), c: s(c), s: sv.map(s), small: s(small) });
    }
} else if (name === "sparse_dense") {
    // k, x[48] arbitrary field elements (non-zero), v < 2^64.
    for (let i = 0; i < 2; i++) {
        const k = fe() || 1n;
        const x = Array.from({ length: 48 }, () => fe() || 1n);
        const v = i === 0 ? next64() : 0x8000000000000001n;
        write(i, { k: s(k), x: x.map(s), v: s(v) });
    }
} else {
    throw new Error("no input generator for circuit " + name);
}
EOF
}

# --------------------------------------------------------------------------------------------------
# 3. per-circuit pipeline
# --------------------------------------------------------------------------------------------------
make_circuit() {
    local name="$1" curve="$2"
    local t0=$SECONDS
    local src="$CIRCUITS_DIR/$name.circom"
    # BLS12-381 fixtures keep the plain names; bn128 ones get a suffix.
    local fixture="$name"
    [[ "$curve" == bls12381 ]] || fixture="${name}_${curve}"
    local build="$CACHE/build/$fixture"
    local out="$OUT/$fixture"
    ensure_ptau "$curve"
    [[ -f "$src" ]] || die "missing circuit source $src"

    log "[$name] compile"
    rm -rf "$build"
    mkdir -p "$build/src"
    cp "$src" "$build/src/$name.circom"
    cp -r "$CIRCOMLIB" "$build/src/circomlib"
    (cd "$build/src" && "$CIRCOM" "$name.circom" --r1cs --wasm --c --sym --prime "$curve" -o "$build" >"$build/compile.log") \
        || { cat "$build/compile.log" >&2; die "[$name] circom2 failed"; }
    local r1cs="$build/$name.r1cs" wasm="$build/${name}_js/$name.wasm"
    [[ -f "$r1cs" && -f "$wasm" ]] || die "[$name] compile outputs missing"
    snarkjs r1cs info "$r1cs" | tee "$build/r1cs_info.txt" >&2

    rm -rf "$out"
    mkdir -p "$out/inputs" "$out/circuit_js"
    cp "$r1cs" "$out/circuit.r1cs"
    # The witness generators (docs/witness-gen.md): wasm for every fixture (tens of KiB), the native
    # one's sources for multi_io only (~240 KiB, mostly circom's generic field code).
    cp "$build/${name}_js/"{"$name.wasm",generate_witness.js,witness_calculator.js} "$out/circuit_js/"
    if [[ "$fixture" == multi_io ]]; then
        mkdir -p "$out/circuit_cpp"
        cp "$build/${name}_cpp/"{Makefile,*.cpp,*.hpp,fr.asm,"$name.dat"} "$out/circuit_cpp/"
    fi

    log "[$name] groth16 setup + zkey contribute"
    snarkjs groth16 setup "$r1cs" "$PTAU" "$build/circuit_0000.zkey" >"$build/setup.log"
    snarkjs zkey contribute "$build/circuit_0000.zkey" "$out/circuit.zkey" \
        --name="proofpipe fixture $name (test only)" -e="proofpipe test-only zkey entropy $name" >"$build/contribute.log"
    snarkjs zkey export verificationkey "$out/circuit.zkey" "$out/verification_key.json" >/dev/null
    snarkjs zkey verify "$r1cs" "$PTAU" "$out/circuit.zkey" >"$build/zkey_verify.log" \
        || { tail -20 "$build/zkey_verify.log" >&2; die "[$name] zkey verify failed"; }

    log "[$name] witnesses"
    gen_inputs "$name" "$out/inputs" "$curve"
    local inp base
    for inp in "$out/inputs"/w*.json; do
        base="$(basename "$inp" .json)"
        snarkjs wtns calculate "$wasm" "$inp" "$out/$base.wtns"
        snarkjs wtns check "$r1cs" "$out/$base.wtns" >"$build/wtns_check_$base.log" \
            || { tail -20 "$build/wtns_check_$base.log" >&2; die "[$name] wtns check failed for $base"; }
    done

    log "[$name] snarkjs reference proof (w00)"
    snarkjs groth16 prove "$out/circuit.zkey" "$out/w00.wtns" "$out/snarkjs_proof.json" "$out/snarkjs_public.json"
    snarkjs groth16 verify "$out/verification_key.json" "$out/snarkjs_public.json" "$out/snarkjs_proof.json" \
        || die "[$name] snarkjs proof does not verify"
    log "[$name] done in $((SECONDS - t0)) s"
}

for curve in ${FIXTURE_CURVES:-bls12381 bn128}; do
    [[ "$curve" == bls12381 || "$curve" == bn128 ]] || die "FIXTURE_CURVES: '$curve' is not bls12381 or bn128"
    make_circuit multi_io "$curve"
    make_circuit sparse_dense "$curve"
done

log "all fixtures written to $OUT in $((SECONDS - T_START)) s"
du -sh "$OUT" >&2
