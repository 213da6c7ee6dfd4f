#!/usr/bin/env bash
# The README's test command: installs what is missing (scripts/setup.sh),
# configures and builds (Release, warnings as errors), and runs every ctest
# test; then the sanitizer stage below. GPU tests skip themselves when no
# device is present. Extra arguments go to the release ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPP_STRICT=ON
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900 "$@")

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
  PP_SANITIZE_SUITES=lower_unit scripts/sanitize.sh address,undefined
  PP_FUZZ_BUILD=build-asan scripts/fuzz.sh all 5
fi
