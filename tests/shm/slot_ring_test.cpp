// SlotRing over in-process memory: checksum64 properties, one full cycle,
// epoch fencing of stale actors, reclaim rules, checksum verification and
// quarantine, and a threaded race where exactly one claimer wins each slot.
#include "proofpipe/shm/slot_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "support/test_seed.hpp"

namespace proofpipe::shm {
namespace {

std::vector<std::byte> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = std::byte(rng() & 0xFF);
  return v;
}

TEST(Checksum64, StreamingMatchesOneShotForEverySplit) {
  PP_SEEDED_RNG(rng);
  for (size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 64u, 100u, 257u}) {
    const auto data = random_bytes(rng, n);
    const uint64_t whole = checksum64(data);
    for (size_t cut1 = 0; cut1 <= n; ++cut1) {
      const size_t cut2 = cut1 + (n - cut1) / 2;
      Checksum64 c;
      c.update(std::span(data).subspan(0, cut1));
      c.update(std::span(data).subspan(cut1, cut2 - cut1));
      c.update(std::span(data).subspan(cut2));
      ASSERT_EQ(c.finish(), whole) << "n=" << n << " cut1=" << cut1;
    }
  }
}

TEST(Checksum64, EveryBitFlipAndLengthChangeIsDetected) {
  PP_SEEDED_RNG(rng);
  auto data = random_bytes(rng, 96);
  const uint64_t base = checksum64(data);
  std::set<uint64_t> seen{base};
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] ^= std::byte(1u << (bit % 8));
    EXPECT_TRUE(seen.insert(checksum64(data)).second) << "bit " << bit;
    data[bit / 8] ^= std::byte(1u << (bit % 8));
  }
  // A zero tail is not invisible: the length is mixed in.
  std::vector<std::byte> zeros(40, std::byte{0});
  EXPECT_NE(checksum64(std::span(zeros).first(32)), checksum64(zeros));
  EXPECT_NE(checksum64({}, 0), checksum64({}, 1));
}

constexpr uint32_t kK = 3;
constexpr uint32_t kSeatCount = 4;
constexpr uint64_t kSlotBytes = 256;
constexpr Seat kWriter = 0, kOtherWriter = 1, kGpu = 2;

class SlotRingTest : public ::testing::Test {
 protected:
  SlotRingTest()
      : headers_(kK), payload_(kK * kSlotBytes), ring_(headers_.data(), kK, kSeatCount, payload_.data(), kSlotBytes) {
    for (auto& h : headers_) h.word = SlotWord{SlotState::kFree, kNoSeat, 0}.pack();
  }

  // Writes a record into a granted slot and seals it; returns the READY epoch.
  Epoch write_and_seal(uint32_t slot, Seat seat, Epoch epoch, uint8_t fill, uint64_t len = 100) {
    auto bytes = ring_.payload(slot);
    std::memset(bytes.data(), fill, len);
    SlotRing::SealInfo info{77, 5, 2, len, checksum64(bytes.first(len))};
    EXPECT_TRUE(ring_.seal(slot, seat, epoch, info));
    return epoch + 1;
  }

  std::vector<SlotHeader> headers_;
  std::vector<std::byte> payload_;
  SlotRing ring_;
};

