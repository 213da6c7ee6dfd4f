#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/reliability.md) over their
# committed corpora: scripts/fuzz.sh [TARGET] [SECONDS] (default: every
# target, 60 s each, one process at a time). Configures and builds the clang
# fuzz build (-DPP_FUZZ=ON, ASan+UBSan) in build-fuzz/ if needed. Prints
# exec/s, total execs and coverage per target; exits 1 when a target crashed,
# hung, leaked or allocated over the limit, with the reproducer saved under
# build-fuzz/fuzz-artifacts/TARGET/ (replay: build-fuzz/bin/TARGET_fuzz FILE).
# Environment: PP_FUZZ_BUILD (build dir), PP_FUZZ_JOBS (ninja -j, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

all=(zkey wtns r1cs proof_json public_json vkey_json ipc_messages sizes submit job_json)
target=${1:-all}
secs=${2:-60}
build=${PP_FUZZ_BUILD:-build-fuzz}

if [[ $target == all ]]; then
  targets=("${all[@]}")
elif [[ " ${all[*]} " == *" $target "* ]]; then
  targets=("$target")
else
  echo "fuzz.sh: error: unknown target '$target' (one of: ${all[*]})" >&2
  exit 2
fi
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: error: SECONDS '$secs' is not a positive whole number" >&2
  exit 2
fi

dict_of() {
  case $1 in
    proof_json | public_json | vkey_json) echo json ;;
    ipc_messages) echo ipc ;;
    submit | job_json) echo service ;;
    *) echo "$1" ;;
  esac
}

if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPP_FUZZ=ON -DPP_CUDA=OFF \
    -DPP_BUILD_BENCH=OFF -DPP_BUILD_TESTS=OFF
fi
ninja -C "$build" -j "${PP_FUZZ_JOBS:-2}" "${targets[@]/%/_fuzz}"

failed=()
printf '%-14s %10s %12s %8s %8s %s\n' target exec/s execs cov ft result
for t in "${targets[@]}"; do
  # New inputs go to the first (scratch) corpus; the committed seeds are read only.
  work=$build/fuzz-corpus/$t artifacts=$build/fuzz-artifacts/$t log=$build/fuzz-logs/$t.log
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  # -malloc_limit_mb: an allocation sized by a declared count rather than the
  # input's bytes fails the run. -timeout: one input over 10 s is a hang.
  rc=0
  "$build/bin/${t}_fuzz" "$work" "fuzz/corpus/$t" -dict="fuzz/dict/$(dict_of "$t").dict" \
    -max_total_time="$secs" -malloc_limit_mb=512 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  result=ok
  if [[ $rc -ne 0 ]]; then
    saved=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    result="FAILED (rc $rc): input ${saved:-not saved}, log $log"
    failed+=("$t")
  fi
  printf '%-14s %10s %12s %8s %8s %s\n' "$t" "${rate:--}" "${execs:--}" "${cov:--}" "${ft:--}" "$result"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
