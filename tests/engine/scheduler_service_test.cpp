// The Scheduler and Ledger features a resident service uses (`proofpipe
// serve`, service/): partitions appended while running, priority before age,
// the key a partition's messages carry, cancellation at every state, held
// grants while draining, and the observer the journal hangs on. Same
// plain-memory ring as scheduler_test.cpp, with the test playing the workers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "scheduler.hpp"

namespace proofpipe::engine {
namespace {

using ipc::MsgType;
using shm::SlotState;
using shm::SlotWord;

constexpr uint64_t kSlotBytes = 64;

class ServiceSchedulerTest : public ::testing::Test {
 protected:
  // An empty ledger (a service starts with none), 2 writers and 1 prover.
  void SetUp() override {
    headers_.assign(3, shm::SlotHeader{});
    for (auto& h : headers_) h.word = SlotWord{SlotState::kFree, shm::kNoSeat, 0}.pack();
    payload_.assign(3 * kSlotBytes, std::byte{0});
    ring_ = shm::SlotRing(headers_.data(), 3, 3, payload_.data(), kSlotBytes);
    ledger_.emplace(std::vector<Partition>{}, 3);
    ledger_->set_observer([this](const Partition& p, LedgerEvent e, std::string_view cause) {
      events_.emplace_back(p.index, e, std::string(cause));
    });
    sched_.emplace(*ledger_, ring_, 2, 1, std::vector<size_t>{sizeof(groth16::ProofT<curves::Bls12_381>)});
    for (uint8_t s = 0; s < 3; ++s) {
      sched_->seat_started(s, s + 1u);
      send(s, MsgType::kHello);
    }
  }
  uint32_t add(uint64_t request, int64_t priority, uint8_t key = 0) {
    Partition p;
    p.job = request;
    p.priority = priority;
    p.key = key;
    p.stem = "r" + std::to_string(request) + "p" + std::to_string(ledger_->size());
    p.wtns = p.stem + ".wtns";
    return ledger_->append(std::move(p));
  }
  Actions send(uint8_t seat, MsgType type, uint32_t slot = 0, uint64_t epoch = 0, uint32_t part = 0,
               uint32_t attempt = 0, std::string body = {}) {
    const SeatState& w = sched_->seat(seat);
    ipc::MsgHeader h;
    h.type = type;
    h.role = w.role;
    h.seat = seat;
    h.incarnation = w.incarnation;
    h.slot = slot;
    h.epoch = epoch;
    h.partition = part;
    h.attempt = attempt;
    return sched_->on_message(ipc::routing_id(w.role, seat, w.incarnation), {h, std::move(body)}, 0.0);
  }
  static std::vector<Action> sends(const Actions& as) {
    std::vector<Action> out;
    for (const Action& a : as) {
      if (a.kind == Action::Kind::kSend) out.push_back(a);
    }
    return out;
  }
  // Writer `seat` asks for a slot; the grant it gets (or none).
  std::vector<Action> want(uint8_t seat) {
    send(seat, MsgType::kWantSlot);
    return sends(sched_->schedule(0.0));
  }
  void seal(const Action& grant) {
    const auto& g = grant.message.header;
    auto bytes = ring_.payload(g.slot);
    std::memset(bytes.data(), int(g.partition + 1), kSlotBytes);
    const auto sealed = ring_.seal(g.slot, grant.seat, g.epoch,
                                   {g.job, g.partition, g.attempt, kSlotBytes, shm::record_checksum(bytes)});
    ASSERT_TRUE(sealed);
    send(grant.seat, MsgType::kSealed, g.slot, *sealed, g.partition, g.attempt);
  }
  // Writer 0 writes the next partition, the prover is dispatched it and
  // claims it: the dispatch and the CONSUMING epoch.
  std::pair<Action, uint64_t> claimed_by_prover() {
    const auto g = want(0);
    EXPECT_EQ(g.size(), 1u);
    seal(g.at(0));
    const auto d = sends(sched_->schedule(0.0));
    EXPECT_EQ(d.size(), 1u);
    const auto& dh = d.at(0).message.header;
    const auto claimed = ring_.claim(dh.slot, d[0].seat, dh.epoch);
    EXPECT_TRUE(claimed);
    send(d[0].seat, MsgType::kClaimed, dh.slot, claimed.value_or(0), dh.partition, dh.attempt);
    return {d[0], claimed.value_or(0)};
  }
  size_t free_slots() const {
    size_t n = 0;
    for (uint32_t s = 0; s < 3; ++s) n += ring_.load(s).state == SlotState::kFree;
    return n;
  }

