#!/usr/bin/env bash
# rapidsnark's own callers against libproofpipe, as docs/bindings.md tells
# users to build them (fetches nothing; run from the repository root):
#
#   scripts/check_rapidsnark_callers.sh <go-rapidsnark checkout> <rapidsnark checkout>
#
#  1. go-rapidsnark's `prover` package, built with Go (GOPROXY=off, its
#     `types` module replaced by the checkout's), -tags dynamic and the cgo
#     flags of `pkg-config rapidsnark-ulong` from an installed prefix, in a
#     small program that proves tests/data/multi_io_bn128's w00.wtns; ldd
#     must show libproofpipe, snarkjs must verify the proof. The same
#     program is built as `go build` alone makes it (no tag, no cgo flags)
#     to show the trap: it links go-rapidsnark's vendored rapidsnark, and
#     ldd shows no libproofpipe.
#  2. rapidsnark's src/main_prover.cpp, unchanged, compiled and linked with
#     `pkg-config rapidsnark`. It also needs rapidsnark's fileloader.hpp/.cpp
#     (BinFileUtils::FileLoader, which rapidsnark does not install): those
#     two files are compiled from the checkout, nothing else of it. The
#     program proves the same witness; ldd and snarkjs as above.
#  3. With RAPIDSNARK_LIB=<dir holding rapidsnark's own librapidsnark.so>
#     (built from the checkout outside this repository), peak RSS of one
#     proof through groth16_prover (tests/libproofpipe/rss_probe.c) on a
#     2^16 BN254 key from `proofpipe gen`, linked once to each library,
#     alternating, RUNS times each (default 3), by /usr/bin/time -v.
#
# Environment: BUILD (default build; must hold the proofpipe and libproofpipe
# targets), GO (default go), RUNS. Work files go to a temporary directory
# (kept and named with KEEP=1); Go's caches there too (GOPATH, GOCACHE).
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 <go-rapidsnark checkout> <rapidsnark checkout>" >&2; exit 2; }
gors=$(readlink -f "$1")
rs=$(readlink -f "$2")
root=$(pwd)
build=$(readlink -f "${BUILD:-build}")
go=${GO:-go}
data=$root/tests/data/multi_io_bn128
snarkjs=(node "$root/node_modules/snarkjs/build/cli.cjs")
[[ -f $gors/prover/rapidsnark.go && -f $gors/types/go.mod ]] || { echo "$gors: not a go-rapidsnark checkout" >&2; exit 2; }
[[ -f $rs/src/main_prover.cpp && -f $rs/src/fileloader.cpp ]] || { echo "$rs: not a rapidsnark checkout" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rapidsnark-callers-XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then echo "work files: $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
log() { echo "== $*"; }

cmake --install "$build" --prefix "$tmp/prefix" --component libproofpipe >/dev/null
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
[[ -f $PKG_CONFIG_PATH/rapidsnark.pc ]] || PKG_CONFIG_PATH=$(dirname "$(find "$tmp/prefix" -name rapidsnark.pc)")
libdir=$(pkg-config --variable=libdir rapidsnark)
unset LD_LIBRARY_PATH

# loads_proofpipe <program>: ldd resolves libproofpipe.so.0 to the prefix's.
loads_proofpipe() {
  local got
  got=$(ldd "$1" | awk '$1 == "libproofpipe.so.0" {print $3}')
  ldd "$1" | grep -E 'proofpipe|rapidsnark' || true
  [[ -n $got && $(readlink -f "$got") == $(readlink -f "$libdir/libproofpipe.so.0") ]]
}
verify() {
  "${snarkjs[@]}" groth16 verify "$data/verification_key.json" "$1/public.json" "$1/proof.json" | tee "$1/verify.txt"
  grep -q "OK!" "$1/verify.txt"
}

# --- 1. go-rapidsnark -------------------------------------------------------
log "go-rapidsnark: $("$go" version)"
export GOPATH=$tmp/gopath GOCACHE=$tmp/gocache GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
mkdir -p "$tmp/goprove"
cat >"$tmp/goprove/go.mod" <<MOD
module ppcheck/goprove

go 1.18

require github.com/iden3/go-rapidsnark/prover v0.0.0

replace github.com/iden3/go-rapidsnark/prover => $gors/prover

replace github.com/iden3/go-rapidsnark/types => $gors/types
MOD
cat >"$tmp/goprove/main.go" <<'GO'
// goprove <circuit.zkey> <witness.wtns> <out dir>: one proof through
// go-rapidsnark's prover.Groth16ProverRaw, written as proof.json and public.json.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/iden3/go-rapidsnark/prover"
)

