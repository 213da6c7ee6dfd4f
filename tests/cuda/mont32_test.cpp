// The device field kernels' algorithm (ff/detail/mont32.hpp), run on the host
// through the emulated instruction layer EmuIsa: Montgomery product, square,
// sum and difference on 32-bit words against GMP and against Field<P>'s own
// operators (x86 asm or portable C++), bit for bit on raw Montgomery limbs.
// Fr and Fq, plus moduli with no headroom to spare (p just below 2^(32W-1),
// and just below 2^(32W-2) where the dedicated square applies) so the carry
// bounds the kernels rely on are hit at their edge.
#include <gtest/gtest.h>

#include <gmpxx.h>

#include <cstdio>
#include <string>
#include <vector>

#include "proofpipe/cuda/field_ops.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/detail/mont_ptx.hpp"
#include "support/field_text.hpp"
#include "support/gmp_ref.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fq;
using bls12_381::Fr;

// Odd moduli as large as the 32-bit kernels allow (top word 0x7ffffffe, the
// rest all ones): the largest windows and carries the bounds permit.
struct Edge4Params {
  static constexpr size_t kLimbs = 4;
  static constexpr ff::Limbs<4> kModulus = {~0ULL, ~0ULL, ~0ULL, 0x7ffffffeffffffffULL};
};
struct Edge6Params {
  static constexpr size_t kLimbs = 6;
  static constexpr ff::Limbs<6> kModulus = {~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0x7ffffffeffffffffULL};
};
// The largest modulus the dedicated square takes (p < 2^(32W-2)).
struct Edge6SqrParams {
  static constexpr size_t kLimbs = 6;
  static constexpr ff::Limbs<6> kModulus = {~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0x3ffffffeffffffffULL};
};
using Edge4 = ff::Field<Edge4Params>;
using Edge6 = ff::Field<Edge6Params>;
using Edge6Sqr = ff::Field<Edge6SqrParams>;

template <class F>
class Mont32Test : public ::testing::Test {};
using Mont32Types = ::testing::Types<Fr, Fq, Edge4, Edge6, Edge6Sqr>;
TYPED_TEST_SUITE(Mont32Test, Mont32Types);

template <class F>
mpz_class raw(const F& f) {
  return to_mpz<F::N>(f.mont());
}
template <class F>
F from_raw(const mpz_class& z) {
  return F::from_mont(from_mpz<F::N>(z));
}

// Raw Montgomery limbs at the edges: 0, 1, 2, p-1, p-2, p-3, (p+-1)/2, the
// Montgomery one, 2^k and 2^k +- 1 (mod p), p - 2^k, words of all ones.
template <class F>
std::vector<F> edge_elements() {
  const mpz_class p = modulus_of<F>();
  std::vector<mpz_class> v = {0, 1, 2, 3, p - 1, p - 2, p - 3, (p - 1) / 2, (p + 1) / 2, raw(F::one())};
  for (unsigned k = 1; k < 64 * F::N; k += 11) {
    const mpz_class t = mpz_class(1) << k;
    v.push_back(t % p);
    v.push_back((t - 1) % p);
    v.push_back((t + 1) % p);
    if (t < p) v.push_back(p - t);
  }
  for (unsigned k = 32; k < 64 * F::N; k += 32) v.push_back(((mpz_class(1) << k) - 1) % p);
  std::vector<F> out;
  for (const mpz_class& z : v) out.push_back(from_raw<F>(z));
  return out;
}

template <class F>
struct Emu {
  using K = typename F::C;
  static F mul(const F& a, const F& b) {
    F r;
    ff::detail::EmuIsa isa;
    ff::detail::m32_mul_limbs<K>(isa, r.l, a.l, b.l);
    return r;
  }
  static F sqr(const F& a) {
    F r;
    ff::detail::EmuIsa isa;
    ff::detail::m32_sqr_limbs<K>(isa, r.l, a.l);
    return r;
  }
  static F add(const F& a, const F& b) {
    F r;
    ff::detail::ptx_add<K>(r.l, a.l, b.l);  // the host encoding of the device entry point
    return r;
  }
  static F sub(const F& a, const F& b) {
    F r;
    ff::detail::ptx_sub<K>(r.l, a.l, b.l);
    return r;
  }
};

