// GPU twin of the CPU NTT: cuda::ntt (all three ops) and cuda::compute_h
// against ntt::DomainT / ntt::compute_h_odd_coset, bit for bit, random inputs
// (seed logged), every size 2^0..2^20 (compute_h: all up to 2^16, then 2^18
// and 2^20). Skips without a device. Also bad sizes and a timing smoke run.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "proofpipe/cuda/device.hpp"
#include "proofpipe/cuda/ntt.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/gpu.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fr;

std::vector<Fr> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

// First mismatch index, or -1.
long first_diff(const std::vector<Fr>& a, const std::vector<Fr>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return long(i);
  return -1;
}

TEST(CudaNtt, AllOpsMatchCpuUpTo2e20) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= 20; ++k) {
    const ntt::DomainT<bls12_381::Fr>& d = ntt::DomainT<bls12_381::Fr>::get(k);
    const std::vector<Fr> in = random_vec(size_t(1) << k, rng);
    for (cuda::NttOp op : {cuda::NttOp::kForward, cuda::NttOp::kInverse, cuda::NttOp::kEvalsToOddCoset}) {
      std::vector<Fr> want = in, got = in;
      switch (op) {
        case cuda::NttOp::kForward: d.ntt(want); break;
        case cuda::NttOp::kInverse: d.intt(want); break;
        case cuda::NttOp::kEvalsToOddCoset: d.evals_to_odd_coset(want); break;
      }
      const Status st = cuda::ntt(got, op);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      ASSERT_EQ(first_diff(got, want), -1) << "k=" << k << " op=" << int(op);
    }
  }
}

TEST(CudaNtt, InverseUndoesForward) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  for (unsigned k : {1u, 11u, 21u}) {
    const std::vector<Fr> in = random_vec(size_t(1) << k, rng);
    std::vector<Fr> x = in;
    ASSERT_TRUE(cuda::ntt(x, cuda::NttOp::kForward).is_ok());
    ASSERT_TRUE(cuda::ntt(x, cuda::NttOp::kInverse).is_ok());
    EXPECT_EQ(first_diff(x, in), -1) << "k=" << k;
  }
}

TEST(CudaNtt, ComputeHMatchesCpu) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  std::vector<unsigned> sizes;
  for (unsigned k = 0; k <= 16; ++k) sizes.push_back(k);
  sizes.push_back(18);
  sizes.push_back(20);
  for (unsigned k : sizes) {
    const size_t n = size_t(1) << k;
    std::vector<Fr> a = random_vec(n, rng), b = random_vec(n, rng), c = random_vec(n, rng);
    if (k % 2 == 0) {  // half the sizes: a satisfied system, c = a*b on the domain
      for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    }
    std::vector<Fr> wa = a, wb = b, wc = c;
    ntt::compute_h_odd_coset<Fr>(wa, wb, wc);
    const Status st = cuda::compute_h(a, b, c);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    ASSERT_EQ(first_diff(a, wa), -1) << "k=" << k;
  }
}

TEST(CudaNtt, RejectsBadSizes) {
  PP_REQUIRE_DEVICE();
  std::vector<Fr> x(3), y(4), z(8);
  EXPECT_EQ(cuda::ntt(x, cuda::NttOp::kForward).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(cuda::ntt(std::span<Fr>(), cuda::NttOp::kForward).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(cuda::compute_h(y, y, z).code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(cuda::time_ntt_ms(29, cuda::NttOp::kForward, 1).is_ok());
}

// Not a benchmark: the timing entry points run and give positive numbers,
// printed for the log (2^20 and 2^24, a few reps).
TEST(CudaNtt, TimingsRun) {
  PP_REQUIRE_DEVICE();
  for (unsigned k : {20u, 24u}) {
    auto f = cuda::time_ntt_ms(k, cuda::NttOp::kForward, 3);
    ASSERT_TRUE(f.is_ok()) << f.status().to_string();
    auto h = cuda::time_compute_h_ms(k, 3);
    ASSERT_TRUE(h.is_ok()) << h.status().to_string();
    EXPECT_GT(*f, 0.0);
    EXPECT_GT(*h, 0.0);
    std::printf("[ timing   ] 2^%u: ntt %.3f ms, compute_h %.3f ms\n", k, *f, *h);
  }
}

}  // namespace
}  // namespace proofpipe::test
