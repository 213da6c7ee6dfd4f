# Sourced by libproofpipe's shell tests with their arguments (<build dir>
# <source dir>): installs the library's component into a temporary prefix,
# as a user would (cmake --install --component libproofpipe), and points
# pkg-config at it. Sets build, src, data, snarkjs (an array), tmp (removed
# on exit), libdir and PKG_CONFIG_PATH.
build=$1
src=$2
data=$src/tests/data
snarkjs=(node "$src/node_modules/snarkjs/build/cli.cjs")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libproofpipe-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component libproofpipe >/dev/null
pc=$(find "$tmp/prefix" -name rapidsnark.pc)
[[ -n $pc ]] || { echo "no rapidsnark.pc installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir rapidsnark)