  std::vector<shm::SlotHeader> headers_;
  std::vector<std::byte> payload_;
  shm::SlotRing ring_;
  std::optional<Ledger> ledger_;
  std::optional<Scheduler> sched_;
  std::vector<std::tuple<uint32_t, LedgerEvent, std::string>> events_;
};

TEST_F(ServiceSchedulerTest, AppendedPartitionsAreGrantedHighestPriorityFirstThenOldest) {
  const uint32_t old_low = add(1, 0), new_high = add(2, 5), newer_high = add(3, 5);
  auto g = want(0);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].message.header.partition, new_high);  // priority beats age
  g = want(1);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].message.header.partition, newer_high);  // same priority: the older request
  EXPECT_EQ(ledger_->count(PartState::kPending), 1u);
  EXPECT_EQ(ledger_->next_pending(), old_low);
  EXPECT_EQ(ledger_->in_flight(), 2u);
}

TEST_F(ServiceSchedulerTest, AHigherPriorityRecordIsDispatchedBeforeOlderLowerOnes) {
  sched_->seat_died(2, "prover away", 0.0);  // records pile up READY meanwhile
  const uint32_t low_a = add(1, 0), low_b = add(1, 0);
  seal(want(0).at(0));
  seal(want(1).at(0));
  const uint32_t high = add(2, 7);
  seal(want(0).at(0));
  for (uint32_t i : {low_a, low_b, high}) ASSERT_EQ(ledger_->at(i).state, PartState::kReady) << i;
  sched_->seat_started(2, 10);
  send(2, MsgType::kHello);
  const auto d = sends(sched_->schedule(0.0));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message.header.partition, high);
}

TEST_F(ServiceSchedulerTest, GrantsAndDispatchesCarryThePartitionsKey) {
  add(1, 0, /*key=*/2);
  const auto g = want(0);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].message.header.key, 2);
  seal(g[0]);
  const auto d = sends(sched_->schedule(0.0));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message.header.type, MsgType::kDispatch);
  EXPECT_EQ(d[0].message.header.key, 2);
}

TEST_F(ServiceSchedulerTest, CancelEndsPendingAndUndispatchedReadyPartitionsAndFreesTheirSlots) {
  const uint32_t a = add(1, 0), b = add(1, 0), c = add(1, 0);
  // a is granted and sealed; the prover is busy with nothing yet, so hold it
  // off by making it not idle: take it down first.
  sched_->seat_died(2, "prover away", 0.0);
  const auto g = want(0);
  ASSERT_EQ(g.size(), 1u);
  ASSERT_EQ(g[0].message.header.partition, a);
  seal(g[0]);
  ASSERT_EQ(ledger_->at(a).state, PartState::kReady);
  EXPECT_EQ(free_slots(), 2u);
  sched_->cancel(a);
  sched_->cancel(b);
  EXPECT_EQ(ledger_->at(a).state, PartState::kFailed);
  EXPECT_EQ(ledger_->at(b).state, PartState::kFailed);
  EXPECT_EQ(ledger_->at(c).state, PartState::kPending);
  EXPECT_EQ(free_slots(), 3u);  // a's sealed record was discarded
  // The prover comes back: nothing of the cancelled ones is dispatched.
  sched_->seat_started(2, 10);
  send(2, MsgType::kHello);
  EXPECT_TRUE(sends(sched_->schedule(0.0)).empty());
  EXPECT_TRUE(sends(sched_->reconcile(0.0)).empty());
  // Only c is left to grant.
  const auto g2 = want(1);
  ASSERT_EQ(g2.size(), 1u);
  EXPECT_EQ(g2[0].message.header.partition, c);
}

TEST_F(ServiceSchedulerTest, APartitionCancelledWhileWritingIsDiscardedWhenSealedNeverDispatched) {
  const uint32_t a = add(1, 0);
  const auto g = want(0);
  ASSERT_EQ(g.size(), 1u);
  sched_->cancel(a);
  EXPECT_EQ(ledger_->at(a).state, PartState::kWriting);  // its writer still holds the slot
  seal(g[0]);
  EXPECT_TRUE(sends(sched_->schedule(0.0)).empty());  // no DISPATCH
  EXPECT_EQ(ledger_->at(a).state, PartState::kFailed);
  EXPECT_EQ(free_slots(), 3u);
}

TEST_F(ServiceSchedulerTest, APartitionCancelledWhileWritingIsNotRetriedWhenItsWriterDies) {
  const uint32_t a = add(1, 0);
  ASSERT_EQ(want(0).size(), 1u);
  sched_->cancel(a);
  sched_->seat_died(0, "killed", 0.0);
  EXPECT_EQ(ledger_->at(a).state, PartState::kFailed);
  EXPECT_EQ(ledger_->count(PartState::kPending), 0u);
}