// Every pair of edges and a few hundred random values against GMP.
TYPED_TEST(Mont32Test, MatchesGmp) {
  using F = TypeParam;
  using E = Emu<F>;
  PP_SEEDED_RNG(rng);
  const mpz_class p = modulus_of<F>();
  mpz_class rinv;
  const mpz_class R = mpz_class(1) << (64 * F::N);
  ASSERT_NE(mpz_invert(rinv.get_mpz_t(), R.get_mpz_t(), p.get_mpz_t()), 0);
  std::vector<F> vals = edge_elements<F>();
  for (int i = 0; i < 40; ++i) vals.push_back(F::random(rng));
  std::vector<mpz_class> z;
  for (const F& x : vals) z.push_back(raw(x));
  for (size_t i = 0; i < vals.size(); ++i) {
    const F& a = vals[i];
    ASSERT_EQ(raw(E::sqr(a)), mpz_class(z[i] * z[i] * rinv % p)) << "sqr a=" << show(a);
    for (size_t j = 0; j < vals.size(); ++j) {
      const F& b = vals[j];
      ASSERT_EQ(raw(E::mul(a, b)), mpz_class(z[i] * z[j] * rinv % p)) << "mul a=" << show(a) << " b=" << show(b);
      ASSERT_EQ(raw(E::add(a, b)), mpz_class((z[i] + z[j]) % p)) << "add a=" << show(a) << " b=" << show(b);
      ASSERT_EQ(raw(E::sub(a, b)), mpz_class(((z[i] - z[j]) % p + p) % p)) << "sub a=" << show(a) << " b=" << show(b);
    }
  }
}

// Many random values against the Field's own operators and the portable
// C++: both final-subtraction outcomes occur often; the square is checked
// against the product.
TYPED_TEST(Mont32Test, MatchesFieldOperators) {
  using F = TypeParam;
  using E = Emu<F>;
  PP_SEEDED_RNG(rng);
  const int n = F::N == 4 ? 40000 : 20000;
  for (int i = 0; i < n; ++i) {
    const F a = F::random(rng), b = F::random(rng);
    const F prod = E::mul(a, b);
    ASSERT_EQ(prod, a * b) << "mul a=" << show(a) << " b=" << show(b);
    ASSERT_EQ(prod, a.mul_portable(b)) << "mul a=" << show(a) << " b=" << show(b);
    ASSERT_EQ(E::sqr(a), a * a) << "sqr a=" << show(a);
    ASSERT_EQ(E::add(a, b), a + b) << "add a=" << show(a) << " b=" << show(b);
    ASSERT_EQ(E::sub(a, b), a - b) << "sub a=" << show(a) << " b=" << show(b);
  }
}

// Products and squares of values near p and near 2^k (sparse words, long
// runs of carries), mixed with random values.
TYPED_TEST(Mont32Test, EdgesAgainstRandom) {
  using F = TypeParam;
  using E = Emu<F>;
  PP_SEEDED_RNG(rng);
  const std::vector<F> edges = edge_elements<F>();
  for (const F& e : edges) {
    for (int i = 0; i < 30; ++i) {
      const F r = F::random(rng);
      ASSERT_EQ(E::mul(e, r), e.mul_portable(r)) << "mul e=" << show(e) << " r=" << show(r);
      ASSERT_EQ(E::mul(r, e), r.mul_portable(e)) << "mul r=" << show(r) << " e=" << show(e);
      ASSERT_EQ(E::add(e, r), e.add_portable(r)) << "add e=" << show(e) << " r=" << show(r);
      ASSERT_EQ(E::sub(e, r), e.sub_portable(r)) << "sub e=" << show(e) << " r=" << show(r);
      ASSERT_EQ(E::sub(r, e), r.sub_portable(e)) << "sub r=" << show(r) << " e=" << show(e);
    }
  }
}

// Results fed back in place (r aliasing a and b), as the device kernels and
// the rate benchmark's dependent chains use them.
TYPED_TEST(Mont32Test, AliasedChains) {
  using F = TypeParam;
  using K = typename F::C;
  PP_SEEDED_RNG(rng);
  F x = F::random(rng), y = F::random(rng);
  F xr = x, yr = y;
  for (int i = 0; i < 5000; ++i) {
    ff::detail::ptx_mul<K>(x.l, x.l, y.l);
    xr = xr.mul_portable(yr);
    ff::detail::ptx_sqr<K>(y.l, y.l);
    yr = yr.mul_portable(yr);
    ff::detail::ptx_add<K>(x.l, x.l, y.l);
    xr = xr.add_portable(yr);
    ff::detail::ptx_sub<K>(y.l, y.l, x.l);
    yr = yr.sub_portable(xr);
    ASSERT_EQ(x, xr) << "step " << i;
    ASSERT_EQ(y, yr) << "step " << i;
  }
}

