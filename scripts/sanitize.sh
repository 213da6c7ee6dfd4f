#!/usr/bin/env bash
# The test suites under the sanitizers (docs/reliability.md):
#   scripts/sanitize.sh [address,undefined | thread] [extra ctest args...]
# Configures a host-only build instrumented with -DPP_SANITIZE=... in
# build-asan/ or build-tsan/ (PP_SANITIZE_BUILD overrides; CC/CXX pick gcc or
# clang), builds what the chosen suites run, and runs them with ctest:
#   address,undefined (the default): the unit, property, integration, shm
#     and pipeline suites (folder labels), minus PP_ASAN_EXCLUDE below;
#   thread: the shm and unit suites (the ring, the control plane, the
#     coordinator's scheduler and ledger) and the PipelineRun tests (real
#     pipelines: worker thread pools, heartbeat threads).
# -O2 with assertions on (not NDEBUG): sanitizers are for finding bugs.
# Not -O1: gcc 12 then cannot fit the 6-limb asm kernels' 13 registers
# beside ASan's frame ("impossible constraints"); -O2 compiles them.
set -euo pipefail
cd "$(dirname "$0")/.."

san=${1:-address,undefined}
shift || true
case $san in
  address,undefined | undefined,address | address | undefined) build=${PP_SANITIZE_BUILD:-build-asan} ;;
  thread) build=${PP_SANITIZE_BUILD:-build-tsan} ;;
  *)
    echo "sanitize.sh: error: '$san' is not one of: address,undefined | thread" >&2
    exit 2
    ;;
esac

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -G Ninja -DPP_SANITIZE="$san" -DPP_CUDA=OFF -DPP_BUILD_BENCH=OFF -DPP_STRICT=ON \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O2 >/dev/null
fi

jobs=$(nproc)
# halt_on_error/abort_on_error: the first finding fails the test.
# detect_leaks: LeakSanitizer at exit of every process (workers included).
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

if [[ $san == thread ]]; then
  ninja -C "$build" -j "$jobs" pp_shm_tests pp_unit_tests pp_pipeline_tests proofpipe
  cd "$build"
  # The shm and unit suites, then real pipeline runs: every process of the
  # pipeline (coordinator, synthesis and GPU workers with their thread
  # pools and heartbeat threads) is built with TSan.
  ctest --output-on-failure -j "$jobs" --timeout 900 -L '^(shm|unit)$' -LE '^(service|cuda_host)$' "$@"
  ctest --output-on-failure -j "$jobs" --timeout 900 -R '^PipelineRun\.' "$@"
else
  ninja -C "$build" -j "$jobs" pp_unit_tests pp_property_tests pp_integration_tests pp_shm_tests pp_pipeline_tests \
    proofpipe
  cd "$build"
  ctest --output-on-failure -j "$jobs" --timeout 900 -L '^(unit|property|integration|shm|pipeline)$' \
    -LE '^(service|cuda_host|fault|service_pg|gpu)$' "$@"
fi