func main() {
	zkey, err := os.ReadFile(os.Args[1])
	if err == nil {
		var wtns []byte
		if wtns, err = os.ReadFile(os.Args[2]); err == nil {
			var proof, public string
			if proof, public, err = prover.Groth16ProverRaw(zkey, wtns); err == nil {
				err = os.WriteFile(filepath.Join(os.Args[3], "proof.json"), []byte(proof), 0o644)
				if err == nil {
					err = os.WriteFile(filepath.Join(os.Args[3], "public.json"), []byte(public), 0o644)
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goprove:", err)
		os.Exit(1)
	}
}
GO
CGO_CFLAGS="$(pkg-config --cflags rapidsnark-ulong)"
CGO_LDFLAGS="$(pkg-config --libs rapidsnark-ulong)"
export CGO_CFLAGS CGO_LDFLAGS CGO_ENABLED=1
log "CGO_CFLAGS=$CGO_CFLAGS"
log "CGO_LDFLAGS=$CGO_LDFLAGS"
(cd "$tmp/goprove" && "$go" build -tags dynamic -o "$tmp/goprove/goprove" .)
loads_proofpipe "$tmp/goprove/goprove" || { echo "goprove (-tags dynamic) does not load libproofpipe" >&2; exit 1; }
mkdir -p "$tmp/go-out"
"$tmp/goprove/goprove" "$data/circuit.zkey" "$data/w00.wtns" "$tmp/go-out"
verify "$tmp/go-out"
log "go-rapidsnark without -tags dynamic and without the cgo flags (the trap)"
if (cd "$tmp/goprove" && env -u CGO_CFLAGS -u CGO_LDFLAGS "$go" build -o "$tmp/goprove/goprove_vendored" .) \
  2>"$tmp/vendored.log"; then
  if loads_proofpipe "$tmp/goprove/goprove_vendored"; then
    echo "goprove without -tags dynamic loads libproofpipe: the trap is gone?" >&2
    exit 1
  fi
  echo "built, and does NOT load libproofpipe: go-rapidsnark's vendored rapidsnark is inside"
else
  echo "the build failed (tail of its log):"
  tail -5 "$tmp/vendored.log"
fi
# With the cgo flags but no tag, both the vendored archive and -lrapidsnark
# are on the link line and the linker's order decides: reported, not relied on.
if (cd "$tmp/goprove" && "$go" build -o "$tmp/goprove/goprove_mixed" .) 2>/dev/null; then
  if loads_proofpipe "$tmp/goprove/goprove_mixed" >/dev/null; then
    echo "with the cgo flags but no -tags dynamic: this toolchain's link happened to load libproofpipe"
  else
    echo "with the cgo flags but no -tags dynamic: the vendored rapidsnark, not libproofpipe"
  fi
fi

# --- 2. rapidsnark's main_prover.cpp ----------------------------------------
log "rapidsnark main_prover.cpp against pkg-config rapidsnark"
# Copied alone into their own folders so that its #include "prover.h" cannot
# find rapidsnark's own header beside it: it must come from pkg-config's -I.
mkdir -p "$tmp/main_prover" "$tmp/fileloader"
cp "$rs/src/main_prover.cpp" "$tmp/main_prover/"
cp "$rs/src/fileloader.hpp" "$rs/src/fileloader.cpp" "$tmp/fileloader/"
cmp "$rs/src/main_prover.cpp" "$tmp/main_prover/main_prover.cpp"
c++ -std=c++17 -O2 $(pkg-config --cflags rapidsnark) -I"$tmp/fileloader" -MD -MF "$tmp/main_prover/deps.d" \
  -c -o "$tmp/main_prover/main_prover.o" "$tmp/main_prover/main_prover.cpp"
c++ -std=c++17 -O2 -c -o "$tmp/fileloader/fileloader.o" "$tmp/fileloader/fileloader.cpp"
c++ -o "$tmp/main_prover/prover" "$tmp/main_prover/main_prover.o" "$tmp/fileloader/fileloader.o" \
  $(pkg-config --libs rapidsnark)
grep -o '[^ ]*prover\.h' "$tmp/main_prover/deps.d" | sort -u
grep -q "$(pkg-config --variable=includedir rapidsnark)/proofpipe/prover.h" "$tmp/main_prover/deps.d" ||
  { echo "main_prover.cpp did not include proofpipe's prover.h" >&2; exit 1; }
loads_proofpipe "$tmp/main_prover/prover" || { echo "main_prover does not load libproofpipe" >&2; exit 1; }
mkdir -p "$tmp/cpp-out"
"$tmp/main_prover/prover" "$data/circuit.zkey" "$data/w00.wtns" "$tmp/cpp-out/proof.json" "$tmp/cpp-out/public.json"
verify "$tmp/cpp-out"

# --- 3. peak RSS beside rapidsnark ------------------------------------------
if [[ -z ${RAPIDSNARK_LIB:-} ]]; then
  log "RAPIDSNARK_LIB not set: no RSS comparison"
  echo "check_rapidsnark_callers: all checks passed"
  exit 0
fi
log "peak RSS, groth16_prover on a 2^16 BN254 key ($(lscpu | sed -n 's/^Model name: *//p'))"
"$build/bin/proofpipe" gen --curve bn128 --constraints 65532 --partitions 1 --out "$tmp/k16" >/dev/null 2>&1
probe=$root/tests/libproofpipe/rss_probe.c
cc -std=c11 -O2 -o "$tmp/rss_proofpipe" "$probe" $(pkg-config --cflags --libs rapidsnark)
cc -std=c11 -O2 -o "$tmp/rss_rapidsnark" "$probe" -I"$rs/src" -L"$RAPIDSNARK_LIB" -Wl,-rpath,"$RAPIDSNARK_LIB" \
  -lrapidsnark -lgmp -lstdc++ -fopenmp
loads_proofpipe "$tmp/rss_proofpipe"
for ((i = 1; i <= ${RUNS:-3}; i++)); do
  for lib in rapidsnark proofpipe; do
    /usr/bin/time -v "$tmp/rss_$lib" oneshot "$tmp/k16/circuit.zkey" "$tmp/k16/w00.wtns" 2>"$tmp/time.txt" >/dev/null
    printf '%-10s run %d: max RSS %s KiB, %s s\n' "$lib" "$i" \
      "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time.txt")" \
      "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time.txt")"
  done
done
echo "check_rapidsnark_callers: all checks passed"
