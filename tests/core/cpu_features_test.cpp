// The CPU feature checks behind the portable build: the names a build for a
// newer CPU reports as missing, the start-up line, and that the run-time
// choice of the field kernels agrees with what cpuid says.
#include <gtest/gtest.h>

#include <string>

#include "proofpipe/cpu/features.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"

namespace {

using namespace proofpipe;

TEST(CpuFeatures, MissingNamesFollowCpuinfoSpelling) {
  const uint32_t native_spr = cpu::kSse42 | cpu::kPopcnt | cpu::kAvx | cpu::kAvx2 | cpu::kBmi1 | cpu::kBmi2 |
                              cpu::kAdx | cpu::kAvx512f | cpu::kAvx512vl | cpu::kAvx512ifma;
  const uint32_t nehalem = cpu::kSse42 | cpu::kPopcnt;
  EXPECT_EQ(cpu::missing_features(native_spr, nehalem), "avx avx2 bmi1 bmi2 adx avx512f avx512vl avx512ifma");
  const uint32_t haswell = nehalem | cpu::kAvx | cpu::kFma | cpu::kAvx2 | cpu::kBmi1 | cpu::kBmi2;
  EXPECT_EQ(cpu::missing_features(native_spr, haswell), "adx avx512f avx512vl avx512ifma");
  EXPECT_EQ(cpu::missing_features(native_spr, native_spr), "");
  EXPECT_EQ(cpu::missing_features(0, 0), "") << "a baseline build needs nothing";
}

TEST(CpuFeatures, OneLineNamingTheFix) {
  EXPECT_EQ(cpu::unsupported_cpu_message(cpu::kAdx, cpu::kAdx), "");
  const std::string line = cpu::unsupported_cpu_message(cpu::kBmi2 | cpu::kAdx, cpu::kBmi2);
  EXPECT_EQ(line,
            "proofpipe: error: this build needs CPU features this CPU lacks (adx): it was built for another machine "
            "(-DPP_NATIVE=ON); use a default (portable) build\n");
}

TEST(CpuFeatures, ThisProcessRunsOnThisCpu) {
  // The start-up check let this test start, so the CPU has all the build needs.
  EXPECT_EQ(cpu::missing_features(cpu::kBuildFeatures, cpu::cpu_features()), "");
  EXPECT_EQ(cpu::kBuildFeatures, cpu::build_features()) << "the library and the tests share one -march";
}

TEST(CpuFeatures, FieldKernelsChosenFromCpuid) {
  const uint32_t f = cpu::cpu_features();
  const bool mulx = (f & cpu::kBmi2) && (f & cpu::kAdx);
#if defined(__x86_64__)
  EXPECT_EQ(bls12_381::Fq::host_asm(), mulx);
  EXPECT_EQ(bn254::Fr::host_asm(), mulx);
#else
  EXPECT_FALSE(bls12_381::Fq::host_asm());
#endif
  const uint32_t ifma = cpu::kAvx512f | cpu::kAvx512vl | cpu::kAvx512ifma;
  EXPECT_EQ(ff::ifma::cpu_has_ifma(), (f & ifma) == ifma);
  // Whichever path runs, the arithmetic is the field's.
  EXPECT_EQ(bls12_381::Fq::from_u64(7) * bls12_381::Fq::from_u64(6), bls12_381::Fq::from_u64(42));
  EXPECT_EQ(bn254::Fr::from_u64(7) - bn254::Fr::from_u64(9) + bn254::Fr::from_u64(2), bn254::Fr::zero());
}

}  // namespace
