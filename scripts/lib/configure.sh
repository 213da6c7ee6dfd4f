# shellcheck shell=bash
# The one build configuration of build/ (sourced, not run): scripts/demo.sh
# and scripts/test.sh both configure it through pp_configure, so the demo's
# build is the one the tests reuse (a flag that differed between them, as
# PP_STRICT once did, would recompile every file when the second one ran).
# scripts/package.sh starts from the same flags in a build dir of its own.
#   pp_configure <build dir> [extra cmake arguments...]
pp_configure() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPP_STRICT=ON "$@"
}
