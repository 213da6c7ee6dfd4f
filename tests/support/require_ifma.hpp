// PP_REQUIRE_IFMA_CPU(): for tests that compare the scalar path with the
// eight-lane IFMA one in the same process (ScopedSimdPath). Prints whether the
// CPU has AVX-512 F/VL/IFMA and skips the test, saying why, when it has not.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>

#include "proofpipe/ff/ifma/dispatch.hpp"

#define PP_REQUIRE_IFMA_CPU()                                                                  \
  do {                                                                                         \
    std::printf("[ simd     ] cpu_has_ifma=%d\n", int(::proofpipe::ff::ifma::cpu_has_ifma())); \
    if (!::proofpipe::ff::ifma::cpu_has_ifma())                                                \
      GTEST_SKIP() << "this CPU or OS lacks AVX-512 F/VL/IFMA: nothing to compare";            \
  } while (0)
