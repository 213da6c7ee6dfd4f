#!/usr/bin/env bash
# libproofpipe as an outside C program sees it: install the library into a
# temporary prefix (cmake --install, component libproofpipe), build
# c_client.c with cc from the installed header and `pkg-config --cflags
# --libs proofpipe` only, once against libproofpipe.so and once against
# libproofpipe.a, run it on both bundled curves, and have snarkjs verify
# the proof it wrote.
#   c_client_test.sh <build dir> <source dir>
set -euo pipefail
build=$1
src=$2
data=$src/tests/data
snarkjs=(node "$src/node_modules/snarkjs/build/cli.cjs")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/libproofpipe-c-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component libproofpipe >/dev/null
pc=$(find "$tmp/prefix" -name proofpipe.pc)
[[ -n $pc ]] || { echo "no proofpipe.pc installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir proofpipe)

# The shared library's dynamic symbols: the interface and nothing else
# (no C++ symbols of the pp_* libraries inside it).
exported=$(nm -D --defined-only "$libdir/libproofpipe.so" | awk '$2 ~ /^[TWDBVRi]$/ {print $3}' | sort | tr '\n' ' ')
expected="groth16_proof_size groth16_prover groth16_prover_create groth16_prover_create_zkey_file \
groth16_prover_destroy groth16_prover_prove groth16_prover_zkey_file groth16_public_size_for_zkey_buf \
groth16_public_size_for_zkey_file groth16_verify "
if [[ $exported != "$expected" ]]; then
  echo "libproofpipe.so exports: $exported" >&2
  echo "expected:               $expected" >&2
  exit 1
fi

# Shared: the link line is pkg-config's alone (plus pthread for the client's threads).
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/c_client" "$src/tests/libproofpipe/c_client.c" \
  $(pkg-config --cflags --libs proofpipe) -pthread
# Static: the archive by path (the .so would be preferred to -lproofpipe),
# then the private dependencies pkg-config lists for it.
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/c_client_static" "$src/tests/libproofpipe/c_client.c" \
  $(pkg-config --cflags proofpipe) "$libdir/libproofpipe.a" \
  $(pkg-config --static --libs-only-l proofpipe | sed 's/-lproofpipe\b//') -pthread
# rapidsnark's older header's unsigned long sizes (PROOFPIPE_PROVER_ULONG).
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/ulong_client" "$src/tests/libproofpipe/ulong_client.c" \
  $(pkg-config --cflags --libs proofpipe)
if ldd "$tmp/c_client_static" | grep -q libproofpipe; then
  echo "c_client_static links libproofpipe.so" >&2
  exit 1
fi

for circuit in multi_io multi_io_bn128; do
  wrong=$data/sparse_dense/w00.wtns
  [[ $circuit == *bn128 ]] && wrong=$data/sparse_dense_bn128/w00.wtns
  for client in c_client c_client_static; do
    out=$tmp/$circuit-$client
    mkdir -p "$out"
    echo "== $client $circuit"
    LD_LIBRARY_PATH=$libdir "$tmp/$client" "$data/$circuit/circuit.zkey" "$data/$circuit" "$wrong" \
      "$data/$circuit/verification_key.json" "$out"
    "${snarkjs[@]}" groth16 verify "$data/$circuit/verification_key.json" "$out/public.json" "$out/proof.json" |
      tee "$out/snarkjs.txt"
    grep -q "OK!" "$out/snarkjs.txt"
    cmp "$out/public.json" "$data/$circuit/snarkjs_public.json" || {
      echo "public.json differs from snarkjs's for w00" >&2
      exit 1
    }
  done
done
for circuit in multi_io multi_io_bn128; do
  LD_LIBRARY_PATH=$libdir "$tmp/ulong_client" "$data/$circuit/circuit.zkey" "$data/$circuit/w05.wtns" \
    "$data/$circuit/verification_key.json"
done
echo "c_client: all checks passed"
