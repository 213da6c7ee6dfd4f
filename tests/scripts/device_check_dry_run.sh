#!/usr/bin/env bash
# DeviceCheck.DryRunWithoutGpu: runs scripts/device_check.sh against this
# build on a machine without a GPU. The script otherwise runs only on a lent
# H200, where a bash slip would waste the lease; here every stage runs
# quickly (the gpu tests fail for want of a device, the bench exits 2, the
# record bench and the CPU pipeline run) and its outputs are checked.
# Usage: device_check_dry_run.sh BUILD_DIR. Exit 77 (skipped) with a GPU.
set -uo pipefail
build=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "a GPU is present: the real device check applies, not this dry run"
    exit 77
fi
out=$(mktemp -d /tmp/pp_device_check_dry.XXXXXX)
trap 'rm -rf "$out"' EXIT
OUT=$out PP_DEVICE_BUILD=$build PP_DEVICE_CHECK_LOG=10 PP_DEVICE_CHECK_BUDGET=150 \
    bash "$root/scripts/device_check.sh" run >"$out/stdout.log" 2>&1
rc=$?
fail=0
check() {  # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=1; fi
}
check "exits 1 without a GPU (got $rc)" test "$rc" = 1
for f in summary.txt gpu_tests.log logs.tar.gz proofs.tar.gz; do check "$f came back" test -s "$out/$f"; done
summary=$(cat "$out/summary.txt" 2>/dev/null)
check "the summary names the gpu tests' result" grep -q '^gpu tests: exit [1-9][0-9]*, 1 passed, [1-9][0-9]* failed, 0 skipped' <<<"$summary"
check "the gpu tests give the runtime's reason" grep -q 'PP_REQUIRE_GPU=1 but cudaGetDeviceCount' "$out/gpu_tests.log"
check "every test group ran" test "$(grep -c '^-- gtest_filter=' "$out/gpu_tests.log")" = 5
check "the bench says it found no device" grep -q '^device bench: exit 2' <<<"$summary"
check "the record bench ran" grep -q 'intake_tree/22' <<<"$summary"
check "the cpu pipeline proved (the cuda runs could not)" grep -Eq 'cuda -, cuda copy intake -, cpu [0-9.]+ s' <<<"$summary"
check "its proving stages are in the summary" grep -Eq '^  cpu: median of 4 proofs \(cpu, copy intake\): intake [0-9.]+ s, H step' <<<"$summary"
check "the proving worker's peak memory is in the summary" grep -Eq '^  cpu memory: gpu\.[0-9]+ \(cpu\) [0-9.]+ [KMG]iB' <<<"$summary"
check "the logs are packed" bash -c "tar -tzf '$out/logs.tar.gz' | grep -q gpu_tests_4.xml"
if [[ $fail != 0 ]]; then
    echo "--- summary.txt"; cat "$out/summary.txt"; echo "--- stdout (tail)"; tail -40 "$out/stdout.log"
fi
exit $fail
