#!/usr/bin/env bash
# Checks the Debian package (scripts/package.sh) on a fresh Debian 12 with
# no NVIDIA packages: a debootstrap chroot (minbase), made on the first run
# and reused after (the package is purged first, so every run installs it
# anew). Inside it:
#   1. `apt install ./proofpipe_*.deb` pulls the dependencies from Debian;
#      no package or library of NVIDIA's is present afterwards;
#   2. `proofpipe demo` proves and verifies the bundled circuit through the
#      installed executables (it finds the circuit relative to /usr/bin);
#   3. `serve --queue postgresql://` loads the installed queue module (it
#      gets as far as connecting, to a port where nothing listens);
#   4. the installed systemd unit starts the installed executable;
#   5. tests/libproofpipe/c_client.c, built with cc and pkg-config alone
#      (rapidsnark.pc when the package has it, else proofpipe.pc), proves
#      the bundled fixtures of both curves, and `proofpipe verify` accepts
#      the proofs it wrote.
# Needs root and the network (debootstrap, apt): not a CI test.
#   scripts/check_package.sh <proofpipe_*.deb> [chroot dir, default /tmp/proofpipe-deb12]
# PP_DEBIAN_MIRROR picks the mirror (default http://deb.debian.org/debian).
set -euo pipefail
[[ $# -ge 1 && -f $1 ]] || {
  echo "usage: scripts/check_package.sh <proofpipe_*.deb> [chroot dir]" >&2
  exit 2
}
deb=$(realpath "$1")
root=$(realpath -m "${2:-/tmp/proofpipe-deb12}")
src=$(cd "$(dirname "$0")/.." && pwd)
mirror=${PP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
log() { echo "== check_package: $*"; }

if [[ ! -x $root/usr/bin/apt-get ]]; then
  log "debootstrap bookworm into $root ($mirror)"
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi

# proc, sys, /dev/pts (apt's log) and a fresh /dev/shm (the ring lives
# there) for the chroot's lifetime; unmounted on any exit, innermost first.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT
mount_in() { # mount_in TYPE DIR [options]
  mkdir -p "$root/$2"
  mount -t "$1" "${3:-$1}" "$root/$2" ${4:+-o "$4"}
  mounted+=("$root/$2")
}
mount_in proc proc
mount_in sysfs sys
mount_in devpts dev/pts devpts newinstance,ptmxmode=0666
mount_in tmpfs dev/shm tmpfs mode=1777
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "$1"; }

# What the checks read, in a folder of their own inside the chroot.
work=$root/tmp/pp-check
rm -rf "$work"
mkdir -p "$work/data"
cp "$deb" "$work/"
cp "$src/tests/libproofpipe/c_client.c" "$work/"
# c_client's arguments: a key with w00..w03, and a witness of another circuit.
for d in multi_io multi_io_bn128; do
  mkdir -p "$work/data/$d"
  cp "$src/tests/data/$d"/{circuit.zkey,verification_key.json,w00.wtns,w01.wtns,w02.wtns,w03.wtns} "$work/data/$d/"
done
for d in sparse_dense sparse_dense_bn128; do
  mkdir -p "$work/data/$d"
  cp "$src/tests/data/$d/w00.wtns" "$work/data/$d/"
done

log "1. apt install ./$(basename "$deb")"
in_root "dpkg -s proofpipe >/dev/null 2>&1 && apt-get purge -y -qq proofpipe >/dev/null; apt-get update -qq"
in_root "cd /tmp/pp-check && apt install -y -q ./$(basename "$deb")"
if in_root "dpkg -l | grep -Ei '^ii +[^ ]*(nvidia|cuda)'"; then
  echo "check_package: NVIDIA or CUDA packages are installed in the chroot" >&2
  exit 1
fi
if in_root "ldconfig -p | grep -Ei 'libcuda|libcudart|libnvidia'"; then
  echo "check_package: a CUDA library is visible in the chroot" >&2
  exit 1
fi
in_root "dpkg -L proofpipe | grep -E '/usr/lib/systemd/system/proofpipe.service$|\.pc$|/libproofpipe\.so|proofpipe_queue_pg\.so$|/usr/include/|/usr/share/doc/proofpipe/README.md$' | sort"

log "2. proofpipe demo"
in_root "cd /tmp/pp-check && proofpipe --version && proofpipe demo --out /tmp/pp-check/demo"

log "3. serve --queue postgresql:// loads the queue module"
out=$(in_root "timeout 60 proofpipe serve --key c=/tmp/pp-check/data/multi_io/circuit.zkey \
  --queue postgresql://nobody@127.0.0.1:1/none --state-dir /tmp/pp-check/state --listen 127.0.0.1:0 2>&1" || true)
echo "$out"
grep -q 'cannot connect' <<<"$out" || {
  echo "check_package: serve --queue did not reach PostgreSQL (module not loaded?)" >&2
  exit 1
}

log "4. the systemd unit"
in_root "exec_start=\$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' /usr/lib/systemd/system/proofpipe.service) &&
  echo \"ExecStart: \$exec_start\" && test -x \"\$exec_start\" && test \"\$exec_start\" = /usr/bin/proofpipe"

log "5. a C client built with pkg-config"
in_root "apt-get install -y -qq --no-install-recommends gcc libc6-dev pkg-config >/dev/null"
in_root "cd /tmp/pp-check && pc=proofpipe && if pkg-config --exists rapidsnark; then pc=rapidsnark; fi &&
  echo \"pkg-config \$pc: \$(pkg-config --cflags --libs \$pc)\" &&
  cc -std=c11 -Wall -Wextra -Werror -o c_client c_client.c \$(pkg-config --cflags --libs \$pc) -pthread &&
  ldd c_client | grep -E 'proofpipe|rapidsnark' &&
  for c in multi_io multi_io_bn128; do
    wrong=data/sparse_dense/w00.wtns; [[ \$c == *bn128 ]] && wrong=data/sparse_dense_bn128/w00.wtns
    mkdir -p out/\$c
    ./c_client data/\$c/circuit.zkey data/\$c \$wrong data/\$c/verification_key.json out/\$c
    proofpipe verify data/\$c/verification_key.json out/\$c/public.json out/\$c/proof.json
  done"
log "all checks passed in $root"
