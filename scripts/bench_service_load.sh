#!/usr/bin/env bash
# The API server under load and under attack: one `proofpipe serve` per
# binary given (the current build, and optionally an older one side by side,
# same machine, same workload), each measured by scripts/lib/http_load.py on
# 127.0.0.1:
#
#   * slow:    500 connections trickling a request header one byte per
#              100 ms for 5 s while /healthz is probed every 20 ms (p50,
#              p99, max, failures; a probe gives up after 2 s);
#   * attacks: unauthenticated, with serve holding a token, each at most
#              20 s, the serve process's RSS sampled every 10 ms: a request
#              line without newline over 4 connections (64 MiB offered each),
#              200,000 headers of 1 KB on one connection, a 300 MB body;
#   * submit:  16 clients, each on a kept-alive connection, submitting jobs
#              (JSON form, a witness path under --allow-dir) for 5 s:
#              submits/s, p50 and p99 latency, on a service of its own (the
#              jobs it makes are then proved in the background);
#   * soak:    SOAK_PARTITIONS (20,000; 0 skips it) partitions of the 2^10
#              key, in jobs of 50, about two jobs waiting at a time, while a
#              dashboard reads GET /v1/jobs?limit=10000 every 5 s: the
#              service's RSS at every 1,000 ended partitions, and its rise
#              per 10,000 after SOAK_WARMUP (10,000: the journal's page cache
#              fills to its 2 MiB bound over the first ~8,000).
#
# Usage: scripts/bench_service_load.sh [OLD_PROOFPIPE]
# Env:   PROOFPIPE (build/bin/proofpipe), BENCH_CACHE, BENCH_PORT (7393),
#        SOAK_PARTITIONS, SOAK_WARMUP.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROOFPIPE="${PROOFPIPE:-$ROOT/build/bin/proofpipe}"
OLD="${1:-}"
CACHE="${BENCH_CACHE:-$ROOT/.cache/bench}"
PORT="${BENCH_PORT:-7393}"
LOAD="python3 $ROOT/scripts/lib/http_load.py"

die() { echo "bench_service_load: error: $*" >&2; exit 2; }
log() { echo "[bench] $*" >&2; }

[[ -x "$PROOFPIPE" ]] || die "proofpipe not found at $PROOFPIPE (build it, or set PROOFPIPE=...)"
[[ -z "$OLD" || -x "$OLD" ]] || die "no executable at $OLD"

W="$CACHE/gen_10_1"
if [[ ! -f "$W/circuit.zkey" ]]; then
    log "generating 2^10 - 8 constraints x 1 partition into $W"
    mkdir -p "$W"
    "$PROOFPIPE" gen --constraints 1016 --partitions 1 --out "$W" >/dev/null 2>&1 || die "gen failed"
