#!/usr/bin/env bash
# The README's test command: installs what is missing (scripts/setup.sh),
# configures and builds (Release, warnings as errors), and runs every ctest
# test. GPU tests skip themselves when no device is present.
# Extra arguments go to ctest (e.g. -L unit, -LE fault).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPP_STRICT=ON
cmake --build build -j "$jobs"
cd build
ctest --output-on-failure -j "$jobs" --timeout 900 "$@"
