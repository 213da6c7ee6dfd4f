// Segment and Ring against the real /dev/shm: create/open/unlink, mode 0600,
// exclusivity, both out-of-space paths leaving nothing behind, refusal of
// foreign or mismatched headers, and fork() smokes: a child seals a slot the
// parent verifies; a child SIGKILLed mid-write is reaped, then reclaimed.
#include "proofpipe/shm/ring.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "proofpipe/shm/segment.hpp"

namespace proofpipe::shm {
namespace {

// Names unique per test process: ctest runs suites in parallel, and several
// engineers share one /dev/shm.
std::string unique_prefix() {
  static std::atomic<unsigned> counter{0};
  return fmt::format("/pp-test-{}-{}", ::getpid(), counter++);
}

// Unlinks both segments of a ring prefix (or a lone segment name) on scope exit.
class ShmCleanup {
 public:
  explicit ShmCleanup(std::string prefix) : prefix_(std::move(prefix)) {}
  ~ShmCleanup() {
    (void)Ring::unlink(prefix_);
    (void)Segment::unlink(prefix_);
  }
  ShmCleanup(const ShmCleanup&) = delete;
  ShmCleanup& operator=(const ShmCleanup&) = delete;

 private:
  std::string prefix_;
};

bool contains(const Status& st, const std::string& text) { return st.message().find(text) != std::string::npos; }

TEST(Segment, CreateOpenAndUnlinkShareOneMapping) {
  const std::string name = unique_prefix();
  ShmCleanup cleanup(name);
  auto created = Segment::create(name, 1 << 20);
  ASSERT_TRUE(created.is_ok()) << created.status().to_string();
  EXPECT_EQ(created->size(), 1u << 20);
  EXPECT_EQ(created->name(), name);
  std::memcpy(created->data() + 4096, "hello", 5);

  struct stat st {};
  ASSERT_EQ(::stat((std::string(kShmMount) + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);                // exactly owner rw, whatever the umask
  EXPECT_GE(uint64_t(st.st_blocks) * 512, 1u << 20);  // fallocated, not sparse

  auto opened = Segment::open(name);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(opened->size(), 1u << 20);
  EXPECT_EQ(std::memcmp(opened->data() + 4096, "hello", 5), 0);

  ASSERT_TRUE(Segment::unlink(name).is_ok());
  EXPECT_EQ(Segment::open(name).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Segment::unlink(name).code(), ErrorCode::kNotFound);
  // Existing mappings outlive the name.
  EXPECT_EQ(std::memcmp(created->data() + 4096, "hello", 5), 0);
}

TEST(Segment, CreateIsExclusive) {
  const std::string name = unique_prefix();
  ShmCleanup cleanup(name);
  auto first = Segment::create(name, 4096);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  auto second = Segment::create(name, 4096);
  ASSERT_FALSE(second.is_ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kIo);
  EXPECT_TRUE(contains(second.status(), "already exists")) << second.status().message();
  EXPECT_TRUE(Segment::open(name).is_ok());  // the first one is untouched
}

TEST(Segment, RejectsNamesThatAreNotPosixShmNames) {
  for (const std::string& bad : std::vector<std::string>{"", "/", "noslash", "/a/b", "/" + std::string(201, 'x')}) {
    EXPECT_EQ(Segment::create(bad, 4096).status().code(), ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(Segment::open(bad).status().code(), ErrorCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(Segment::create(unique_prefix(), 0).status().code(), ErrorCode::kInvalidArgument);
}

TEST(Segment, MoreThanDevShmHoldsIsAClearErrorAndLeavesNoSegment) {
  const std::string name = unique_prefix();
  ShmCleanup cleanup(name);
  auto avail = shm_available_bytes();
  ASSERT_TRUE(avail.is_ok()) << avail.status().to_string();
  const uint64_t request = *avail + (1ull << 30);
  auto seg = Segment::create(name, request);
  ASSERT_FALSE(seg.is_ok());
  EXPECT_EQ(seg.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_TRUE(contains(seg.status(), name)) << seg.status().message();
  EXPECT_TRUE(contains(seg.status(), std::to_string(request) + " bytes")) << seg.status().message();
  EXPECT_TRUE(contains(seg.status(), "/dev/shm has")) << seg.status().message();
  EXPECT_EQ(Segment::open(name).status().code(), ErrorCode::kNotFound);
}

// The statvfs pre-check passes but posix_fallocate fails (here: EFBIG from a
// 1 MiB RLIMIT_FSIZE in a child, the way a full tmpfs gives ENOSPC when
// another process takes the space between the check and the allocation).
TEST(Segment, AFailingFallocateIsReportedAndTheNameUnlinked) {
  const std::string name = unique_prefix();
  ShmCleanup cleanup(name);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills us instead of returning EFBIG
    const rlimit limit{1 << 20, 1 << 20};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(10);
    auto seg = Segment::create(name, 4 << 20);
    if (seg.is_ok()) ::_exit(11);
    if (seg.status().code() != ErrorCode::kResourceExhausted) ::_exit(12);
    if (!contains(seg.status(), "posix_fallocate")) ::_exit(13);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10 setrlimit, 11 created, 12 wrong code, 13 message lacks posix_fallocate";
  EXPECT_EQ(Segment::open(name).status().code(), ErrorCode::kNotFound);
}

constexpr Seat kSynth = 0, kGpu = 1;

class RingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ring = Ring::create(prefix_, 3, 5000, 2, 0x1234);
    ASSERT_TRUE(ring.is_ok()) << ring.status().to_string();
    ring_.emplace(std::move(ring).value());
  }
  // Waits for the forked child and returns its exit code (128 + signal).
  static int reap(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string prefix_ = unique_prefix();
  ShmCleanup cleanup_{prefix_};
  std::optional<Ring> ring_;
};

TEST_F(RingTest, OpenSeesTheCreatorsLayoutSlotsAndSeats) {
  EXPECT_EQ(ring_->slot_size(), 8192u);  // rounded up to 4 KiB
  EXPECT_EQ(ring_->payload_bytes(), 3u * 8192u);
  EXPECT_NE(ring_->describe().find("3 slots x 8.00 KiB"), std::string::npos) << ring_->describe();
  ring_->set_seat_owner(kGpu, 4242, 7);
  ring_->beat(kGpu, 99);
  ring_->slots().payload(2)[10] = std::byte{0xEE};

  auto other = Ring::open(prefix_);
  ASSERT_TRUE(other.is_ok()) << other.status().to_string();
  EXPECT_EQ(other->run_id(), 0x1234u);
  EXPECT_EQ(other->slot_count(), 3u);
  EXPECT_EQ(other->seat_count(), 2u);
  EXPECT_EQ(other->slot_size(), 8192u);
  EXPECT_EQ(other->slots().payload(2)[10], std::byte{0xEE});
  const SeatStatus seat = other->seat_status(kGpu);
  EXPECT_EQ(seat.pid, 4242u);
  EXPECT_EQ(seat.incarnation, 7u);
  EXPECT_EQ(seat.last_beat_ms, 99u);
  EXPECT_EQ(other->seat_status(kSynth).pid, 0u);  // vacant
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(other->slots().load(i), (SlotWord{SlotState::kFree, kNoSeat, 0}));
}

TEST_F(RingTest, UnlinkRemovesBothSegmentsAndIsIdempotent) {
  ASSERT_TRUE(Ring::unlink(prefix_).is_ok());
  EXPECT_EQ(Ring::open(prefix_).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Segment::open(Ring::data_name(prefix_)).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(Ring::unlink(prefix_).is_ok());
  EXPECT_EQ(ring_->slots().load(0).state, SlotState::kFree);  // our mapping lives on
}

TEST_F(RingTest, ASecondCreateWithTheSamePrefixFailsAndLeavesTheFirstIntact) {
  auto again = Ring::create(prefix_, 1, 4096, 1, 1);
  ASSERT_FALSE(again.is_ok());
  EXPECT_TRUE(contains(again.status(), "already exists")) << again.status().message();
  EXPECT_TRUE(Ring::open(prefix_).is_ok());
}

TEST_F(RingTest, OpenRejectsAnotherLayoutVersionAndAForeignMagic) {
  auto ctl = Segment::open(Ring::control_name(prefix_));
  ASSERT_TRUE(ctl.is_ok());
  ControlHeader* h = control_header(ctl->data());
  h->layout_version = 9;
  auto opened = Ring::open(prefix_);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kBadFormat);
  EXPECT_TRUE(contains(opened.status(), Ring::control_name(prefix_) + ": shm control segment: layout version 9"))
      << opened.status().message();
  h->layout_version = kLayoutVersion;
  h->magic = 0x4141414141414141ull;
  opened = Ring::open(prefix_);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_TRUE(contains(opened.status(), "bad magic")) << opened.status().message();
}

TEST_F(RingTest, OpenRejectsAPayloadSegmentSmallerThanTheHeaderSays) {
  ASSERT_TRUE(Segment::unlink(Ring::data_name(prefix_)).is_ok());
  ASSERT_TRUE(Segment::create(Ring::data_name(prefix_), 8192).is_ok());
  auto opened = Ring::open(prefix_);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kBadFormat);
  EXPECT_TRUE(contains(opened.status(), "the control header says 24576")) << opened.status().message();
}

TEST(RingCreate, ARingLargerThanDevShmFailsCleanlyWithBothSizes) {
  const std::string prefix = unique_prefix();
  ShmCleanup cleanup(prefix);
  const uint64_t avail = shm_available_bytes().value();
  const uint64_t slot = avail / 2 + (1ull << 30);  // 2 slots: more than all of it
  auto ring = Ring::create(prefix, 2, slot, 1, 1);
  ASSERT_FALSE(ring.is_ok());
  EXPECT_EQ(ring.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_TRUE(contains(ring.status(), "free")) << ring.status().message();
  EXPECT_EQ(Segment::open(Ring::data_name(prefix)).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Segment::open(Ring::control_name(prefix)).status().code(), ErrorCode::kNotFound);
}

TEST(RingCreate, RunIdsArePrefixesOfTheirOwn) {
  const uint64_t id = make_run_id().value();
  EXPECT_NE(id, 0u);
  EXPECT_EQ(ring_prefix(0xABCull), "/proofpipe-0000000000000abc");
  EXPECT_TRUE(Segment::check_name(Ring::data_name(ring_prefix(id))).is_ok());
}

// The coordinator names its ring after its pid (a later run finds rings whose
// coordinator is gone); stale-run cleanup parses the names back.
TEST(RingNames, ACoordinatorsPrefixRoundTripsThroughParseRingName) {
  const std::string prefix = ring_prefix(4242L, 0xDEADBEEF00C0FFEEull);
  EXPECT_EQ(prefix, "/proofpipe-4242-deadbeef00c0ffee");
  EXPECT_TRUE(Segment::check_name(Ring::control_name(prefix)).is_ok());
  EXPECT_EQ(parse_ring_name(Ring::control_name(prefix)), (RingName{4242, 0xDEADBEEF00C0FFEEull, "ctl"}));
  EXPECT_EQ(parse_ring_name(Ring::data_name(prefix).substr(1)), (RingName{4242, 0xDEADBEEF00C0FFEEull, "data"}));
}

TEST(RingNames, ParseRingNameRefusesEveryOtherName) {
  for (const char* name :
       {"", "proofpipe-", "proofpipe-1-", "proofpipe-0000000000000abc-data",  // no pid
        "proofpipe-12-00000000000abc-data",                                   // 14 digits
        "proofpipe-12-0000000000000abc-log", "proofpipe-12-0000000000000abc-data-x",
        "proofpipe--12-0000000000000abc-ctl", "proofpipe-0-0000000000000abc-ctl", "proofpipe-x-0000000000000abc-ctl",
        "proofpipe-12-00000000000zzabc-ctl", "other-12-0000000000000abc-ctl", "proofpipe-run-abc123"}) {
    EXPECT_EQ(parse_ring_name(name), std::nullopt) << name;
  }
}

// Child (a synth worker): open the ring by name, check the grant, write a
// record, checksum it, seal. Parent (GPU worker + coordinator): claim, verify.
TEST_F(RingTest, MultiProcessAChildSealsASlotAndTheParentClaimsAndVerifiesIt) {
  const auto grant = ring_->slots().grant(1, 0, kSynth);
  ASSERT_TRUE(grant);
  const Epoch granted = *grant;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto ring = Ring::open(prefix_);
    if (!ring.is_ok()) ::_exit(10);
    SlotRing& slots = ring->slots();
    if (!slots.owns(1, SlotState::kWriting, kSynth, granted)) ::_exit(11);
    auto bytes = slots.payload(1);
    for (size_t i = 0; i < 6000; ++i) bytes[i] = std::byte(uint8_t(i * 7 + 3));
    const SlotRing::SealInfo info{42, 3, 1, 6000, record_checksum(bytes.first(6000))};
    ::_exit(slots.seal(1, kSynth, granted, info) ? 0 : 12);
  }
  ASSERT_EQ(reap(pid), 0) << "10 open failed, 11 not owner, 12 seal lost";
  SlotRing& slots = ring_->slots();
  const SlotWord sealed = slots.load(1);
  EXPECT_EQ(sealed, (SlotWord{SlotState::kReady, kSynth, sealed.epoch}));
  EXPECT_GT(sealed.epoch, granted);
  const auto claimed = slots.claim(1, kGpu, sealed.epoch);
  ASSERT_TRUE(claimed);
  auto meta = slots.verify(1);
  ASSERT_TRUE(meta.is_ok()) << meta.status().to_string();
  EXPECT_EQ(meta->job_id, 42u);
  EXPECT_EQ(meta->partition_id, 3u);
  EXPECT_EQ(meta->payload_len, 6000u);
  EXPECT_EQ(slots.payload(1)[5999], std::byte(uint8_t(5999 * 7 + 3)));
  EXPECT_TRUE(slots.release(1, kGpu, *claimed));
}

// The child is SIGKILLed half-way through its record. Only after waitpid()
// has reaped it does the coordinator reclaim; the dead grant is then stale.
TEST_F(RingTest, MultiProcessAChildKilledMidWriteIsReapedThenItsSlotReclaimed) {
  ASSERT_TRUE(ring_->slots().grant(0, 0, kSynth));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto ring = Ring::open(prefix_);
    if (!ring.is_ok()) ::_exit(10);
    std::memset(ring->slots().payload(0).data(), 0x77, 3000);
    ::raise(SIGKILL);
    ::_exit(11);
  }
  ASSERT_EQ(reap(pid), 128 + SIGKILL);
  SlotRing& slots = ring_->slots();
  EXPECT_EQ(slots.load(0), (SlotWord{SlotState::kWriting, kSynth, 1}));  // nothing moved by itself
  ASSERT_TRUE(slots.reclaim_writing(0, kSynth, 1));
  EXPECT_EQ(slots.load(0), (SlotWord{SlotState::kFree, kNoSeat, 2}));
  EXPECT_FALSE(slots.seal(0, kSynth, 1, {}));  // what the dead writer held is fenced
  ASSERT_TRUE(slots.grant(0, 2, kSynth));      // the respawned incarnation gets a new epoch
  EXPECT_TRUE(slots.owns(0, SlotState::kWriting, kSynth, 3));
}

}  // namespace
}  // namespace proofpipe::shm