fi
WITNESS=$(ls "$W"/*.wtns | head -n 1)
RUN="$CACHE/service_load"
rm -rf "$RUN" && mkdir -p "$RUN"
TOKEN=load-bench-token-0123456789
printf '%s\n' "$TOKEN" >"$RUN/token" && chmod 600 "$RUN/token"

start_serve() {  # start_serve BINARY DIR: sets serve_pid once /readyz answers 200
    PROOFPIPE_NO_PROGRESS=1 "$1" serve --key "g=$W/circuit.zkey" --state-dir "$2/state" \
        --listen "127.0.0.1:$PORT" --token-file "$RUN/token" --allow-dir "$W" \
        --synth-workers 1 --gpu-workers 1 --backend cpu >"$2/serve.log" 2>&1 &
    serve_pid=$!
    trap "kill -TERM $serve_pid 2>/dev/null || true" EXIT
    until curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/readyz" >/dev/null; do
        kill -0 $serve_pid 2>/dev/null || { tail -5 "$2/serve.log" >&2; die "serve exited"; }
        sleep 0.05
    done
}
stop_serve() {
    kill -TERM $serve_pid
    wait $serve_pid || true
    trap - EXIT
}

measure() {  # measure LABEL BINARY
    local label=$1 bin=$2 out="$RUN/$1"
    # Submits on a fresh service (its jobs are then proved in the
    # background, so the other phases get a service of their own).
    mkdir -p "$out/submit" "$out/hostile"
    start_serve "$bin" "$out/submit"
    log "$label: 16 clients submitting"
    $LOAD submit --port "$PORT" --clients 16 --seconds 5 --token "$TOKEN" --witness "$WITNESS" --tag "$label" \
        | tee "$out/submit.json"
    stop_serve
    start_serve "$bin" "$out/hostile"
    log "$label: 500 slow clients"
    $LOAD slow --port "$PORT" --clients 500 --seconds 5 | tee "$out/slow.json"
    sleep 1
    for kind in line headers body; do
        log "$label: attack $kind"
        $LOAD attack --port "$PORT" --pid $serve_pid --kind $kind --seconds 20 | tee "$out/attack_$kind.json"
        sleep 1
    done
    stop_serve
}

# 50 copies of the witness under their own names: one job is 50 partitions.
SOAK_DIR="$W/soak"
if [[ ! -f "$SOAK_DIR/w49.wtns" ]]; then
    mkdir -p "$SOAK_DIR"
    for i in $(seq -w 0 49); do cp "$WITNESS" "$SOAK_DIR/w$i.wtns"; done
fi
soak() {  # soak LABEL BINARY
    local out="$RUN/$1"
    mkdir -p "$out/soak"
    start_serve "$2" "$out/soak"  # its --allow-dir holds SOAK_DIR
    log "$1: soak of ${SOAK_PARTITIONS:-20000} partitions"
    $LOAD soak --port "$PORT" --token "$TOKEN" --pid $serve_pid --tag "$1" \
        --witness "$(ls "$SOAK_DIR"/*.wtns | paste -sd,)" --partitions "${SOAK_PARTITIONS:-20000}" \
        --every 1000 --warmup "${SOAK_WARMUP:-10000}" >"$out/soak.json"
    stop_serve
}

measure new "$PROOFPIPE"
[[ -n "$OLD" ]] && measure old "$OLD"
if [[ "${SOAK_PARTITIONS:-20000}" != 0 ]]; then
    soak new "$PROOFPIPE"
    [[ -n "$OLD" ]] && soak old "$OLD"
fi

python3 - "$RUN" $([[ -n "$OLD" ]] && echo old) new <<'PY'
import json, os, sys
run, labels = sys.argv[1], sys.argv[2:]
def get(label, name):
    with open(os.path.join(run, label, name + ".json")) as f:
        return json.load(f)
print(f"\n{'':34}" + "".join(f"{l:>24}" for l in labels))
rows = [("submits/s (16 clients)", lambda l: get(l, "submit")["submits_per_s"]),
        ("submit p50 / p99 ms", lambda l: "{p50_ms} / {p99_ms}".format(**get(l, "submit"))),
        ("submit errors", lambda l: get(l, "submit")["errors"]),
        ("/healthz p50 / p99 ms, 500 slow", lambda l: "{p50_ms} / {p99_ms}".format(**get(l, "slow"))),
        ("/healthz failed probes", lambda l: "{failed} of {probes}".format(**get(l, "slow")))]
for kind in ("line", "headers", "body"):
    rows.append((f"RSS rise MiB, attack {kind}", lambda l, k=kind: get(l, "attack_" + k)["rss_rise_mib"]))
    rows.append((f"  bytes taken, seconds", lambda l, k=kind: "{bytes_taken} in {seconds} s".format(**get(l, "attack_" + k))))
def soak(label, field):
    try:
        return get(label, "soak")[field]
    except OSError:
        return "-"
rows += [("soak: partitions, seconds", lambda l: f"{soak(l, 'partitions')} in {soak(l, 'seconds')} s"),
         ("soak: RSS after warm-up / end MiB",
          lambda l: "-" if soak(l, "partitions") == "-" else
          f"{soak(l, 'rss_warm_kib') / 1024:.1f} / {soak(l, 'rss_last_kib') / 1024:.1f}"),
         ("soak: RSS rise KiB per 10,000", lambda l: soak(l, "rise_kib_per_10k"))]
for name, f in rows:
    print(f"{name:34}" + "".join(f"{str(f(l)):>24}" for l in labels))
PY
