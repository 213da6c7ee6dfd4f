#!/usr/bin/env bash
# shellcheck disable=SC2317  # cleanup runs from the trap
# The tests with another proofpipe at work on the same host:
#   scripts/test_beside.sh [ctest args...]      e.g. -L 'integration|fault' -j 2
# Starts, in the background, a `proofpipe serve` of the multi_io test key
# (its own state dir under a temp dir, a port on 127.0.0.1 the kernel picks
# free) fed by a loop of `proofpipe submit --wait` jobs, and a loop of
# `proofpipe run` over 3 of the same witnesses; then runs ctest in the build
# dir with the arguments given; then stops both and reports. Every test must
# pass as it does alone: a test judges only the rings, cgroups, run dirs and
# processes that it made. The neighbours must also come through untouched:
# their jobs and runs succeed, and the service lives until it is stopped.
# Exit status: ctest's when it failed, else 1 if a neighbour failed, else 0.
# Environment: PP_BUILD_DIR (default build), PP_BESIDE_LIMIT (seconds,
# default 3600: the neighbours end by then even if this script is killed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

build=${PP_BUILD_DIR:-build}
limit=${PP_BESIDE_LIMIT:-3600}
pp=$PWD/$build/bin/proofpipe
data=$PWD/tests/data/multi_io
if [[ ! -x $pp ]]; then
  echo "test_beside.sh: error: $pp is missing: build first (cmake --build $build)" >&2
  exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proofpipe-beside-XXXXXX")
deadline=$((SECONDS + limit))
serve_pid='' loop_pids=()

# True while pid $1 runs (not gone, not a zombie).
running() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]
}
# Waits up to $2 seconds for pid $1 to end; false if it still runs.
ended_within() {
  local until=$((SECONDS + $2))
  while running "$1"; do
    ((SECONDS < until)) || return 1
    sleep 0.2
  done
}

# Stops everything it started: the loops finish their current command (a
# stop file; each command is bounded by `timeout`), the service drains on
# SIGTERM; whatever is still there after 60 s is killed with its process
# group. Runs on every exit.
cleanup() {
  trap - EXIT INT TERM
  touch "$tmp/stop"
  [[ -n $serve_pid ]] && kill -TERM "$serve_pid" 2>/dev/null
  local pid
  for pid in "${loop_pids[@]}" $serve_pid; do
    ended_within "$pid" 60 || kill -KILL -- "-$pid" 2>/dev/null
  done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The neighbours, each in a process group of its own (set -m), so cleanup
# can kill one with whatever it started. `timeout` bounds every command;
# --foreground makes it pass a signal to the service alone (not to the
# service's workers too), so that SIGTERM is the service's ordinary drain.
set -m
timeout --foreground -k 10 "$limit" "$pp" serve --key "m=$data/circuit.zkey" --listen 127.0.0.1:0 \
  --state-dir "$tmp/state" --allow-dir "$data" --synth-workers 1 --gpu-workers 1 --backend cpu \
  >"$tmp/serve.log" 2>&1 &
serve_pid=$!
port=''
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.log" | head -1)
  [[ -n $port ]] && break
  running "$serve_pid" || break
  sleep 0.2
done
if [[ -z $port ]]; then
  echo "test_beside.sh: error: the service did not start:" >&2
  cat "$tmp/serve.log" >&2
  exit 2
fi

(
  i=0
  while [[ ! -e $tmp/stop ]] && ((SECONDS < deadline)); do
    i=$((i + 1))
    if timeout -k 10 300 "$pp" submit --server "http://127.0.0.1:$port" --key m --paths --wait \
      --out "$tmp/proofs" "$data/w0$((i % 4)).wtns" "$data/w0$((i % 4 + 4)).wtns" >>"$tmp/submit.log" 2>&1; then
      echo ok >>"$tmp/submit.results"
    else
      echo "fail $?" >>"$tmp/submit.results"
    fi
    rm -rf "$tmp/proofs"
  done
) &
loop_pids+=($!)
(
  i=0
  while [[ ! -e $tmp/stop ]] && ((SECONDS < deadline)); do
    i=$((i + 1))
    if PROOFPIPE_NO_PROGRESS=1 timeout -k 10 300 "$pp" run --zkey "$data/circuit.zkey" --backend cpu \
      --witness "$data/w00.wtns" --witness "$data/w05.wtns" --witness "$data/w11.wtns" \
      --out "$tmp/run-out" >>"$tmp/run.log" 2>&1; then
      echo ok >>"$tmp/run.results"
    else
      echo "fail $?" >>"$tmp/run.results"
    fi
    rm -rf "$tmp/run-out"
  done
) &
loop_pids+=($!)
set +m
echo "test_beside.sh: proofpipe serve on 127.0.0.1:$port (pid $serve_pid) and a loop of runs beside ctest $*"

t0=$SECONDS
(cd "$build" && ctest --output-on-failure "$@")
ctest_rc=$?
ctest_s=$((SECONDS - t0))

# The service must still be up (a test that removed its ring or killed it
# would show here), then it drains and exits 0.
serve_up=yes
running "$serve_pid" || serve_up=no
# The loops finish their current job or run first (a job still waiting on
# the service would fail once it stops), then the service drains.
touch "$tmp/stop"
for pid in "${loop_pids[@]}"; do ended_within "$pid" 320 || true; done
kill -TERM "$serve_pid" 2>/dev/null
serve_exit=timeout
if ended_within "$serve_pid" 60; then
  wait "$serve_pid"
  serve_exit=$?
fi

count() {
  if [[ -f $1 ]]; then grep -c "$2" "$1"; else echo 0; fi
}
runs_ok=$(count "$tmp/run.results" '^ok') runs_bad=$(count "$tmp/run.results" '^fail')
jobs_ok=$(count "$tmp/submit.results" '^ok') jobs_bad=$(count "$tmp/submit.results" '^fail')

echo
echo "== test_beside.sh: ctest $* beside another proofpipe"
printf '%-38s %s\n' "ctest (exit, seconds)" "$ctest_rc, $ctest_s s" \
  "neighbour runs (ok / failed)" "$runs_ok / $runs_bad" \
  "neighbour service jobs (ok / failed)" "$jobs_ok / $jobs_bad" \
  "service up when ctest ended" "$serve_up" \
  "service exit after SIGTERM" "$serve_exit"
rc=0
if ((runs_bad > 0)); then
  echo "-- the last failed runs' output:"
  tail -n 20 "$tmp/run.log"
fi
if ((jobs_bad > 0)); then
  echo "-- the last failed jobs' output:"
  tail -n 20 "$tmp/submit.log"
fi
if [[ $serve_up != yes || $serve_exit != 0 ]]; then
  echo "-- the service's log:"
  tail -n 30 "$tmp/serve.log"
fi
((runs_bad > 0 || jobs_bad > 0 || runs_ok == 0 || jobs_ok == 0)) && rc=1
[[ $serve_up == yes && $serve_exit == 0 ]] || rc=1
((ctest_rc != 0)) && rc=$ctest_rc
exit "$rc"