TEST_F(SlotRingTest, AFullCycleBumpsTheEpochOnEveryTransitionAndRecordsWhoMoved) {
  ASSERT_TRUE(ring_.grant(1, 0, kWriter));
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kWriting, kWriter, 1}));
  EXPECT_TRUE(ring_.owns(1, SlotState::kWriting, kWriter, 1));
  write_and_seal(1, kWriter, 1, 0xAB);
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kReady, kWriter, 2}));  // seat = who sealed
  ASSERT_TRUE(ring_.claim(1, kGpu, 2));
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kConsuming, kGpu, 3}));
  auto meta = ring_.verify(1);
  ASSERT_TRUE(meta.is_ok()) << meta.status().to_string();
  EXPECT_EQ(*meta, (SlotRing::Meta{77, 5, 2, 100, checksum64(ring_.payload(1).first(100)), 1}));
  // The one-pass alternative: header check, then a checksum streamed in chunks.
  auto header = ring_.check_header(1);
  ASSERT_TRUE(header.is_ok()) << header.status().to_string();
  Checksum64 streamed;
  for (size_t at = 0; at < 100; at += 40) streamed.update(ring_.payload(1).subspan(at, std::min<size_t>(40, 100 - at)));
  EXPECT_EQ(streamed.finish(), header->checksum);
  ASSERT_TRUE(ring_.release(1, kGpu, 3));
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kFree, kGpu, 4}));     // seat = who consumed it
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kFree, kNoSeat, 0}));  // neighbours untouched
}

TEST_F(SlotRingTest, StaleEpochsWrongSeatsAndWrongStatesAlwaysLose) {
  ASSERT_TRUE(ring_.grant(0, 0, kWriter));
  EXPECT_FALSE(ring_.grant(0, 0, kOtherWriter));     // already granted: the old FREE epoch is stale
  EXPECT_FALSE(ring_.seal(0, kOtherWriter, 1, {}));  // not the owner
  EXPECT_FALSE(ring_.seal(0, kWriter, 0, {}));       // old epoch
  EXPECT_FALSE(ring_.claim(0, kGpu, 1));             // not READY
  EXPECT_FALSE(ring_.release(0, kWriter, 1));        // not CONSUMING
  EXPECT_FALSE(ring_.grant(0, 1, kSeatCount));       // no such seat
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kWriting, kWriter, 1}));
}

TEST_F(SlotRingTest, AStaleWriterCannotSealOrScribbleOverTheNextRoundsHeader) {
  ASSERT_TRUE(ring_.grant(0, 0, kWriter));  // writer holds (seat 0, epoch 1) ...
  // ... is SIGKILLed and reaped; the coordinator reclaims and re-grants.
  ASSERT_TRUE(ring_.reclaim_writing(0, kWriter, 1));
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kFree, kNoSeat, 2}));
  ASSERT_TRUE(ring_.grant(0, 2, kOtherWriter));
  write_and_seal(0, kOtherWriter, 3, 0x11);
  const SlotHeader before = headers_[0];
  // A zombie with the old grant (a duplicate GRANT message, a paused process)
  // is fenced by the epoch: its seal loses and the header is unchanged.
  EXPECT_FALSE(ring_.seal(0, kWriter, 1, {999, 9, 9, 10, 0}));
  EXPECT_FALSE(ring_.abort_write(0, kWriter, 1));
  EXPECT_FALSE(ring_.reclaim_writing(0, kWriter, 1));
  EXPECT_EQ(std::memcmp(&before, &headers_[0], sizeof(SlotHeader)), 0);
}

TEST_F(SlotRingTest, ReclaimingADeadConsumerMakesTheIntactRecordReadyAgain) {
  ASSERT_TRUE(ring_.grant(2, 0, kWriter));
  const Epoch ready = write_and_seal(2, kWriter, 1, 0x5A);
  ASSERT_TRUE(ring_.claim(2, kGpu, ready));
  EXPECT_FALSE(ring_.reclaim_consuming(2, kWriter, ready + 1));  // wrong seat: not the dead one
  ASSERT_TRUE(ring_.reclaim_consuming(2, kGpu, ready + 1));
  EXPECT_EQ(ring_.load(2), (SlotWord{SlotState::kReady, kNoSeat, ready + 2}));
  EXPECT_FALSE(ring_.release(2, kGpu, ready + 1));  // the dead consumer's release is stale
  ASSERT_TRUE(ring_.claim(2, kGpu, ready + 2));     // its restarted incarnation claims again
  EXPECT_TRUE(ring_.verify(2).is_ok());
}

