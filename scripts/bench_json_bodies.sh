#!/usr/bin/env bash
# `proofpipe serve`'s memory for hostile JSON bodies of POST /v1/jobs: for
# each of five shapes whose parsed trees once cost 8-43x their text, and
# each size, a fresh serve (one key, multi_io, with a witness generator so
# inline inputs are taken), one request, and the serve process's peak RSS
# rise over it (VmHWM reset before the request; VmRSS sampled every 10 ms
# as well), by scripts/lib/http_load.py's `body` mode. Shapes:
#
#   long_array       {"key":K,"inputs":{"a":{"x":[1,1,...]}}}   (accepted)
#   tiny_inputs      {"key":K,"inputs":[{},{},...]}              (413: count)
#   witness_list     {"key":K,"witnesses":["/w/aaaa.wtns",...]}  (413: count)
#   inputs_object    {"key":K,"inputs":{"i000000000":{},...}}    (413: count)
#   unknown_members  {"u000000000":[1],...,"key":K}              (400)
#
# With OLD_PROOFPIPE, the same on that binary, side by side, as a column
# of its own (its shapes of 43x at 200 MiB want about 9 GiB: OLD_SIZES
# picks its sizes, 10 MiB by default).
#
# Usage: scripts/bench_json_bodies.sh [OLD_PROOFPIPE]
# Env:   PROOFPIPE (build/bin/proofpipe), SIZES ("10 200", MiB), OLD_SIZES
#        ("10"), BENCH_PORT (7394), BENCH_CACHE (.cache/bench).
# Prints a markdown table (docs/reliability.md) and the raw JSON lines to
# $BENCH_CACHE/json_bodies/results.jsonl.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
OLD="${1:-}"
SIZES="${SIZES:-10 200}"
OLD_SIZES="${OLD_SIZES:-10}"
PORT="${BENCH_PORT:-7394}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
LOAD="python3 $ROOT/scripts/lib/http_load.py"
DATA="$ROOT/tests/data/multi_io"
SHAPES="long_array tiny_inputs witness_list inputs_object unknown_members"

die() { echo "bench_json_bodies: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -z "$OLD" || -x "$OLD" ]] || die "no executable at $OLD"
[[ -f "$DATA/circuit.zkey" ]] || die "no fixture at $DATA (scripts/make_fixtures.sh)"
RUN="$CACHE/json_bodies"
rm -rf "$RUN" && mkdir -p "$RUN"
TOKEN=json-bench-token-0123456789
printf '%s\n' "$TOKEN" >"$RUN/token" && chmod 600 "$RUN/token"

serve_pid=
start_serve() {  # start_serve BINARY DIR: sets serve_pid once /readyz answers 200
    PROOFPIPE_NO_PROGRESS=1 "$1" serve --key "g=$DATA/circuit.zkey" --witness-gen "g=wasm:$DATA/circuit_js" \
        --state-dir "$2/state" --listen "127.0.0.1:$PORT" --token-file "$RUN/token" \
        --synth-workers 1 --gpu-workers 1 --backend cpu >"$2/serve.log" 2>&1 &
    serve_pid=$!
    trap "kill -TERM $serve_pid 2>/dev/null || true" EXIT
    until curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/readyz" >/dev/null; do
        kill -0 $serve_pid 2>/dev/null || { tail -5 "$2/serve.log" >&2; die "serve exited"; }
        sleep 0.05
    done
}
stop_serve() {
    kill -TERM $serve_pid 2>/dev/null || true
    wait $serve_pid || true
    trap - EXIT
}

measure() {  # measure LABEL BINARY SIZES
    local label=$1 bin=$2 sizes=$3
    for mib in $sizes; do
        for shape in $SHAPES; do
            local dir="$RUN/$label-$shape-$mib"
            mkdir -p "$dir"
            start_serve "$bin" "$dir"
            log "$label: $shape, $mib MiB"
            $LOAD body --port "$PORT" --pid "$serve_pid" --token "$TOKEN" --key g --shape "$shape" --mib "$mib" |
                python3 -c 'import json,sys; d=json.load(sys.stdin); d["build"]=sys.argv[1]; d["mib"]=float(sys.argv[2]); print(json.dumps(d))' \
                    "$label" "$mib" | tee -a "$RUN/results.jsonl" >&2
            stop_serve
        done
    done
}

measure new "$PROOFPIPE" "$SIZES"
[[ -n "$OLD" ]] && measure old "$OLD" "$OLD_SIZES"

python3 - "$RUN/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cell = {(r["build"], r["shape"], r["mib"]): r for r in rows}
builds = [b for b in ("old", "new") if any(r["build"] == b for r in rows)]
print("| shape | body MiB | " + " | ".join(f"{b}: rise MiB (x body), answer" for b in builds) + " |")
print("|---|---|" + "---|" * len(builds))
for shape in dict.fromkeys(r["shape"] for r in rows):
    for mib in sorted({r["mib"] for r in rows if r["shape"] == shape}):
        cols = []
        for b in builds:
            r = cell.get((b, shape, mib))
            cols.append("-" if r is None else f'{r["rise_mib"]} ({r["rise_x"]}x), {r["status"]}')
        print(f"| {shape} | {mib:g} | " + " | ".join(cols) + " |")
PY
