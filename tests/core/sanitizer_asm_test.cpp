// AddressSanitizer and the x86-64 asm field kernels: ASan instruments the
// loads the compiler emits, not those inside inline asm, so the kernels
// check their memory operands themselves in ASan builds (PPX_ASM_READS in
// ff/detail/mont_x86.hpp). These tests hand a kernel an operand one limb
// short, a read only the asm makes, and expect ASan's report. Outside an
// ASan build (-DPP_SANITIZE=address, scripts/sanitize.sh) they skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"

namespace {

using namespace proofpipe;

#if defined(PP_SANITIZE_ADDRESS) && defined(PP_FF_HAVE_MONT_X86)

// The operand b holds n - 1 limbs on the heap: the kernel's last limb read
// is 8 bytes past the allocation.
template <class K, size_t N>
void mul_short_operand() {
  uint64_t a[N] = {1}, r[N];
  auto b = std::make_unique<uint64_t[]>(N - 1);
  if constexpr (N == 6) {
    ff::detail::mont_mul_6<K>(r, a, b.get());
  } else {
    ff::detail::mont_mul_4<K>(r, a, b.get());
  }
}

TEST(SanitizerAsm, AsanSeesTheSixLimbKernelsLoads) {
  EXPECT_DEATH((mul_short_operand<ff::MontConsts<bls12_381::FqParams>, 6>()), "heap-buffer-overflow");
}

TEST(SanitizerAsm, AsanSeesTheFourLimbKernelsLoads) {
  EXPECT_DEATH((mul_short_operand<ff::MontConsts<bn254::FqParams>, 4>()), "heap-buffer-overflow");
}

TEST(SanitizerAsm, WholeOperandsPass) {
  // The same kernels on whole operands: no report, the right product.
  const auto x = bls12_381::Fq::from_u64(7), y = bls12_381::Fq::from_u64(6);
  EXPECT_EQ(x * y, bls12_381::Fq::from_u64(42));
  const auto u = bn254::Fq::from_u64(7), v = bn254::Fq::from_u64(6);
  EXPECT_EQ(u * v, bn254::Fq::from_u64(42));
}

#else

TEST(SanitizerAsm, AsanSeesTheAsmKernelsLoads) {
  GTEST_SKIP() << "needs an ASan build (-DPP_SANITIZE=address) on x86-64 with BMI2/ADX";
}

#endif

}  // namespace
