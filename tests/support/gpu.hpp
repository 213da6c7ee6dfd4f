// The device gate of the gpu-labelled tests. Without a usable CUDA device a
// test skips (CPU-only CI stays green) and says why in the runtime's words;
// with PP_REQUIRE_GPU=1 (set by scripts/device_check.sh on a lent GPU) it
// fails instead, so a driver or image problem cannot pass as 40 skips.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "proofpipe/cuda/device.hpp"

namespace proofpipe::test {

inline bool gpu_required() {
  const char* v = std::getenv("PP_REQUIRE_GPU");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace proofpipe::test

#define PP_REQUIRE_DEVICE()                                                            \
  do {                                                                                 \
    if (::proofpipe::cuda::device_count() == 0) {                                      \
      const std::string why = ::proofpipe::cuda::no_device_reason();                   \
      if (::proofpipe::test::gpu_required()) FAIL() << "PP_REQUIRE_GPU=1 but " << why; \
      GTEST_SKIP() << "no CUDA device (" << why << ")";                                \
    }                                                                                  \
  } while (0)
