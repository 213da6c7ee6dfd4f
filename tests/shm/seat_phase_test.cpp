// The seat record's phase (layout version 3): a worker is in set-up from its
// spawn until it says HELLO, and the coordinator's hang check holds set-up
// to a longer deadline than work. Every new owner starts in set-up, so a
// restarted worker is never held to its predecessor's working deadline.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fmt/format.h>

#include "proofpipe/shm/ring.hpp"

namespace proofpipe::shm {
namespace {

TEST(SeatPhase, EveryNewOwnerStartsInSetUpAndTheWorkerMovesItToWorking) {
  const std::string prefix = fmt::format("/pp-test-phase-{}", ::getpid());
  auto ring = Ring::create(prefix, 1, 4096, 2, 0x77);
  ASSERT_TRUE(ring.is_ok()) << ring.status().to_string();
  EXPECT_EQ(ring->seat_status(1).phase, SeatPhase::kSetup);  // a fresh ring
  ring->set_seat_owner(1, 100, 1);
  EXPECT_EQ(ring->seat_status(1).phase, SeatPhase::kSetup);

  // The worker's side, through its own mapping.
  auto worker = Ring::open(prefix);
  ASSERT_TRUE(worker.is_ok()) << worker.status().to_string();
  worker->set_seat_phase(1, SeatPhase::kWorking);
  EXPECT_EQ(ring->seat_status(1).phase, SeatPhase::kWorking);
  EXPECT_EQ(ring->seat_status(0).phase, SeatPhase::kSetup);  // its own line only

  ring->set_seat_owner(1, 101, 2);  // a restart
  EXPECT_EQ(ring->seat_status(1).phase, SeatPhase::kSetup);
  EXPECT_EQ(ring->seat_status(1).incarnation, 2u);
  EXPECT_TRUE(Ring::unlink(prefix).is_ok());
}

}  // namespace
}  // namespace proofpipe::shm
