// GPU twin of the host Fr multiply: skips without a device, must match the
// host bit for bit with one.
#include <gtest/gtest.h>

#include <vector>

#include "proofpipe/cuda/probe.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(CudaProbe, FrMulMatchesHost) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  PP_SEEDED_RNG(rng);
  const size_t n = 100'003;
  std::vector<ff::Fr> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = ff::Fr::random(rng);
    b[i] = ff::Fr::random(rng);
  }
  a[0] = ff::Fr::zero();
  b[1] = -ff::Fr::one();
  ASSERT_TRUE(cuda::fr_mul_batch(a.data(), b.data(), out.data(), n).is_ok());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] * b[i]) << "i=" << i;
}

}  // namespace
}  // namespace proofpipe::test
