// PROOFPIPE_FAULTS parsing and the error-returning fault sites (fault.hpp).
// Only actions that return or sleep are fired here, and a stall on a thread
// of its own: this process must live.
#include "proofpipe/common/fault.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace proofpipe {
namespace {

TEST(Faults, EveryActionParsesAndFormatsBack) {
  const std::string text =
      "synth.mid_write:kill@2,gpu.after_claim~3:exit,a.b:hang,a.b:oom,a.b:delay=40,a.b:spike=16,"
      "gpu.mid_compute:device_lost@2,gpu.mid_compute~1:error,synth.before_seal:corrupt@2,gpu.after_claim:stall@1";
  auto specs = parse_faults(text);
  ASSERT_TRUE(specs) << specs.status().message();
  ASSERT_EQ(specs->size(), 10u);
  EXPECT_EQ((*specs)[9].action, FaultAction::kStall);
  EXPECT_EQ((*specs)[9].nth, 1u);
  EXPECT_EQ((*specs)[8].action, FaultAction::kCorrupt);
  EXPECT_EQ((*specs)[6].action, FaultAction::kDeviceLost);
  EXPECT_EQ((*specs)[6].nth, 2u);
  EXPECT_EQ((*specs)[7].action, FaultAction::kError);
  EXPECT_EQ((*specs)[7].partition, 1);
  EXPECT_EQ(format_faults(*specs), text);
}

TEST(Faults, BadEntriesAreRefusedByName) {
  for (const char* bad : {"nocolon", ":kill", "a.b:explode", "a.b:kill@0", "a.b~x:kill", "a.b:delay=ms"}) {
    auto specs = parse_faults(bad);
    ASSERT_FALSE(specs) << bad;
    EXPECT_NE(specs.status().message().find(bad), std::string::npos) << specs.status().message();
  }
}

// device_lost and error come back from fault_status on the n-th hit of the
// named partition only; a plain fault_point cannot return them and goes on.
TEST(Faults, ErrorSitesReturnTheInjectedErrorOnTheNthHit) {
  ASSERT_EQ(::setenv("PROOFPIPE_FAULTS", "test.lost~5:device_lost@2,test.err:error,test.plain:device_lost", 1), 0);
  ASSERT_TRUE(arm_faults_from_env());
  ::unsetenv("PROOFPIPE_FAULTS");
  EXPECT_TRUE(fault_status("test.lost", 4));  // another partition: not counted
  EXPECT_TRUE(fault_status("test.lost", 5));  // hit 1 of partition 5
  const Status lost = fault_status("test.lost", 5);
  EXPECT_EQ(lost.code(), ErrorCode::kDeviceLost);
  EXPECT_NE(lost.message().find("test.lost"), std::string::npos) << lost.message();
  EXPECT_TRUE(fault_status("test.lost", 5));  // @2: only the second hit
  for (int i = 0; i < 2; ++i) EXPECT_EQ(fault_status("test.err").code(), ErrorCode::kInternal);  // no @n: every hit
  fault_point("test.plain");  // logs that it cannot fire there, and returns
  EXPECT_TRUE(fault_status("unarmed.site"));
}

// corrupt flips one bit of the bytes a fault_damage site holds, on the n-th
// hit only; where a site holds no bytes it logs that and does nothing.
TEST(Faults, CorruptFlipsOneBitOfTheSitesBytesOnTheNthHit) {
  ASSERT_EQ(::setenv("PROOFPIPE_FAULTS", "test.damage:corrupt@2,test.nobytes:corrupt", 1), 0);
  ASSERT_TRUE(arm_faults_from_env());
  ::unsetenv("PROOFPIPE_FAULTS");
  std::vector<std::byte> bytes(101, std::byte{0xA5});
  const std::vector<std::byte> before = bytes;
  fault_damage("test.damage", -1, bytes);  // hit 1
  EXPECT_EQ(bytes, before);
  fault_damage("test.damage", -1, bytes);  // hit 2: fires
  size_t flipped_bits = 0;
  for (size_t i = 0; i < bytes.size(); ++i) flipped_bits += std::popcount(unsigned(bytes[i] ^ before[i]));
  EXPECT_EQ(flipped_bits, 1u);
  EXPECT_NE(bytes[50], before[50]);
  fault_damage("test.damage", -1, bytes);  // hit 3: no more
  EXPECT_EQ(std::popcount(unsigned(bytes[50] ^ before[50])), 1);
  fault_point("test.nobytes");  // logs that it cannot fire there, and returns
  fault_damage("test.nobytes", -1, {});
}

// stall blocks the thread that reaches the site, for good, and nothing else:
// the process is not marked hung (its heartbeat thread keeps running, so
// only the heartbeat's progress rule can see the stall). In a child process
// that ends with _Exit: the stalled thread never returns, and a normal exit
// would destroy spdlog's logger under it (ThreadSanitizer's finding; in the
// workers a stalled process is SIGKILLed, never exited).
// The child's side: 0 when the stalled thread never returned and the
// process was not marked hung.
[[noreturn]] void stall_in_a_thread_and_exit() {
  ::setenv("PROOFPIPE_FAULTS", "test.stall:stall", 1);
  if (!arm_faults_from_env()) std::_Exit(3);
  ::unsetenv("PROOFPIPE_FAULTS");
  static std::atomic<bool> reached{false}, returned{false};
  std::thread([] {
    reached = true;
    fault_point("test.stall");
    returned = true;
  }).detach();  // it never ends
  while (!reached) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::_Exit(returned.load() ? 1 : fault_hung() ? 2 : 0);
}

TEST(Faults, StallBlocksOnlyTheCallingThread) {
  EXPECT_EXIT(stall_in_a_thread_and_exit(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace proofpipe
