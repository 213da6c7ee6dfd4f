// The skip macros of the IFMA tests. PP_REQUIRE_IFMA_CPU(): for tests that
// compare the scalar path with the eight-lane IFMA one in the same process
// (ScopedSimdPath); PP_REQUIRE_IFMA(): for tests of the path this process
// would take (PROOFPIPE_SIMD=off skips them). Both print what they found and
// say why they skip.
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

// Skips the calling test unless the IFMA path may run; logs the path.
#define PP_REQUIRE_IFMA()                                                                                              \
  do {                                                                                                                 \
    const ::proofpipe::ff::ifma::SimdPath path = ::proofpipe::ff::ifma::detect_simd_path();                            \
    std::printf("[ simd     ] path: %s\n", ::proofpipe::ff::ifma::simd_path_name(path));                               \
    if (path != ::proofpipe::ff::ifma::SimdPath::kIfma)                                                                \
      GTEST_SKIP() << (::proofpipe::ff::ifma::cpu_has_ifma() ? "PROOFPIPE_SIMD=off forces the scalar path"             \
                                                             : "this CPU or OS lacks AVX-512 F/VL/IFMA: scalar only"); \
  } while (0)