TEST_F(SlotRingTest, ACorruptedPayloadFailsVerifyAndTheSlotIsQuarantinedThenFreed) {
  ASSERT_TRUE(ring_.grant(0, 0, kWriter));
  const Epoch ready = write_and_seal(0, kWriter, 1, 0x33);
  ring_.payload(0)[57] ^= std::byte{0x04};  // one flipped bit
  ASSERT_TRUE(ring_.claim(0, kGpu, ready));
  auto meta = ring_.verify(0);
  ASSERT_FALSE(meta.is_ok());
  EXPECT_EQ(meta.status().code(), ErrorCode::kBadFormat);
  EXPECT_NE(meta.status().message().find("checksum"), std::string::npos) << meta.status().message();
  EXPECT_NE(meta.status().message().find("partition 5 attempt 2"), std::string::npos) << meta.status().message();
  const SlotWord owned{SlotState::kConsuming, kGpu, ready + 1};
  ASSERT_TRUE(ring_.quarantine(0, owned));
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kQuarantined, kGpu, ready + 2}));
  EXPECT_FALSE(ring_.quarantine(0, ring_.load(0)));  // already quarantined
  EXPECT_FALSE(ring_.release(0, kGpu, ready + 1));
  ASSERT_TRUE(ring_.release_quarantined(0, ready + 2));
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kFree, kNoSeat, ready + 3}));
}

TEST_F(SlotRingTest, VerifyRejectsAHeaderWhoseLengthExceedsTheSlot) {
  ASSERT_TRUE(ring_.grant(0, 0, kWriter));
  write_and_seal(0, kWriter, 1, 0x01);
  headers_[0].payload_len = kSlotBytes + 1;  // a scribbled header
  auto meta = ring_.verify(0);
  ASSERT_FALSE(meta.is_ok());
  EXPECT_NE(meta.status().message().find("exceeds slot size 256"), std::string::npos) << meta.status().message();
}

TEST_F(SlotRingTest, InsaneWordsAreRecognised) {
  EXPECT_TRUE(ring_.is_sane({SlotState::kFree, kNoSeat, 9}));
  EXPECT_TRUE(ring_.is_sane({SlotState::kReady, kWriter, 9}));
  EXPECT_FALSE(ring_.is_sane({SlotState::kWriting, kNoSeat, 9}));  // owned by nobody
  EXPECT_FALSE(ring_.is_sane({SlotState::kConsuming, Seat(kSeatCount), 9}));
  EXPECT_FALSE(ring_.is_sane(SlotWord::unpack(0)));
  EXPECT_FALSE(ring_.is_sane({SlotState(7), 0, 1}));
  // An insane word can still be fenced off.
  headers_[1].word = SlotWord{SlotState(7), 0, 4}.pack();
  EXPECT_TRUE(ring_.quarantine(1, {SlotState(7), 0, 4}));
}

TEST_F(SlotRingTest, RacingClaimersExactlyOneWinsEachReadySlot) {
  PP_SEEDED_RNG(rng);
  constexpr int kRounds = 300;  // ~1000 thread starts: well under a second
  constexpr int kThreads = 3;   // seats 1..3 race; seat 0 writes
  std::vector<std::atomic<int>> wins(kRounds);
  for (int round = 0; round < kRounds; ++round) {
    const uint32_t slot = uint32_t(rng() % kK);
    const SlotWord w = ring_.load(slot);
    ASSERT_TRUE(ring_.grant(slot, w.epoch, 0));
    const Epoch ready = write_and_seal(slot, 0, w.epoch + 1, uint8_t(round), 8);
    std::vector<std::thread> threads;
    std::atomic<int> go{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        go.fetch_add(1);
        while (go.load() < kThreads) std::this_thread::yield();
        if (ring_.claim(slot, Seat(1 + t), ready)) {
          wins[round].fetch_add(1);
          EXPECT_TRUE(ring_.verify(slot).is_ok());
          EXPECT_TRUE(ring_.release(slot, Seat(1 + t), ready + 1));
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(wins[round].load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace proofpipe::shm
