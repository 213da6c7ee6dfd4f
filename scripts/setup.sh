#!/usr/bin/env bash
# Installs what proofpipe needs to build and test on a fresh Debian 12 machine:
# the Debian -dev packages and the pinned npm tools (snarkjs, circom2, circomlib
# from package-lock.json). Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(build-essential cmake ninja-build pkg-config git
      libboost-dev libzmq3-dev cppzmq-dev libspdlog-dev libfmt-dev
      libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
      libgmp-dev libsqlite3-dev libcpp-httplib-dev libpqxx-dev postgresql
      dpkg-dev file  # scripts/package.sh (cpack -G DEB and its dpkg-shlibdeps)
      qemu-user  # older CPUs emulated: the portable build's tests (tests/cli/portable_test.cpp, scripts/check_portable.sh)
      nasm  # circom --c witness generators (tests build the fixture's; docs/witness-gen.md)
      clang-14 libfuzzer-14-dev  # the sanitizer and fuzz build (scripts/sanitize.sh, scripts/fuzz.sh)
      nodejs npm python3 python3-matplotlib python3-prometheus-client)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from elsewhere than Debian (as on the dev machines): accept them.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]:-}"
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

# npm tools, pinned by package-lock.json; reinstall only when the lock changed.
stamp=node_modules/.proofpipe-lock.sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: npm ci (snarkjs, circom2, circomlib)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
else
  echo "setup: npm packages present"
fi
