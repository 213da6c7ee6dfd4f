// Linked into every test binary: the proofpipe processes a test starts log
// at info, the level the assertions on their log lines ("worker cgroups
// under ...", a fault point's spike, the stale-ring clean-up) were written
// for, unless the environment names a level. The default (warn: quiet on
// success) is judged by tests/cli/quiet_test.cpp, which removes the variable
// from the commands it runs.
#include <cstdlib>

namespace {

[[maybe_unused]] const bool kInfoForChildren = [] {
  ::setenv("PROOFPIPE_LOG", "info", /*overwrite=*/0);
  return true;
}();

}  // namespace
