# Shared by the benchmark scripts (sourced, not run): the square-chain circuit
# of 2^k constraints, compiled once with the pinned circom2 into $CACHE, and
# witnesses for it; and `proofpipe gen`'s circuits. Needs from the caller:
# CACHE, CIRCOM, snarkjs(), die(), log(), PROOFPIPE (for the gen circuits);
# CURVE (bls12381, the default, or bn128) picks circom's --prime and gen's --curve.

# The circuit for 2^k: compiled once, with its witness, into $CACHE/sq_<N>/.
prepare_circuit() {
    local k="$1" n=$(( (1 << $1) - 3 )) curve="${CURVE:-bls12381}"
    local dir="$CACHE/sq_$n"
    [[ "$curve" == bls12381 ]] || dir="$CACHE/${curve}/sq_$n"
    if [[ ! -f "$dir/sq_$n.r1cs" || ! -f "$dir/sq_${n}_js/sq_$n.wasm" || ! -f "$dir/sq_$n.wtns" ]]; then
        log "2^$k: compiling sq_$n (N = $n) with circom2 --prime $curve"
        rm -rf "$dir"; mkdir -p "$dir"
        cat >"$dir/squarechain.circom" <<'EOF'
pragma circom 2.1.0;
template SquareChain(N) {
    signal input x0;      // private
    signal input k;       // public
    signal output out;    // public
    signal x[N+1];
    x[0] <== x0;
    for (var i = 0; i < N; i++) { x[i+1] <== x[i] * x[i] + k; }
    out <== x[N];
}
EOF
        printf 'pragma circom 2.1.0;\ninclude "squarechain.circom";\ncomponent main {public [k]} = SquareChain(%d);\n' \
            "$n" >"$dir/sq_$n.circom"
        echo '{"x0": "3", "k": "7"}' >"$dir/input.json"
        # circom2 (WASI) resolves includes against the current directory only (pitfall P1).
        (cd "$dir" && "$CIRCOM" "sq_$n.circom" --r1cs --wasm --prime "$curve" -o . >compile.log 2>&1) \
            || { tail -20 "$dir/compile.log" >&2; die "circom2 failed for sq_$n"; }
        snarkjs wtns calculate "$dir/sq_${n}_js/sq_$n.wasm" "$dir/input.json" "$dir/sq_$n.wtns.tmp" >/dev/null
        snarkjs wtns check "$dir/sq_$n.r1cs" "$dir/sq_$n.wtns.tmp" >"$dir/wtns_check.log" 2>&1 \
            || { tail -20 "$dir/wtns_check.log" >&2; die "wtns check failed for sq_$n"; }
        mv "$dir/sq_$n.wtns.tmp" "$dir/sq_$n.wtns"
    fi
    echo "$dir/sq_$n"
}

# witness_for <base> <x0> <out.wtns>: a witness for input x0 (k = 7), cached.
witness_for() {
    local base="$1" x0="$2" out="$3" n
    [[ -f "$out" ]] && return 0
    n="$(basename "$base")"
    echo "{\"x0\": \"$x0\", \"k\": \"7\"}" >"$out.input.json"
    snarkjs wtns calculate "${base}_js/$n.wasm" "$out.input.json" "$out.tmp" >/dev/null
    mv "$out.tmp" "$out"
}

# prepare_gen_circuit <k>: `proofpipe gen`'s circuit and witness for 2^k, cached
# as $CACHE/<curve>/gen_<N>/gen_<N>.{r1cs,wtns} (the paths prepare_circuit gives),
# with gen's TESTING-ONLY key beside them (circuit.zkey, verification_key.json).
prepare_gen_circuit() {
    local n=$(( (1 << $1) - 4 )) curve="${CURVE:-bls12381}"
    local dir="$CACHE/$curve/gen_$n"
    if [[ ! -f "$dir/gen_$n.r1cs" || ! -f "$dir/gen_$n.wtns" ]]; then
        log "2^$1: proofpipe gen --curve $curve --constraints $n"
        rm -rf "$dir" "$dir.tmp"
        "$PROOFPIPE" gen --curve "$curve" --constraints "$n" --partitions 1 --out "$dir.tmp" >&2 \
            || die "proofpipe gen failed for 2^$1"
        mv "$dir.tmp/circuit.r1cs" "$dir.tmp/gen_$n.r1cs"
        mv "$dir.tmp/w00.wtns" "$dir.tmp/gen_$n.wtns"
        mv "$dir.tmp" "$dir"
    fi
    echo "$dir/gen_$n"
}

# --- timing (both benchmark scripts) ------------------------------------------
# Busy jiffies of the whole machine (user nice system irq softirq steal).
busy_jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }

# timed_fields <label> <cmd...>: one fresh process, its output in
# $RUN/<label>.log, timed by GNU time ($TIME); prints "wall_s own_cpu_s
# other_cores peak_rss_kib", other_cores being what the rest of the machine
# used meanwhile. Needs RUN and TIME from the caller.
timed_fields() {
    local label="$1"; shift
    local b0 b1 tf="$RUN/$label.time"
    b0="$(busy_jiffies)"
    if ! "$TIME" -f "%e %U %S %M" -o "$tf" "$@" >"$RUN/$label.log" 2>&1; then
        tail -20 "$RUN/$label.log" >&2
        die "$label failed: $*"
    fi
    b1="$(busy_jiffies)"
    awk -v b0="$b0" -v b1="$b1" -v hz="$(getconf CLK_TCK)" 'END {
        wall = $1; own = $2 + $3; other = (b1 - b0) / hz - own; if (other < 0) other = 0;
        printf "%.3f %.3f %.2f %d\n", wall, own, (wall > 0 ? other / wall : 0), $4 }' "$tf"
}
