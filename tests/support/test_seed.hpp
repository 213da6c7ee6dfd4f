// Seeds for randomised tests: PP_TEST_SEED=<n> replays a run; otherwise a fresh
// seed is drawn. Every test that uses one prints it (and records it in the
// XML report), so a failure names the seed that reproduces it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace proofpipe::test {

inline uint64_t test_seed() {
  uint64_t seed;
  if (const char* env = std::getenv("PP_TEST_SEED")) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[ seed     ] %s.%s PP_TEST_SEED=%llu\n", info ? info->test_suite_name() : "?", info ? info->name() : "?",
              static_cast<unsigned long long>(seed));
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

// A seeded 64-bit generator; the seed is logged as above.
inline std::mt19937_64 seeded_rng() { return std::mt19937_64(test_seed()); }

}  // namespace proofpipe::test

// Puts the seed into every assertion failure message of the enclosing scope.
#define PP_SEEDED_RNG(rng)                                    \
  const uint64_t rng##_seed = ::proofpipe::test::test_seed(); \
  std::mt19937_64 rng(rng##_seed);                            \
  SCOPED_TRACE(::testing::Message() << "PP_TEST_SEED=" << rng##_seed)
