#!/usr/bin/env bash
# libproofpipe as an outside C program sees it: install the library into a
# temporary prefix (cmake --install, component libproofpipe), build
# c_client.c with cc from the installed headers and pkg-config only: under
# rapidsnark's name (`pkg-config rapidsnark`, -lrapidsnark, run without
# LD_LIBRARY_PATH thanks to the .pc's rpath, and ldd must show proofpipe),
# under proofpipe's, and statically; run each on both bundled curves, and
# have snarkjs verify the proof it wrote. ulong_client.c checks rapidsnark's
# older unsigned-long header (`pkg-config rapidsnark-ulong`).
#   c_client_test.sh <build dir> <source dir>
set -euo pipefail
. "$(dirname "$0")/install_prefix.sh" "$@"

# rapidsnark's link names are proofpipe's libraries.
for name in librapidsnark.so librapidsnark.a; do
  [[ -L $libdir/$name ]] || { echo "$name is not installed as a link" >&2; exit 1; }
done
[[ $(readlink -f "$libdir/librapidsnark.so") == $(readlink -f "$libdir/libproofpipe.so") ]] ||
  { echo "librapidsnark.so is not libproofpipe.so" >&2; exit 1; }
[[ $(readlink -f "$libdir/librapidsnark.a") == $(readlink -f "$libdir/libproofpipe.a") ]] ||
  { echo "librapidsnark.a is not libproofpipe.a" >&2; exit 1; }

# The shared library's dynamic symbols: the interface and nothing else
# (no C++ symbols of the pp_* libraries inside it).
exported=$(nm -D --defined-only "$libdir/libproofpipe.so" | awk '$2 ~ /^[TWDBVRi]$/ {print $3}' | sort | tr '\n' ' ')
expected="groth16_proof_size groth16_prover groth16_prover_create groth16_prover_create_zkey_file \
groth16_prover_destroy groth16_prover_prove groth16_prover_zkey_file groth16_public_size_for_zkey_buf \
groth16_public_size_for_zkey_file groth16_verify proofpipe_prover_create_borrowed "
if [[ $exported != "$expected" ]]; then
  echo "libproofpipe.so exports: $exported" >&2
  echo "expected:               $expected" >&2
  exit 1
fi

cflags=(-std=c11 -Wall -Wextra -Werror)
# Shared, under rapidsnark's name: the link line is pkg-config's alone (plus
# pthread for the client's threads).
cc "${cflags[@]}" -o "$tmp/c_client" "$src/tests/libproofpipe/c_client.c" \
  $(pkg-config --cflags --libs rapidsnark) -pthread
# Shared, under proofpipe's name.
cc "${cflags[@]}" -o "$tmp/c_client_pp" "$src/tests/libproofpipe/c_client.c" \
  $(pkg-config --cflags --libs proofpipe) -pthread
# Static: the archive by path (the .so would be preferred to -lrapidsnark),
# then the private dependencies pkg-config lists for it.
cc "${cflags[@]}" -o "$tmp/c_client_static" "$src/tests/libproofpipe/c_client.c" \
  $(pkg-config --cflags rapidsnark) "$libdir/librapidsnark.a" \
  $(pkg-config --static --libs-only-l rapidsnark | sed 's/-lrapidsnark\b//') -pthread
# rapidsnark's older header's unsigned long sizes: builds with
# rapidsnark-ulong.pc, and must not with rapidsnark.pc (whose prover.h is
# rapidsnark's current one, unsigned long long).
cc "${cflags[@]}" -o "$tmp/ulong_client" "$src/tests/libproofpipe/ulong_client.c" \
  $(pkg-config --cflags --libs rapidsnark-ulong)
if cc "${cflags[@]}" -o "$tmp/ulong_wrong" "$src/tests/libproofpipe/ulong_client.c" \
  $(pkg-config --cflags --libs rapidsnark) 2>/dev/null; then
  echo "ulong_client.c compiled against rapidsnark.pc: its prover.h is not unsigned long long" >&2
  exit 1
fi
if ldd "$tmp/c_client_static" | grep -q 'libproofpipe\|librapidsnark'; then
  echo "c_client_static links a shared libproofpipe" >&2
  exit 1
fi
# -lrapidsnark records proofpipe's soname, found through the .pc's rpath.
loaded=$(env -u LD_LIBRARY_PATH ldd "$tmp/c_client" | awk '$1 == "libproofpipe.so.0" {print $3}')
if [[ -z $loaded || $(readlink -f "$loaded") != $(readlink -f "$libdir/libproofpipe.so.0") ]]; then
  env -u LD_LIBRARY_PATH ldd "$tmp/c_client" >&2
  echo "c_client does not load $libdir/libproofpipe.so.0 (loads '$loaded')" >&2
  exit 1
fi

for circuit in multi_io multi_io_bn128; do
  wrong=$data/sparse_dense/w00.wtns
  [[ $circuit == *bn128 ]] && wrong=$data/sparse_dense_bn128/w00.wtns
  for client in c_client c_client_pp c_client_static; do
    out=$tmp/$circuit-$client
    mkdir -p "$out"
    echo "== $client $circuit"
    env -u LD_LIBRARY_PATH "$tmp/$client" "$data/$circuit/circuit.zkey" "$data/$circuit" "$wrong" \
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
  env -u LD_LIBRARY_PATH "$tmp/ulong_client" "$data/$circuit/circuit.zkey" "$data/$circuit/w05.wtns" \
    "$data/$circuit/verification_key.json"
done
echo "c_client: all checks passed"
