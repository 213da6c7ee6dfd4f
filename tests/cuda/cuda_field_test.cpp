// Fr and Fq on the device against the host, bit for bit: the 32-bit PTX
// kernels (mul, sqr, add, sub), Field's *, sqr(), +, - as device code
// dispatches them, and the portable 64-bit product on the device, on 100k+
// random pairs plus edge values. Then the device multiplication rate of both paths,
// printed and recorded (docs/design/numbers.md §4 floors: 6.3e10 Fr, 2.8e10 Fq mul/s).
// Every test skips without a device.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "proofpipe/cuda/field_ops.hpp"
#include "support/field_text.hpp"
#include "support/gmp_ref.hpp"
#include "support/gpu.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fr;
using cuda::FieldOp;

template <class F>
Status run_batch(FieldOp op, const std::vector<F>& a, const std::vector<F>& b, std::vector<F>& out) {
  out.assign(a.size(), F::zero());
  if constexpr (F::N == 4) {
    return cuda::fr_batch(op, a.data(), b.data(), out.data(), a.size());
  } else {
    return cuda::fq_batch(op, a.data(), b.data(), out.data(), a.size());
  }
}

template <class F>
void run_ok(FieldOp op, const std::vector<F>& a, const std::vector<F>& b, std::vector<F>& out) {
  const Status st = run_batch(op, a, b, out);
  ASSERT_TRUE(st.is_ok()) << cuda::field_op_name(op) << ": " << st.to_string();
}

// Raw Montgomery edge limbs: 0, 1, 2, p-1, p-2, the Montgomery one, 2^k and
// 2^k +- 1 mod p, p - 2^k.
template <class F>
std::vector<F> edges() {
  const mpz_class p = modulus_of<F>();
  std::vector<mpz_class> v = {0, 1, 2, p - 1, p - 2, (p - 1) / 2, to_mpz<F::N>(F::one().mont())};
  for (unsigned k = 1; k < 64 * F::N; k += 5) {
    const mpz_class t = mpz_class(1) << k;
    v.push_back(t % p);
    v.push_back((t - 1) % p);
    v.push_back((t + 1) % p);
    if (t < p) v.push_back(p - t);
  }
  std::vector<F> out;
  for (const mpz_class& z : v) out.push_back(F::from_mont(from_mpz<F::N>(z)));
  return out;
}

// a and b: every edge against every edge, then random pairs up to n.
template <class F, class Rng>
void make_inputs(Rng& rng, size_t n, std::vector<F>& a, std::vector<F>& b) {
  const std::vector<F> e = edges<F>();
  for (const F& x : e) {
    for (const F& y : e) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  while (a.size() < n) {
    a.push_back(F::random(rng));
    b.push_back(F::random(rng));
  }
}

template <class F>
class CudaFieldTest : public ::testing::Test {};
using CudaFieldTypes = ::testing::Types<Fr, Fq>;
TYPED_TEST_SUITE(CudaFieldTest, CudaFieldTypes);

// Every device operation against its host twin on the same inputs.
template <class F>
void expect_ops_match_host(FieldOp mul, FieldOp sqr, FieldOp add, FieldOp sub, const std::vector<F>& a,
                           const std::vector<F>& b) {
  std::vector<F> out;
  const size_t n = a.size();
  ASSERT_NO_FATAL_FAILURE(run_ok(mul, a, b, out));
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] * b[i]) << "mul i=" << i << " a=" << show(a[i]) << " b=" << show(b[i]);
  ASSERT_NO_FATAL_FAILURE(run_ok(sqr, a, b, out));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i].sqr()) << "sqr i=" << i << " a=" << show(a[i]);
  ASSERT_NO_FATAL_FAILURE(run_ok(add, a, b, out));
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] + b[i]) << "add i=" << i << " a=" << show(a[i]) << " b=" << show(b[i]);
  ASSERT_NO_FATAL_FAILURE(run_ok(sub, a, b, out));
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] - b[i]) << "sub i=" << i << " a=" << show(a[i]) << " b=" << show(b[i]);
}

