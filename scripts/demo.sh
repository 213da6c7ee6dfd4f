#!/usr/bin/env bash
# The README's first command: installs what is missing (scripts/setup.sh),
# builds proofpipe and its worker executables in build/ (configured as
# scripts/test.sh configures it: scripts/lib/configure.sh), and runs
# `proofpipe demo`: the bundled circuit's 12 partitions through the full
# multi-process pipeline, every proof verified. Extra arguments go to demo
# (e.g. --synth-workers 3 --out /tmp/demo).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/configure.sh
source scripts/lib/configure.sh
scripts/setup.sh
pp_configure build
cmake --build build -j "$(nproc)" --target proofpipe
# --overwrite: a second demo into the same folder replaces the first one's
# proofs (proofpipe itself refuses an --out holding older outputs without it).
exec build/bin/proofpipe demo --overwrite "$@"
