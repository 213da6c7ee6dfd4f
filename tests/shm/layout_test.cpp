// Control-segment layout: the slot-word bit layout, planning limits, and
// validation of a header that is uninitialised, foreign, from another layout
// version, or inconsistent with its own counts. In-process memory only.
#include "proofpipe/shm/layout.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace proofpipe::shm {
namespace {

// A 64-byte-aligned zeroed buffer of at least `bytes`.
struct ControlBuffer {
  explicit ControlBuffer(uint64_t bytes) : lines((bytes + kCacheLine - 1) / kCacheLine) {}
  std::byte* data() { return reinterpret_cast<std::byte*>(lines.data()); }
  uint64_t size() const { return lines.size() * kCacheLine; }
  std::vector<SlotHeader> lines;  // SlotHeader is one zeroed cache line
};

bool contains(const Status& st, const char* text) { return st.message().find(text) != std::string::npos; }

TEST(SlotWord, PacksStateSeatAndEpochIntoTheDocumentedBits) {
  const SlotWord w{SlotState::kWriting, 3, 0x123456789ABCull};
  EXPECT_EQ(w.pack(), 0x0203123456789ABCull);  // state 63..56, seat 55..48, epoch 47..0
  EXPECT_EQ(SlotWord::unpack(w.pack()), w);
  // The epoch cannot spill into the seat: it is masked to 48 bits.
  EXPECT_EQ(SlotWord::unpack(SlotWord{SlotState::kFree, kNoSeat, (1ull << 48) + 5}.pack()).epoch, 5u);
  EXPECT_EQ(SlotWord::unpack(0).state, SlotState::kInvalid);  // zeroed memory is not a FREE slot
  EXPECT_FALSE(is_known_state(SlotState(6)));
  EXPECT_STREQ(slot_state_name(SlotState::kQuarantined), "QUARANTINED");
}

TEST(PlanLayout, RoundsSlotsToPagesAndAlignsEveryRecord) {
  auto plan = plan_layout(3, 5000, 4);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->slot_size, 8192u);
  EXPECT_EQ(plan->payload_bytes, 3u * 8192u);
  EXPECT_EQ(plan->seats_offset % kCacheLine, 0u);
  EXPECT_EQ(plan->slots_offset % kCacheLine, 0u);
  EXPECT_EQ(plan->slots_offset, plan->seats_offset + 4 * sizeof(SeatRecord));
  EXPECT_EQ(plan->control_bytes % 4096, 0u);
  EXPECT_GE(plan->control_bytes, plan->slots_offset + 3 * sizeof(SlotHeader));
}

TEST(PlanLayout, RejectsCountsAndSizesOutsideTheLimitsNamingThem) {
  struct Case {
    uint32_t k;
    uint64_t size;
    uint32_t seats;
    const char* text;
  };
  for (const Case& c :
       {Case{0, 4096, 1, "slot count 0"}, Case{kMaxSlots + 1, 4096, 1, "slot count"}, Case{1, 0, 1, "slot size 0"},
        Case{1, 4096, 0, "seat count 0"}, Case{1, 4096, 256, "seat count 256"}, Case{4096, 1ull << 40, 1, "exceed"}}) {
    auto plan = plan_layout(c.k, c.size, c.seats);
    ASSERT_FALSE(plan.is_ok()) << c.text;
    EXPECT_EQ(plan.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(contains(plan.status(), c.text)) << plan.status().message();
  }
}

class ControlLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    plan_ = plan_layout(4, 4096, 3).value();
    init_control(buf_.data(), plan_, 0xABCDEF);
  }
  ControlHeader* header() { return control_header(buf_.data()); }
  Result<LayoutPlan> validate() { return validate_control(buf_.data(), buf_.size()); }

  LayoutPlan plan_;
  ControlBuffer buf_{8192};
};

TEST_F(ControlLayout, InitialisedHeaderValidatesWithEverySlotFreeAtEpochZero) {
  auto plan = validate();
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->slot_count, 4u);
  EXPECT_EQ(plan->seat_count, 3u);
  EXPECT_EQ(header()->run_id, 0xABCDEFu);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(SlotWord::unpack(slot_headers(buf_.data(), plan_)[i].word), (SlotWord{SlotState::kFree, kNoSeat, 0}));
  }
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ(seat_records(buf_.data(), plan_)[s].pid_incarnation, 0u);
}

TEST_F(ControlLayout, RejectsAnUninitialisedSegment) {
  header()->magic = 0;
  auto plan = validate();
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kBadFormat);
  EXPECT_TRUE(contains(plan.status(), "not initialised")) << plan.status().message();
}

TEST_F(ControlLayout, RejectsAForeignMagic) {
  header()->magic = 0x1122334455667788ull;
  auto plan = validate();
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kBadFormat);
  EXPECT_TRUE(contains(plan.status(), "bad magic 0x1122334455667788")) << plan.status().message();
}

TEST_F(ControlLayout, RejectsAnotherLayoutVersion) {
  header()->layout_version = kLayoutVersion + 1;
  auto plan = validate();
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kBadFormat);
  const std::string want = "layout version " + std::to_string(kLayoutVersion + 1) + ", this build reads version " +
                           std::to_string(kLayoutVersion);
  EXPECT_TRUE(contains(plan.status(), want.c_str())) << plan.status().message();
}

TEST_F(ControlLayout, RejectsStructSizesFromAnotherBuild) {
  header()->slot_header_bytes = 128;
  auto plan = validate();
  ASSERT_FALSE(plan.is_ok());
  EXPECT_TRUE(contains(plan.status(), "slot header size is 128, expected 64")) << plan.status().message();
}

TEST_F(ControlLayout, RejectsOffsetsThatDisagreeWithTheCounts) {
  header()->slot_count = 5;  // offsets and payload size were computed for 4
  auto plan = validate();
  ASSERT_FALSE(plan.is_ok());
  EXPECT_TRUE(contains(plan.status(), "payload size")) << plan.status().message();
}

TEST_F(ControlLayout, RejectsASegmentShorterThanTheLayout) {
  auto plan = validate_control(buf_.data(), plan_.control_bytes - 64);
  ASSERT_FALSE(plan.is_ok());
  EXPECT_TRUE(contains(plan.status(), "segment has")) << plan.status().message();
  EXPECT_FALSE(validate_control(buf_.data(), 16).is_ok());
}

}  // namespace
}  // namespace proofpipe::shm
