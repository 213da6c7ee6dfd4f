#!/usr/bin/env bash
# Builds the Debian package proofpipe_<version>_<arch>.deb (cmake/Packaging.cmake
# says what it holds) in a build dir of its own, build-pkg/, from the flags
# demo.sh and test.sh use (scripts/lib/configure.sh) plus those a package
# needs: the /usr prefix (libraries in /usr/lib/<multiarch>), a portable
# build (PP_NATIVE=OFF: no -march=native of the build machine), no tests or
# benchmarks. Prints the .deb's path last.
#
# The CUDA backend is built when nvcc is found, with the CUDA runtime linked
# statically (cuda/CMakeLists.txt), so the package depends on nothing
# NVIDIA's and runs on the CPU where no driver is installed; the check
# below refuses a package whose Depends says otherwise.
# PP_PACKAGE_CUDA=OFF packs a build without the backend; PP_PACKAGE_BUILD
# names another build dir.
#   scripts/package.sh            then   scripts/check_package.sh build-pkg/proofpipe_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/configure.sh
source scripts/lib/configure.sh

dir=${PP_PACKAGE_BUILD:-build-pkg}
for tool in cpack dpkg-shlibdeps dpkg-deb file; do
  command -v "$tool" >/dev/null || {
    echo "package.sh: $tool is missing (scripts/setup.sh installs it; apt-get install dpkg-dev file)" >&2
    exit 2
  }
done
launcher=()
if command -v ccache >/dev/null; then
  for lang in C CXX CUDA; do launcher+=("-DCMAKE_${lang}_COMPILER_LAUNCHER=ccache"); done
fi
pp_configure "$dir" -DCMAKE_INSTALL_PREFIX=/usr -DPP_NATIVE=OFF -DPP_BUILD_TESTS=OFF -DPP_BUILD_BENCH=OFF \
  -DPP_CUDA="${PP_PACKAGE_CUDA:-AUTO}" "${launcher[@]}"
cmake --build "$dir" -j "$(nproc)"
rm -f "$dir"/proofpipe_*.deb
(cd "$dir" && cpack -G DEB)

deb=$(ls "$dir"/proofpipe_*.deb)
depends=$(dpkg-deb --field "$deb" Depends)
echo "package.sh: Depends: $depends"
if grep -Eqi 'cuda|nvidia' <<<"$depends"; then
  echo "package.sh: $deb depends on a CUDA or NVIDIA package" >&2
  exit 1
fi
echo "$deb"
