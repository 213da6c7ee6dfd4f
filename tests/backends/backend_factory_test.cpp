// backends/factory.hpp: the one backend factory every proving program uses.
// On a machine without a device (CI): cpu gives the CPU backend, auto falls
// back to it with a one-line notice, cuda is refused (never a silent CPU
// run). Where a device is present the gpu-labelled CudaBackend tests cover
// the device side; here the device-dependent cases skip themselves.
#include <gtest/gtest.h>

#include <string>

#include "proofpipe/backends/factory.hpp"

namespace proofpipe::test {
namespace {

using groth16::BackendKind;

// True when `auto` picked a device backend (a machine with a GPU).
bool device_present() {
  auto b = backends::make_bls12_381_backend(BackendKind::kAuto);
  return b && (*b)->name() != "cpu";
}

TEST(BackendFactory, CpuIsTheCpuBackend) {
  std::string notice;
  auto b = backends::make_bls12_381_backend(BackendKind::kCpu, &notice);
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ((*b)->name(), "cpu");
  EXPECT_TRUE(notice.empty()) << notice;
}

TEST(BackendFactory, AutoWithoutDeviceIsTheCpuWithANotice) {
  if (device_present()) GTEST_SKIP() << "a device is present: the fallback is not reachable";
  std::string notice;
  auto b = backends::make_bls12_381_backend(BackendKind::kAuto, &notice);
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ((*b)->name(), "cpu");
  EXPECT_NE(notice.find("proving on the CPU"), std::string::npos) << notice;
  EXPECT_EQ(notice.find('\n'), std::string::npos) << "one line: " << notice;
}

TEST(BackendFactory, CudaWithoutDeviceIsRefusedNotFallenBack) {
  if (device_present()) GTEST_SKIP() << "a device is present";
  auto b = backends::make_bls12_381_backend(BackendKind::kCuda);
  ASSERT_FALSE(b) << "got backend " << (*b)->name();
  EXPECT_EQ(b.status().code(), ErrorCode::kUnavailable);
  // The reason names what is missing: the device, or CUDA in this build.
  const std::string why = b.status().message();
  EXPECT_TRUE(why.find("device") != std::string::npos || why.find("CUDA") != std::string::npos) << why;
}

}  // namespace
}  // namespace proofpipe::test
