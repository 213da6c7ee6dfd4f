// SlotRing over in-process memory: checksum64 and record_checksum
// properties, one full cycle, epoch fencing of stale actors, reclaim rules,
// checksum verification and quarantine, and a threaded race where exactly
// one claimer wins each slot.
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

// The tree of slot_ring.hpp, computed here from checksum64 alone.
uint64_t reference_tree(std::span<const std::byte> bytes, uint64_t seed = 0) {
  std::vector<uint64_t> leaves;
  size_t off = 0;
  do {
    const size_t len = std::min(kChecksumChunk, bytes.size() - off);
    leaves.push_back(checksum64(bytes.subspan(off, len), seed + leaves.size()));
    off += len;
  } while (off < bytes.size());
  return checksum64(std::as_bytes(std::span(leaves)), seed);
}

// Sizes on both sides of the chunk edges (the leaf count changes at k * 4 MiB).
const std::vector<size_t> kRecordSizes = {
    0, 1, 100, kChecksumChunk - 1, kChecksumChunk, kChecksumChunk + 1, 3 * kChecksumChunk + 12345};

TEST(RecordChecksum, IsTheTreeOfChecksum64Leaves) {
  PP_SEEDED_RNG(rng);
  for (size_t n : kRecordSizes) {
    const auto data = random_bytes(rng, n);
    for (uint64_t seed : {uint64_t{0}, uint64_t{7}}) {
      EXPECT_EQ(record_checksum(data, seed), reference_tree(data, seed)) << "n=" << n << " seed=" << seed;
    }
    if (n > 0 && n < kChecksumChunk) {
      EXPECT_NE(record_checksum(data), checksum64(data)) << "n=" << n;
    }
  }
}

// The copy lands byte for byte in the pieces, and its value is the tree's,
// however the pieces cut the record (empty pieces, cuts inside and on chunk edges).
TEST(RecordChecksum, CopyIntoPiecesMatchesAndCopiesEveryByte) {
  PP_SEEDED_RNG(rng);
  for (size_t n : kRecordSizes) {
    const auto data = random_bytes(rng, n);
    const uint64_t want = reference_tree(data);
    std::vector<std::vector<size_t>> cuts = {{}, {0, n}, {n / 3, n / 2}};
    if (n > kChecksumChunk) cuts.push_back({kChecksumChunk, kChecksumChunk, n - 1});
    for (int r = 0; r < 3; ++r) {  // random cuts
      std::vector<size_t> c{size_t(rng() % (n + 1)), size_t(rng() % (n + 1)), size_t(rng() % (n + 1))};
      std::sort(c.begin(), c.end());
      cuts.push_back(c);
    }
    for (const auto& cut : cuts) {
      std::vector<std::vector<std::byte>> bufs;
      size_t prev = 0;
      for (size_t c : cut) {
        bufs.emplace_back(c - prev, std::byte{0x5A});
        prev = c;
      }
      bufs.emplace_back(n - prev, std::byte{0x5A});
      std::vector<std::span<std::byte>> pieces(bufs.begin(), bufs.end());
      ASSERT_EQ(copy_with_record_checksum(data, pieces), want) << "n=" << n << " pieces=" << pieces.size();
      std::vector<std::byte> joined;
      for (const auto& b : bufs) joined.insert(joined.end(), b.begin(), b.end());
      ASSERT_TRUE(joined == data) << "n=" << n;
    }
  }
}