TEST_F(ServiceSchedulerTest, AProofOfAPartitionCancelledWhileProvingStillCommits) {
  const uint32_t a = add(1, 0);
  const auto [d, claimed] = claimed_by_prover();
  const auto& dh = d.message.header;
  sched_->cancel(a);
  const auto proof = send(2, MsgType::kProof, dh.slot, claimed, a, dh.attempt,
                          std::string(sizeof(groth16::ProofT<curves::Bls12_381>) + sizeof(ipc::ProveStages), '\0'));
  bool verify = false;
  for (const Action& x : proof) verify |= x.kind == Action::Kind::kVerify;
  ASSERT_TRUE(verify);
  EXPECT_FALSE(sched_->committed(a, {}, 1.0).empty());
  EXPECT_EQ(ledger_->at(a).state, PartState::kDone);
}

TEST_F(ServiceSchedulerTest, HeldGrantsWaitWhileGrantedWorkFinishes) {
  add(1, 0);
  add(1, 0);
  ASSERT_EQ(want(0).size(), 1u);
  sched_->hold_grants(true);
  EXPECT_TRUE(want(1).empty());
  EXPECT_EQ(ledger_->count(PartState::kPending), 1u);
  sched_->hold_grants(false);
  EXPECT_EQ(sends(sched_->schedule(0.0)).size(), 1u);  // the waiting writer gets it now
}

TEST_F(ServiceSchedulerTest, TheObserverHearsEveryTransitionTheJournalRecords) {
  const uint32_t a = add(1, 0), b = add(1, 0);
  const auto g = want(0);
  ASSERT_EQ(g.size(), 1u);
  send(0, MsgType::kSynthFailed, g[0].message.header.slot, g[0].message.header.epoch, a, g[0].message.header.attempt,
       "disk hiccup");
  sched_->cancel(b);
  using E = LedgerEvent;
  const std::vector<std::tuple<uint32_t, LedgerEvent, std::string>> want_events = {
      {a, E::kAttemptStarted, ""}, {a, E::kRequeued, "disk hiccup"}, {b, E::kFailed, "cancelled"}};
  EXPECT_EQ(events_, want_events);
}

TEST_F(ServiceSchedulerTest, ScansStartAfterTheEndedPrefix) {
  const uint32_t a = add(1, 0);
  add(1, 0);
  EXPECT_EQ(ledger_->open_begin(), 0u);
  sched_->cancel(a);
  EXPECT_EQ(ledger_->open_begin(), 1u);
  ledger_->forget_payload(a);
  EXPECT_TRUE(ledger_->at(a).causes.empty());
}

TEST_F(ServiceSchedulerTest, EndedPartitionsLeaveTheLedgerButNotWhileASeatStillNamesThem) {
  // a is cancelled while proving: it ends, but the prover still holds it
  // until its PROOF arrives, so it may not be dropped before then.
  const uint32_t a = add(1, 0), b = add(1, 0), c = add(1, 0);
  const auto [d, claimed] = claimed_by_prover();
  const auto& dh = d.message.header;
  sched_->cancel(b);
  EXPECT_EQ(sched_->lowest_named(), a);
  EXPECT_EQ(ledger_->drop_ended_before(sched_->lowest_named()), 0u);
  ASSERT_TRUE(ledger_->holds(a));

  // The prover frees the slot and its proof commits: nothing names a or b
  // any more, c is open.
  const auto freed = ring_.release(dh.slot, d.seat, claimed);
  ASSERT_TRUE(freed);
  send(2, MsgType::kReleased, dh.slot, *freed, a, dh.attempt);
  EXPECT_EQ(sched_->lowest_named(), a);  // the proof is still to come
  const auto proof = send(2, MsgType::kProof, dh.slot, claimed, a, dh.attempt,
                          std::string(sizeof(groth16::ProofT<curves::Bls12_381>) + sizeof(ipc::ProveStages), '\0'));
  ASSERT_FALSE(proof.empty());
  ASSERT_FALSE(sched_->committed(a, {}, 1.0).empty());
  EXPECT_EQ(ledger_->drop_ended_before(sched_->lowest_named()), 2u);
  EXPECT_EQ(ledger_->first_held(), c);
  EXPECT_FALSE(ledger_->holds(a));
  EXPECT_FALSE(ledger_->holds(b));
  EXPECT_EQ(ledger_->size(), 3u);  // indices keep counting
  EXPECT_EQ(ledger_->count(PartState::kDone), 1u);
  EXPECT_EQ(ledger_->count(PartState::kFailed), 1u);
  EXPECT_EQ(add(2, 0), 3u);

  // A late message about a dropped partition is stale, not a crash.
  const uint64_t stale_before = sched_->counts().stale_messages;
  send(2, MsgType::kProof, dh.slot, claimed, a, dh.attempt,
       std::string(sizeof(groth16::ProofT<curves::Bls12_381>) + sizeof(ipc::ProveStages), '\0'));
  send(0, MsgType::kSealed, dh.slot, claimed, b, 1);
  EXPECT_EQ(sched_->counts().stale_messages, stale_before + 2);
  EXPECT_EQ(sched_->counts().malformed_messages, 0u);
}

}  // namespace
}  // namespace proofpipe::engine
