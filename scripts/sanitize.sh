#!/usr/bin/env bash
# The test suites under the sanitizers (docs/reliability.md):
#   scripts/sanitize.sh [address,undefined | thread] [extra ctest args...]
# Configures a host-only build with -DPP_SANITIZE=... in build-asan/ or
# build-tsan/ (PP_SANITIZE_BUILD overrides), builds what the chosen suites
# run, and runs them with ctest.
#   address,undefined (the default): the suites named by PP_SANITIZE_SUITES
#     (folder labels; default: unit property integration shm pipeline).
#     With clang the tree is also the fuzz build (-DPP_FUZZ=ON), so
#     `PP_FUZZ_BUILD=build-asan scripts/fuzz.sh` runs the fuzz targets from it.
#   thread: the shm and unit suites (the ring, the control plane, the
#     coordinator's scheduler and ledger) and the PipelineRun tests (real
#     pipelines: worker thread pools, heartbeat threads).
# Compiler: clang-14 when installed (scripts/setup.sh installs it), else the
# default c++; CC/CXX override. Optimisation with assertions on (not
# NDEBUG): clang -O1, the level ASan's authors recommend; gcc -O2, because
# at -O1 gcc 12 cannot fit the 6-limb asm kernels' 13 registers beside
# ASan's frame ("impossible constraints").
set -euo pipefail
cd "$(dirname "$0")/.."

san=${1:-address,undefined}
shift || true
case $san in
  address,undefined) build=${PP_SANITIZE_BUILD:-build-asan} ;;
  thread) build=${PP_SANITIZE_BUILD:-build-tsan} ;;
  *)
    echo "sanitize.sh: error: '$san' is not one of: address,undefined | thread" >&2
    exit 2
    ;;
esac
suites=${PP_SANITIZE_SUITES:-unit property integration shm pipeline}
for s in $suites; do
  case $s in
    unit | property | integration | shm | pipeline | fault | service) ;;
    *)
      echo "sanitize.sh: error: PP_SANITIZE_SUITES: unknown suite '$s'" >&2
      exit 2
      ;;
  esac
done

if [[ -z ${CXX:-} ]] && command -v clang++-14 >/dev/null; then
  export CC=clang-14 CXX=clang++-14
fi
if [[ ! -f $build/CMakeCache.txt ]]; then
  extra=(-DCMAKE_CXX_FLAGS=-O2)
  if "${CXX:-c++}" --version | grep -q clang; then
    extra=(-DCMAKE_CXX_FLAGS=-O1)
    [[ $san == address,undefined ]] && extra+=(-DPP_FUZZ=ON)
  fi
  cmake -S . -B "$build" -G Ninja -DPP_SANITIZE="$san" -DPP_CUDA=OFF -DPP_BUILD_BENCH=OFF -DPP_STRICT=ON \
    -DCMAKE_BUILD_TYPE=None "${extra[@]}" >/dev/null
fi

jobs=$(nproc)
# halt_on_error/abort_on_error: the first finding fails the test.
# detect_leaks: LeakSanitizer at the exit of every process, workers included.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# scripts/tsan.supp: libzmq's message handoff (not instrumented) only.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp}

# ctest's -R for every test of the given suites (tests/<suite>/, built into
# pp_<suite>_tests): the binaries' own test-suite names. A ctest label names
# a category (unit, integration), which several folders share.
suite_regex() {
  local names=()
  for s in "$@"; do
    mapfile -t -O "${#names[@]}" names < <("$build/bin/pp_${s}_tests" --gtest_list_tests |
      sed -n 's/^\([^ #][^ ]*\)\..*/\1/p' | sort -u)
  done
  (IFS='|'; echo "^(${names[*]})\\.")
}

if [[ $san == thread ]]; then
  suites="shm unit"
  ninja -C "$build" -j "$jobs" pp_shm_tests pp_unit_tests pp_pipeline_tests proofpipe
  re=$(suite_regex shm unit)
  cd "$build"
  ctest --output-on-failure -j "$jobs" --timeout 900 -R "$re|^PipelineRun\\." "$@"
else
  targets=()
  for s in $suites; do targets+=("pp_${s}_tests"); done
  # The process-level suites run the real binaries.
  [[ " $suites " =~ \ (integration|pipeline|fault|service)\  ]] && targets+=(proofpipe)
  ninja -C "$build" -j "$jobs" "${targets[@]}"
  # shellcheck disable=SC2086
  re=$(suite_regex $suites)
  cd "$build"
  ctest --output-on-failure -j "$jobs" --timeout 900 -R "$re" "$@"
fi
