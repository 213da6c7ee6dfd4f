#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through stage(), trap
# The README's test command: installs what is missing (scripts/setup.sh),
# configures and builds build/ (Release, warnings as errors: the
# configuration scripts/demo.sh builds too, scripts/lib/configure.sh), runs every ctest
# test; then the sanitizer stage below. GPU tests skip themselves when no
# device is present. Extra arguments go to the release ctest (e.g. -L unit).
#
# Every stage runs even when an earlier one failed (a failing ctest must not
# hide what the sanitizers would have found), and the end is a table of the
# stages (PASS, FAIL or SKIP, seconds) followed by the release ctest's own
# closing lines, which CI reads. Exit status: 1 if any stage failed, else 0.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/lib/configure.sh
source scripts/lib/configure.sh

jobs=$(nproc)
ctest_log=$(mktemp "${TMPDIR:-/tmp}/proofpipe-ctest-XXXXXX")
trap 'rm -f "$ctest_log"' EXIT

stages=() results=() seconds=()
# stage NAME COMMAND...: runs the command in a subshell with `set -e` (it
# stops at its own first failure) and records how it ended and how long it took.
stage() {
  local name=$1 t0=$SECONDS rc
  shift
  echo "== test.sh: stage $name"
  (
    set -e
    "$@"
  )
  rc=$?
  stages+=("$name")
  results+=("$([[ $rc == 0 ]] && echo PASS || echo "FAIL (exit $rc)")")
  seconds+=("$((SECONDS - t0))")
}
skip() {
  stages+=("$1")
  results+=("SKIP ($2)")
  seconds+=(0)
}

build_release() {
  pp_configure build
  cmake --build build -j "$jobs"
}
release_ctest() {
  cd build
  ctest --output-on-failure -j "$jobs" --timeout 900 "$@" 2>&1 | tee "$ctest_log"
}

stage setup scripts/setup.sh
stage build build_release
stage ctest release_ctest "$@"

# The sanitizer stage (docs/reliability.md), from one clang build in
# build-asan/: the unit tests of the rooms below the service (the ring, the
# slot model, the control plane, the engine's scheduler and ledger, the
# readers) under
# AddressSanitizer and UndefinedBehaviorSanitizer, then every fuzz target
# for 5 s over its corpus. The property, integration and fault tests run
# under the sanitizers with scripts/sanitize.sh, not here: CI's 30
# minutes on 2 cores hold one of the two builds of them, not both.
# PP_TEST_SANITIZE=0 skips the stage.
if [[ ${PP_TEST_SANITIZE:-1} != 0 ]]; then
  stage sanitize env PP_SANITIZE_SUITES=lower_unit scripts/sanitize.sh address,undefined
  stage fuzz env PP_FUZZ_BUILD=build-asan scripts/fuzz.sh all 5
else
  skip sanitize PP_TEST_SANITIZE=0
  skip fuzz PP_TEST_SANITIZE=0
fi

failed=0
echo
echo "== test.sh: stages"
printf '%-10s %-26s %8s\n' stage result seconds
for i in "${!stages[@]}"; do
  printf '%-10s %-26s %8s\n' "${stages[$i]}" "${results[$i]}" "${seconds[$i]}"
  [[ ${results[$i]} == FAIL* ]] && failed=1
done
# The release ctest's closing lines, last, where CI looks for them.
if grep -q 'tests passed' "$ctest_log"; then
  echo
  sed -n '/tests passed/,$p' "$ctest_log"
fi
exit "$failed"
