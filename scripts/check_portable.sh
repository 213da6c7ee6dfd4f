#!/usr/bin/env bash
# The default build is baseline x86-64 and must run on CPUs older than the
# one that built it: this runs it under qemu-user's emulation of older CPUs
# (docs/performance.md, "Portable build").
#   scripts/check_portable.sh [build-dir]      (default: build)
# For each model (Nehalem: SSE4.2, no AVX, no BMI2/ADX; Haswell: AVX2 and
# BMI2, no ADX, no AVX-512):
#   1. the core unit tests and the field, NTT and MSM property tests;
#   2. `proofpipe prove` of both bundled curves' fixtures, each proof checked
#      by `proofpipe verify` run natively;
# then 3. the start-up check of a build for a newer CPU (-DPP_NATIVE=ON):
# core's check compiled for Ice Lake (AVX-512, IFMA, ADX) and run under
# Nehalem must print its one line and exit 2, not die of SIGILL.
# Needs qemu-user (scripts/setup.sh installs it). Exit 0 when all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v qemu-x86_64 >/dev/null || { echo "check_portable: qemu-x86_64 not found (apt-get install qemu-user)" >&2; exit 2; }
bin=$build/bin
tmp=$(mktemp -d /tmp/pp-portable.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
step() { printf '%-58s' "$1"; }
ok() { echo "ok${1:+ ($1)}"; }
bad() { echo "FAILED: $1"; fail=1; }

for cpu in Nehalem Haswell; do
  step "$cpu: core unit tests"
  if qemu-x86_64 -cpu "$cpu" "$bin/pp_core_unit_tests" >"$tmp/unit.log" 2>&1; then
    ok "$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$tmp/unit.log" | head -1)"
  else bad "$(tail -5 "$tmp/unit.log")"; fi
  step "$cpu: field, NTT and MSM property tests"
  if qemu-x86_64 -cpu "$cpu" "$bin/pp_core_property_tests" \
    --gtest_filter='FieldTest*:*Ntt*:*Msm*:-*Ifma*:*Large*' >"$tmp/prop.log" 2>&1; then
    ok "$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$tmp/prop.log" | head -1)"
  else bad "$(grep -m3 'FAILED\|Illegal\|error' "$tmp/prop.log" || tail -3 "$tmp/prop.log")"; fi
  for fx in multi_io multi_io_bn128; do
    step "$cpu: prove $fx, verified"
    d=tests/data/$fx
    if qemu-x86_64 -cpu "$cpu" "$bin/proofpipe" prove "$d/circuit.zkey" "$d/w00.wtns" "$tmp/p.json" "$tmp/pub.json" \
      >"$tmp/prove.log" 2>&1 &&
      [ "$("$bin/proofpipe" verify "$d/verification_key.json" "$tmp/pub.json" "$tmp/p.json")" = OK ]; then
      ok
    else bad "$(tail -3 "$tmp/prove.log")"; fi
  done
done

step "Nehalem: a build for Ice Lake stops with one line"
cxx=${CXX:-c++}
cat >"$tmp/main.cpp" <<'CPP'
#include <cstdio>
int main() { std::puts("started"); return 0; }
CPP
$cxx -std=c++20 -O2 -march=icelake-server -Icore/include -Icommon/include -c core/src/build_features.cpp -o "$tmp/bf.o"
$cxx -std=c++20 -O2 -march=x86-64 -Icore/include -Icommon/include -c core/src/cpu_features.cpp -o "$tmp/cf.o"
$cxx -std=c++20 -O2 -march=icelake-server "$tmp/main.cpp" "$tmp/bf.o" "$tmp/cf.o" -o "$tmp/newer"
set +e
line=$(qemu-x86_64 -cpu Nehalem "$tmp/newer" 2>&1)
rc=$?
set -e
if [ $rc = 2 ] && [ "$(printf '%s\n' "$line" | wc -l)" = 1 ] && [[ $line == "proofpipe: error: this build needs CPU features"* ]]; then
  ok "exit 2: ${line:0:100}..."
else bad "exit $rc: $line"; fi

exit $fail
