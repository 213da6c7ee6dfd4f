// ipc/messages.hpp's message bodies: the proving worker's HELLO (backend,
// devices and intake, three lines) survives a round trip, including the edge cases a
// worker or a truncated frame can produce; PROOF's stage-time tail is the
// fixed 24 bytes the coordinator checks the body length against, and the
// PROOF body's codec. Every decoder and describer also takes garbage (random
// bodies of any length, headers with any byte values) without throwing or
// reading past the bytes it was given (sanitizer builds check the latter).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "proofpipe/ipc/messages.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(GpuHello, RoundTripsBackendDevicesAndIntake) {
  for (const ipc::GpuHello& h :
       {ipc::GpuHello{"cuda", "0", "take"}, ipc::GpuHello{"cuda", "GPU-8e3c,MIG-1/2/3", "copy"},
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

// Random bodies of every length up to 2 KiB, each in a buffer of exactly its
// size (a read past it is a heap overflow under ASan): the HELLO decoder
// keeps its fields to 256 bytes and within the body, the PROOF decoder takes
// only the one right length.
TEST(MessageDecoders, TakeRandomAndTruncatedBodiesOfAnyLength) {
  PP_SEEDED_RNG(rng);
  std::uniform_int_distribution<int> byte(0, 255);
  struct FakeProof {
    uint64_t words[7];
  };
  for (size_t n = 0; n <= 2048; ++n) {
    auto buf = std::make_unique<char[]>(n + 1);
    for (size_t i = 0; i < n; ++i) buf[i] = char(i % 7 == 0 ? '\n' : byte(rng));
    const std::string_view body(buf.get(), n);
    ipc::GpuHello h;
    ASSERT_NO_THROW(h = ipc::decode_gpu_hello(body)) << n;
    EXPECT_LE(h.backend.size(), 256u);
    EXPECT_LE(h.devices.size(), 256u);
    EXPECT_LE(h.intake.size(), 256u);
    EXPECT_LE(h.backend.size() + h.devices.size() + h.intake.size(), n);
    EXPECT_NO_THROW((void)ipc::describe(h));
    FakeProof proof{};
    ipc::ProveStages stages;
    EXPECT_EQ(ipc::decode_proof(body, &proof, &stages), n == sizeof proof + sizeof stages) << n;
  }
}

// A header is 48 bytes copied off the wire: any values in its enums and
// counters still describe and name without throwing.
TEST(MessageDecoders, DescribeAHeaderWithAnyByteValues) {
  PP_SEEDED_RNG(rng);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 10000; ++i) {
    unsigned char raw[sizeof(ipc::MsgHeader)];
    for (auto& b : raw) b = static_cast<unsigned char>(byte(rng));
    if (i < 256) std::memset(raw, i, sizeof raw);  // every byte value in every field
    ipc::MsgHeader h;
    std::memcpy(&h, raw, sizeof h);
    std::string text;
    ASSERT_NO_THROW(text = ipc::describe(h));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(ipc::msg_type_name(h.type), nullptr);
    EXPECT_NE(ipc::role_name(h.role), nullptr);
  }
}

}  // namespace
}  // namespace proofpipe::test
