// ipc/messages.hpp's message bodies: the proving worker's HELLO (backend,
// devices and intake, three lines) survives a round trip, including the edge cases a
// worker or a truncated frame can produce; PROOF's stage-time tail is the
// fixed 24 bytes the coordinator checks the body length against, and the
// PROOF body's codec.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::test {
namespace {

TEST(GpuHello, RoundTripsBackendDevicesAndIntake) {
  for (const ipc::GpuHello& h : {ipc::GpuHello{"cuda", "0", "take"}, ipc::GpuHello{"cuda", "GPU-8e3c,MIG-1/2/3", "copy"},
                                 ipc::GpuHello{"cpu", "", "copy"}, ipc::GpuHello{"", "", ""}}) {
    const ipc::GpuHello back = ipc::decode_gpu_hello(ipc::encode_gpu_hello(h));
    EXPECT_EQ(back.backend, h.backend);
    EXPECT_EQ(back.devices, h.devices);
    EXPECT_EQ(back.intake, h.intake);
  }
}

TEST(GpuHello, ToleratesBodiesOtherWorkersMightSend) {
  EXPECT_EQ(ipc::decode_gpu_hello("cpu").backend, "cpu");  // no newline: no devices
  EXPECT_EQ(ipc::decode_gpu_hello("cpu").devices, "");
  EXPECT_EQ(ipc::decode_gpu_hello("cpu\n").intake, "");  // a missing line is empty
  EXPECT_EQ(ipc::decode_gpu_hello("").backend, "");
  const ipc::GpuHello long_one = ipc::decode_gpu_hello(std::string(1000, 'x') + "\n" + std::string(1000, '1'));
  EXPECT_EQ(long_one.backend.size(), 256u);  // cut, never unbounded
  EXPECT_EQ(long_one.devices.size(), 256u);
  const ipc::GpuHello extra = ipc::decode_gpu_hello(std::string(1000, 'x') + "\n0\n" + std::string(1000, 't'));
  EXPECT_EQ(extra.intake.size(), 256u);
  EXPECT_EQ(ipc::decode_gpu_hello("cuda\n0\ntake\nmore").devices, "0");
  EXPECT_EQ(ipc::decode_gpu_hello("cuda\n0\ntake\nmore").intake, "take\nmore");  // the last field keeps the rest
}

// The PROOF body round trip, and the bodies the coordinator must refuse.
TEST(ProofBody, RoundTripsAndRefusesOtherLengths) {
  struct FakeProof {
    uint64_t words[7];
  };
  const FakeProof proof{{1, 2, 3, 4, 5, 6, 0xfedcba9876543210}};
  const ipc::ProveStages stages{0.25, 1.5, 7.125};
  const std::string body = ipc::encode_proof(proof, stages);
  EXPECT_EQ(body.size(), sizeof proof + sizeof stages);
  FakeProof back{};
  ipc::ProveStages st_back;
  ASSERT_TRUE(ipc::decode_proof(body, &back, &st_back));
  EXPECT_EQ(std::memcmp(&back, &proof, sizeof proof), 0);
  EXPECT_EQ(st_back.intake_s, 0.25);
  EXPECT_EQ(st_back.h_s, 1.5);
  EXPECT_EQ(st_back.msms_s, 7.125);
  FakeProof untouched{};
  for (const std::string& bad : {std::string(), body.substr(1), body + "x", std::string(sizeof proof, '\1')}) {
    EXPECT_FALSE(ipc::decode_proof(bad, &untouched, &st_back)) << bad.size();
  }
  EXPECT_EQ(untouched.words[0], 0u);
}

TEST(ProveStages, IsThreeDoublesOnTheWire) {
  EXPECT_EQ(sizeof(ipc::ProveStages), 3 * sizeof(double));
  EXPECT_GE(ipc::kWireVersion, 3u);  // the PROOF body grew in version 2, HELLO's intake in 3
}

}  // namespace
}  // namespace proofpipe::test