// The PTX kernels called directly.
TYPED_TEST(CudaFieldTest, PtxMatchesHost) {
  using F = TypeParam;
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  std::vector<F> a, b;
  make_inputs(rng, 120'001, a, b);
  ASSERT_NO_FATAL_FAILURE(expect_ops_match_host(FieldOp::kMul, FieldOp::kSqr, FieldOp::kAdd, FieldOp::kSub, a, b));
}

// Field's operators in device code (the dispatch of field.hpp).
TYPED_TEST(CudaFieldTest, OperatorsMatchHost) {
  using F = TypeParam;
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  std::vector<F> a, b;
  make_inputs(rng, 100'003, a, b);
  ASSERT_NO_FATAL_FAILURE(expect_ops_match_host(FieldOp::kMulOperator, FieldOp::kSqrOperator, FieldOp::kAddOperator,
                                                FieldOp::kSubOperator, a, b));
}

// The device's portable product and its dispatched operator* agree with the
// PTX kernel (and so with the host) on the same inputs.
TYPED_TEST(CudaFieldTest, PtxMatchesPortableOnDevice) {
  using F = TypeParam;
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  std::vector<F> a, b, ptx, portable, op;
  make_inputs(rng, 100'003, a, b);
  ASSERT_NO_FATAL_FAILURE(run_ok(FieldOp::kMul, a, b, ptx));
  ASSERT_NO_FATAL_FAILURE(run_ok(FieldOp::kMulPortable, a, b, portable));
  ASSERT_NO_FATAL_FAILURE(run_ok(FieldOp::kMulOperator, a, b, op));
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(ptx[i], portable[i]) << "i=" << i << " a=" << show(a[i]) << " b=" << show(b[i]);
    ASSERT_EQ(op[i], portable[i]) << "i=" << i << " a=" << show(a[i]) << " b=" << show(b[i]);
  }
}

// fr_mul_batch (Field::operator* on the device) against the host.
TEST(CudaField, FrMulBatchMatchesHost) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  const size_t n = 100'003;
  std::vector<Fr> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = Fr::random(rng);
    b[i] = Fr::random(rng);
  }
  a[0] = Fr::zero();
  b[1] = -Fr::one();
  ASSERT_TRUE(cuda::fr_mul_batch(a.data(), b.data(), out.data(), n).is_ok());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] * b[i]) << "i=" << i;
}

// Device multiplications per second, PTX and portable, for Fr and Fq:
// printed and recorded as test properties (no thresholds: the numbers are
// measurements for docs/design/numbers.md §4, not a pass criterion).
TEST(CudaField, MulRate) {
  PP_REQUIRE_DEVICE();
  struct Case {
    const char* name;
    cuda::FieldKind kind;
    cuda::MulPath path;
    double floor;  // docs/design/numbers.md §4, mul/s
  };
  const Case cases[] = {{"fr_ptx", cuda::FieldKind::kFr, cuda::MulPath::kPtx, 6.3e10},
                        {"fr_portable", cuda::FieldKind::kFr, cuda::MulPath::kPortable, 6.3e10},
                        {"fq_ptx", cuda::FieldKind::kFq, cuda::MulPath::kPtx, 2.8e10},
                        {"fq_portable", cuda::FieldKind::kFq, cuda::MulPath::kPortable, 2.8e10}};
  for (const Case& c : cases) {
    Result<double> rate = cuda::time_mul_rate(c.kind, c.path);
    ASSERT_TRUE(rate.is_ok()) << c.name << ": " << rate.status().to_string();
    std::printf("[ rate     ] %-12s %.3e mul/s (%.0f%% of the %.1e floor)\n", c.name, *rate, 100.0 * *rate / c.floor,
                c.floor);
    ::testing::Test::RecordProperty(std::string(c.name) + "_mul_per_s", std::to_string(*rate));
    EXPECT_GT(*rate, 0.0);
  }
}

}  // namespace
}  // namespace proofpipe::test