// The per-thread bodies of the device kernels (cuda/field_ops.hpp) run as
// host loops: every operation, the rate benchmark's chain and its inputs.
TYPED_TEST(Mont32Test, KernelBodiesMatchField) {
  using F = TypeParam;
  using cuda::FieldOp;
  PP_SEEDED_RNG(rng);
  const size_t n = 2000;
  std::vector<F> a = edge_elements<F>(), b;
  while (a.size() < n) a.push_back(F::random(rng));
  for (size_t i = 0; i < n; ++i) b.push_back(F::random(rng));
  std::vector<F> out(n);
  auto run = [&](auto op_tag, auto expect) {
    constexpr FieldOp kOp = decltype(op_tag)::value;
    for (size_t i = 0; i < n + 3; ++i) cuda::field_op_body<kOp>(a.data(), b.data(), out.data(), n, i);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], expect(a[i], b[i])) << cuda::field_op_name(kOp) << " i=" << i;
  };
  using std::integral_constant;
  auto mul = [](const F& x, const F& y) { return x * y; };
  auto sqr = [](const F& x, const F&) { return x.sqr(); };
  auto add = [](const F& x, const F& y) { return x + y; };
  auto sub = [](const F& x, const F& y) { return x - y; };
  run(integral_constant<FieldOp, FieldOp::kMul>{}, mul);
  run(integral_constant<FieldOp, FieldOp::kSqr>{}, sqr);
  run(integral_constant<FieldOp, FieldOp::kAdd>{}, add);
  run(integral_constant<FieldOp, FieldOp::kSub>{}, sub);
  run(integral_constant<FieldOp, FieldOp::kMulPortable>{}, mul);
  run(integral_constant<FieldOp, FieldOp::kMulOperator>{}, mul);
  run(integral_constant<FieldOp, FieldOp::kSqrOperator>{}, sqr);
  run(integral_constant<FieldOp, FieldOp::kAddOperator>{}, add);
  run(integral_constant<FieldOp, FieldOp::kSubOperator>{}, sub);
  // Rate-benchmark chains: x * y^len on both paths, from the device's inputs.
  std::vector<F> x(8), y(8);
  for (size_t i = 0; i < 8; ++i) cuda::chain_init_body(x.data(), y.data(), 8, i);
  std::vector<F> xp = x;
  for (size_t i = 0; i < 8; ++i) {
    ASSERT_FALSE(x[i].is_zero());
    cuda::mul_chain_body<cuda::MulPath::kPtx>(x.data(), y.data(), 37, 8, i);
    cuda::mul_chain_body<cuda::MulPath::kPortable>(xp.data(), y.data(), 37, 8, i);
    ASSERT_EQ(x[i], xp[i]) << "chain i=" << i;
    F expect = F::from_u64(uint64_t(i) * 0x9e3779b97f4a7c15ULL + 2) * y[i].pow_u64(37);
    ASSERT_EQ(x[i], expect) << "chain i=" << i;
  }
}

// The emulated instructions themselves against their definitions, carry in
// and out, on the operand values where carries flip.
TEST(Mont32Isa, EmulationMatchesDefinitions) {
  const uint32_t vals[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x12345678};
  for (uint32_t a : vals) {
    for (uint32_t b : vals) {
      for (uint32_t c : vals) {
        for (uint32_t cf : {0u, 1u}) {
          const uint64_t prod = uint64_t(a) * b;
          const uint64_t lo = uint32_t(prod), hi = prod >> 32;
          ff::detail::EmuIsa isa;
          isa.cf = cf;
          uint64_t s = lo + c + cf;
          ASSERT_EQ(isa.madc_lo_cc(a, b, c), uint32_t(s));
          ASSERT_EQ(isa.cf, uint32_t(s >> 32));
          isa.cf = cf;
          s = hi + c + cf;
          ASSERT_EQ(isa.madc_hi_cc(a, b, c), uint32_t(s));
          ASSERT_EQ(isa.cf, uint32_t(s >> 32));
          isa.cf = cf;
          ASSERT_EQ(isa.madc_hi(a, b, c), uint32_t(s));
          ASSERT_EQ(isa.cf, cf) << "madc.hi without .cc leaves CF";
          isa.cf = cf;
          s = lo + c;
          ASSERT_EQ(isa.mad_lo_cc(a, b, c), uint32_t(s));
          ASSERT_EQ(isa.cf, uint32_t(s >> 32));
          isa.cf = cf;
          s = uint64_t(a) + b + cf;
          ASSERT_EQ(isa.addc_cc(a, b), uint32_t(s));
          ASSERT_EQ(isa.cf, uint32_t(s >> 32));
          isa.cf = cf;
          const int64_t d = int64_t(a) - int64_t(b) - int64_t(cf);
          ASSERT_EQ(isa.subc_cc(a, b), uint32_t(uint64_t(d)));
          ASSERT_EQ(isa.cf, d < 0 ? 1u : 0u);
          isa.cf = cf;
          ASSERT_EQ(isa.subc(a, b), uint32_t(uint64_t(d)));
          ASSERT_EQ(isa.cf, cf);
        }
      }
    }
  }
}

}  // namespace
}  // namespace proofpipe::test