// Changes a consumer must see: a flipped bit in any chunk (first and last
// byte of each), two chunks swapped, a length change by a zero tail.
TEST(RecordChecksum, BitFlipsSwappedChunksAndLengthChangesAreDetected) {
  PP_SEEDED_RNG(rng);
  const size_t n = 3 * kChecksumChunk + 100;
  auto data = random_bytes(rng, n);
  const uint64_t base = record_checksum(data);
  std::set<uint64_t> seen{base};
  for (size_t at : {size_t{0}, kChecksumChunk - 1, kChecksumChunk, 2 * kChecksumChunk + 17, n - 1}) {
    for (unsigned bit : {0u, 7u}) {
      data[at] ^= std::byte(1u << bit);
      EXPECT_TRUE(seen.insert(record_checksum(data)).second) << "byte " << at << " bit " << bit;
      data[at] ^= std::byte(1u << bit);
    }
  }
  auto swapped = data;
  std::swap_ranges(swapped.begin(), swapped.begin() + kChecksumChunk, swapped.begin() + kChecksumChunk);
  EXPECT_NE(record_checksum(swapped), base);
  auto longer = data;
  longer.push_back(std::byte{0});
  EXPECT_NE(record_checksum(longer), base);
  std::vector<std::byte> zeros(kChecksumChunk, std::byte{0});
  EXPECT_NE(record_checksum(std::span(zeros).first(kChecksumChunk - 8)), record_checksum(zeros));
  EXPECT_EQ(record_checksum(data), base);  // and it is a function of the bytes
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
    SlotRing::SealInfo info{77, 5, 2, len, record_checksum(bytes.first(len))};
    const auto sealed = ring_.seal(slot, seat, epoch, info);
    EXPECT_TRUE(sealed);
    return sealed.value_or(epoch);
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
  EXPECT_EQ(*meta, (SlotRing::Meta{77, 5, 2, 100, record_checksum(ring_.payload(1).first(100)), 1}));
  // The one-pass alternative: header check, then the record copied out with its checksum.
  auto header = ring_.check_header(1);
  ASSERT_TRUE(header.is_ok()) << header.status().to_string();
  std::vector<std::byte> head(30), tail(70);
  const std::span<std::byte> pieces[] = {head, tail};
  EXPECT_EQ(copy_with_record_checksum(ring_.payload(1).first(100), pieces), header->checksum);
  EXPECT_TRUE(std::equal(head.begin(), head.end(), ring_.payload(1).begin()));
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

TEST_F(SlotRingTest, EveryTransitionReturnsTheEpochOfTheWordItWrote) {
  const auto granted = ring_.grant(0, 0, kWriter);
  ASSERT_EQ(granted, Epoch{1});
  const Epoch ready = write_and_seal(0, kWriter, *granted, 0x42);
  EXPECT_EQ(ring_.load(0).epoch, ready);
  const auto claimed = ring_.claim(0, kGpu, ready);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kConsuming, kGpu, *claimed}));
  const auto back = ring_.reclaim_consuming(0, kGpu, *claimed);
  ASSERT_TRUE(back);
  EXPECT_EQ(ring_.load(0), (SlotWord{SlotState::kReady, kNoSeat, *back}));
  EXPECT_EQ(ring_.reclaim_consuming(0, kGpu, *claimed), std::nullopt);  // lost (and logged): nothing moves
  EXPECT_EQ(ring_.load(0).epoch, *back);
}

// A READY record that must not be proved goes back to the pool in one call,
// through QUARANTINED, and a stale epoch moves nothing.
TEST_F(SlotRingTest, DiscardTakesAReadyRecordThroughQuarantineToFree) {
  const auto granted = ring_.grant(1, 0, kWriter);
  ASSERT_TRUE(granted);
  const Epoch ready = write_and_seal(1, kWriter, *granted, 0x07);
  EXPECT_EQ(ring_.discard(1, ready - 1), std::nullopt);  // stale
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kReady, kWriter, ready}));
  const auto freed = ring_.discard(1, ready);
  ASSERT_EQ(freed, ready + 2);  // READY -> QUARANTINED -> FREE: two CASes, two bumps
  EXPECT_EQ(ring_.load(1), (SlotWord{SlotState::kFree, kNoSeat, *freed}));
  EXPECT_EQ(ring_.discard(1, *freed), std::nullopt);  // FREE is not READY
  const auto writing = ring_.grant(2, 0, kWriter);
  ASSERT_TRUE(writing);
  EXPECT_EQ(ring_.discard(2, *writing), std::nullopt);  // nor is WRITING
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
    const auto granted = ring_.grant(slot, w.epoch, 0);
    ASSERT_TRUE(granted);
    const Epoch ready = write_and_seal(slot, 0, *granted, uint8_t(round), 8);
    std::vector<std::thread> threads;
    std::atomic<int> go{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        go.fetch_add(1);
        while (go.load() < kThreads) std::this_thread::yield();
        if (const auto claimed = ring_.claim(slot, Seat(1 + t), ready)) {
          wins[round].fetch_add(1);
          EXPECT_TRUE(ring_.verify(slot).is_ok());
          EXPECT_TRUE(ring_.release(slot, Seat(1 + t), *claimed));
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(wins[round].load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace proofpipe::shm
