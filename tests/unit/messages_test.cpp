// ipc/messages.hpp's message bodies: the proving worker's HELLO (backend and
// devices, two lines) survives a round trip, including the edge cases a
// worker or a truncated frame can produce; PROOF's stage-time tail is the
// fixed 24 bytes the coordinator checks the body length against.
#include <gtest/gtest.h>

#include <string>

#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::test {
namespace {

TEST(GpuHello, RoundTripsBackendAndDevices) {
  for (const ipc::GpuHello& h : {ipc::GpuHello{"cuda", "0"}, ipc::GpuHello{"cuda", "GPU-8e3c,MIG-1/2/3"},
                                 ipc::GpuHello{"cpu", ""}, ipc::GpuHello{"", ""}}) {
    const ipc::GpuHello back = ipc::decode_gpu_hello(ipc::encode_gpu_hello(h));
    EXPECT_EQ(back.backend, h.backend);
    EXPECT_EQ(back.devices, h.devices);
  }
}

TEST(GpuHello, ToleratesBodiesOtherWorkersMightSend) {
  EXPECT_EQ(ipc::decode_gpu_hello("cpu").backend, "cpu");  // no newline: no devices
  EXPECT_EQ(ipc::decode_gpu_hello("cpu").devices, "");
  EXPECT_EQ(ipc::decode_gpu_hello("").backend, "");
  const ipc::GpuHello long_one = ipc::decode_gpu_hello(std::string(1000, 'x') + "\n" + std::string(1000, '1'));
  EXPECT_EQ(long_one.backend.size(), 256u);  // cut, never unbounded
  EXPECT_EQ(long_one.devices.size(), 256u);
  EXPECT_EQ(ipc::decode_gpu_hello("cuda\n0\n1").devices, "0\n1");
}

TEST(ProveStages, IsThreeDoublesOnTheWire) {
  EXPECT_EQ(sizeof(ipc::ProveStages), 3 * sizeof(double));
  EXPECT_GE(ipc::kWireVersion, 2u);  // the PROOF body grew in version 2
}

}  // namespace
}  // namespace proofpipe::test
