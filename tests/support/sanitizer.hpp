// Tests that measure a process's memory against a tight cap cannot run in a
// sanitizer build (-DPP_SANITIZE, scripts/sanitize.sh): ASan's shadow,
// redzones and quarantine raise every process's resident memory several
// times over (a synthesis worker that fits 8 MiB in the release build is
// OOM-killed at it), and TSan's shadow likewise. Such a test skips itself
// there with this reason; it runs in every release build.
#pragma once

#include <gtest/gtest.h>

#if defined(PP_SANITIZE_ADDRESS) || defined(PP_SANITIZE_THREAD)
#define PP_SKIP_UNDER_MEMORY_SANITIZER()                                                                 \
  GTEST_SKIP() << "a sanitizer build: its shadow memory and quarantine break the memory caps this test " \
                  "measures (the release build runs it)"
#else
#define PP_SKIP_UNDER_MEMORY_SANITIZER() static_cast<void>(0)
#endif
