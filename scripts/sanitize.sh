#!/usr/bin/env bash
# The test suites under the sanitizers (docs/reliability.md):
#   scripts/sanitize.sh [address,undefined | thread] [extra ctest args...]
# Configures a host-only build with -DPP_SANITIZE=... in build-asan/ or
# build-tsan/ (PP_SANITIZE_BUILD overrides), builds what the chosen suites
# run, and runs them with ctest.
#   address,undefined (the default): the suites named by PP_SANITIZE_SUITES:
#     test binaries as ROOM_KIND (engine_unit: tests/engine's unit tests,
#     pp_engine_unit_tests), a kind alone for every room's binary of that
#     kind, or lower_unit: the unit tests of the rooms below the service
#     (what CI's sanitizer stage runs). Default: unit property integration.
#     With clang the tree is also the fuzz build (-DPP_FUZZ=ON), so
#     `PP_FUZZ_BUILD=build-asan scripts/fuzz.sh` runs the fuzz targets from it.
#   thread: the ring, the control plane, the engine's scheduler and ledger
#     (the unit tests of the rooms below the service) and the PipelineRun
#     tests (real pipelines: worker thread pools, heartbeat threads).
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
suites=${PP_SANITIZE_SUITES:-unit property integration}
for s in $suites; do
  if [[ ! $s =~ ^([a-z_]+_)?(unit|property|integration|fault)$ ]]; then
    echo "sanitize.sh: error: PP_SANITIZE_SUITES: '$s' is not ROOM_KIND or a kind (unit property integration fault)" >&2
    exit 2
  fi
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

# The unit tests of the rooms below the service: the ring, the control
# plane, the engine's scheduler and ledger, the readers.
lower_unit="common_unit core_unit formats_unit groth16_unit backends_unit ipc_unit shm_unit witness_gen_unit engine_unit"

# The test binaries the suites name: ROOM_KIND as it is, a kind as every
# pp_*_KIND_tests target of the build.
suite_targets() {
  local all
  all=$(ninja -C "$build" -t targets all | sed -n 's/^\(pp_[a-z_]*_tests\): .*/\1/p' | sort -u)
  for s in "$@"; do
    if [[ $s == lower_unit ]]; then
      # shellcheck disable=SC2086
      suite_targets $lower_unit
    elif [[ $s == *_* ]]; then echo "pp_${s}_tests"; else grep "^pp_[a-z_]*_${s}_tests$" <<<"$all" || true; fi
  done
}

# ctest's -R for every test of the given binaries: their own test-suite
# names (a ctest label names a kind, which every room shares).
suite_regex() {
  local names=()
  for t in "$@"; do
    mapfile -t -O "${#names[@]}" names < <("$build/bin/$t" --gtest_list_tests |
      sed -n 's/^\([^ #][^ ]*\)\..*/\1/p' | sort -u)
  done
  (IFS='|'; echo "^(${names[*]})\\.")
}

if [[ $san == thread ]]; then
  mapfile -t targets < <(suite_targets lower_unit)
  ninja -C "$build" -j "$jobs" "${targets[@]}" pp_engine_integration_tests proofpipe
  re=$(suite_regex "${targets[@]}")
  cd "$build"
  ctest --output-on-failure -j "$jobs" --timeout 900 -R "$re|^PipelineRun\\." "$@"
else
  # shellcheck disable=SC2086
  mapfile -t targets < <(suite_targets $suites)
  # The process-level suites run the real binaries.
  [[ " $suites " =~ (integration|fault) ]] && targets+=(proofpipe)
  ninja -C "$build" -j "$jobs" "${targets[@]}"
  tests=()
  for t in "${targets[@]}"; do [[ $t == pp_* ]] && tests+=("$t"); done
  re=$(suite_regex "${tests[@]}")
  cd "$build"
  ctest --output-on-failure -j "$jobs" --timeout 900 -R "$re" "$@"
fi
