// The engine's Scheduler over plain memory (engine/src/scheduler.hpp):
// a SlotRing over a std::vector of headers and payload bytes, a run clock the
// test sets, and the actions it returns read back instead of sockets. The
// test plays the workers: it makes their CASes on the ring and sends their
// messages, so every decision is checked without a process.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "scheduler.hpp"

namespace proofpipe::engine {
namespace {

using ipc::MsgType;
using shm::SlotState;
using shm::SlotWord;

constexpr uint64_t kSlotBytes = 64;

class SchedulerTest : public ::testing::Test {
 protected:
  // synth seats 0..synth-1, gpu seats after them.
  void make(uint32_t slots, uint32_t parts, uint32_t synth = 2, uint32_t gpu = 1, uint32_t max_attempts = 3) {
    headers_.assign(slots, shm::SlotHeader{});
    for (auto& h : headers_) h.word = SlotWord{SlotState::kFree, shm::kNoSeat, 0}.pack();
    payload_.assign(slots * kSlotBytes, std::byte{0});
    ring_ = shm::SlotRing(headers_.data(), slots, synth + gpu, payload_.data(), kSlotBytes);
    std::vector<Partition> ps(parts);
    for (uint32_t i = 0; i < parts; ++i) {
      ps[i].index = i;
      ps[i].stem = "p" + std::to_string(i);
      ps[i].wtns = "w" + std::to_string(i) + ".wtns";
    }
    ledger_.emplace(std::move(ps), max_attempts);
    sched_.emplace(*ledger_, ring_, synth, gpu, proof_bytes_);
    for (uint32_t s = 0; s < synth + gpu; ++s) start(uint8_t(s));
  }
  void start(uint8_t seat) {
    sched_->seat_started(seat, ++incarnation_);
    send(seat, MsgType::kHello);
  }
  ipc::Message msg(uint8_t seat, MsgType type, uint32_t slot = 0, uint64_t epoch = 0, uint32_t part = 0,
                   uint32_t attempt = 0, std::string body = {}) const {
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
    return {h, std::move(body)};
  }
  Actions deliver(const ipc::Message& m) {
    return sched_->on_message(ipc::routing_id(m.header.role, m.header.seat, m.header.incarnation), m, now_);
  }
  Actions send(uint8_t seat, MsgType type, uint32_t slot = 0, uint64_t epoch = 0, uint32_t part = 0,
               uint32_t attempt = 0, std::string body = {}) {
    return deliver(msg(seat, type, slot, epoch, part, attempt, std::move(body)));
  }
  // The kSend actions of a batch, as (seat, message).
  static std::vector<Action> sends(const Actions& as) {
    std::vector<Action> out;
    for (const Action& a : as) {
      if (a.kind == Action::Kind::kSend) out.push_back(a);
    }
    return out;
  }
  // A writer that got `grant` seals its slot and says so.
  void seal(const Action& grant, std::string body = {}) {
    const auto& g = grant.message.header;
    auto bytes = ring_.payload(g.slot);
    std::memset(bytes.data(), int(g.partition + 1), kSlotBytes);
    const auto sealed = ring_.seal(g.slot, grant.seat, g.epoch,
                                   {g.job, g.partition, g.attempt, kSlotBytes, shm::record_checksum(bytes)});
    ASSERT_TRUE(sealed);
    send(grant.seat, MsgType::kSealed, g.slot, *sealed, g.partition, g.attempt, std::move(body));
  }
  // Writer `writer` asks for a slot and seals the partition it is granted;
  // returns what the next schedule() sends (the dispatch, when a prover is idle).
  std::vector<Action> sealed_then_dispatched(uint8_t writer) {
    send(writer, MsgType::kWantSlot);
    seal(sends(sched_->schedule(now_)).at(0));
    return sends(sched_->schedule(now_));
  }
  // A prover that got `dispatch` claims it; returns the CONSUMING epoch.
  uint64_t claim(const Action& dispatch) {
    const auto& d = dispatch.message.header;
    const auto claimed = ring_.claim(d.slot, dispatch.seat, d.epoch);
    EXPECT_TRUE(claimed);
    send(dispatch.seat, MsgType::kClaimed, d.slot, claimed.value_or(0), d.partition, d.attempt);
    return claimed.value_or(0);
  }
  void release(const Action& dispatch, uint64_t consuming) {
    const auto& d = dispatch.message.header;
    const auto freed = ring_.release(d.slot, dispatch.seat, consuming);
    ASSERT_TRUE(freed);
    send(dispatch.seat, MsgType::kReleased, d.slot, *freed, d.partition, d.attempt);
  }
  Actions prove(const Action& dispatch,
                std::string body = std::string(sizeof(groth16::ProofT<curves::Bls12_381>) + sizeof(ipc::ProveStages),
                                               '\0')) {
    const auto& d = dispatch.message.header;
    return send(dispatch.seat, MsgType::kProof, d.slot, d.epoch, d.partition, d.attempt, std::move(body));
  }
  // One partition through a writer and the prover, up to its PROOF.
  Actions through(uint8_t writer, uint8_t gpu) {
    send(writer, MsgType::kWantSlot);
    const auto g = sends(sched_->schedule(now_));
    EXPECT_EQ(g.size(), 1u);
    seal(g.at(0));
    const auto d = sends(sched_->schedule(now_));
    EXPECT_EQ(d.size(), 1u);
    EXPECT_EQ(d.at(0).seat, gpu);
    release(d.at(0), claim(d.at(0)));
    return prove(d.at(0));
  }

  std::vector<size_t> proof_bytes_ = {
      sizeof(groth16::ProofT<curves::Bls12_381>)};  // by key: BLS12-381's unless a test says
  std::vector<shm::SlotHeader> headers_;
  std::vector<std::byte> payload_;
  shm::SlotRing ring_;
  std::optional<Ledger> ledger_;
  std::optional<Scheduler> sched_;
  uint32_t incarnation_ = 0;
  double now_ = 1.0;
};

TEST_F(SchedulerTest, GrantsGoToWaitingWritersInFifoOrderAndWaitForAFreeSlot) {
  make(/*slots=*/1, /*parts=*/3);
  send(1, MsgType::kWantSlot);
  send(0, MsgType::kWantSlot);
  auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);  // one slot: seat 0 waits (backpressure)
  EXPECT_EQ(g[0].seat, 1);
  EXPECT_EQ(g[0].message.header.type, MsgType::kGrant);
  EXPECT_EQ(g[0].message.header.partition, 0u);
  EXPECT_EQ(g[0].message.header.epoch, ring_.load(0).epoch);
  EXPECT_EQ(g[0].message.body, "w0.wtns");
  EXPECT_TRUE(sends(sched_->schedule(now_)).empty());
  seal(g[0]);
  const auto d = sends(sched_->schedule(now_));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message.header.type, MsgType::kDispatch);
  EXPECT_TRUE(sends(sched_->schedule(now_)).empty());  // READY still holds the slot
  release(d[0], claim(d[0]));
  g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].seat, 0);
  EXPECT_EQ(g[0].message.header.partition, 1u);
}

TEST_F(SchedulerTest, ReadyPartitionsAreDispatchedOldestFirst) {
  make(/*slots=*/3, /*parts=*/3);
  send(0, MsgType::kWantSlot);
  send(1, MsgType::kWantSlot);
  auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 2u);
  sched_->seat_died(2, "gpu away", now_);  // no prover while both seal: the queue orders them
  seal(g[1]);                              // partition 1 seals first
  seal(g[0]);
  start(2);
  const auto d = sends(sched_->schedule(now_));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message.header.partition, 1u);
}

TEST_F(SchedulerTest, ADeadWritersSlotIsReclaimedAndItsPartitionRequeuedWithTheNextAttempt) {
  make(/*slots=*/1, /*parts=*/1);
  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(ledger_->at(0).attempt, 1u);
  sched_->seat_died(0, "synth.0 killed by SIGKILL", now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kFree);
  EXPECT_EQ(ledger_->at(0).state, PartState::kPending);
  EXPECT_EQ(ledger_->at(0).causes.at(0), "synth.0 killed by SIGKILL while writing");
  send(1, MsgType::kWantSlot);
  const auto again = sends(sched_->schedule(now_));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].seat, 1);
  EXPECT_EQ(again[0].message.header.attempt, 2u);
  // The dead writer's SEALED (a zombie's message) is stale.
  const auto before = sched_->counts().stale_messages;
  deliver(msg(0, MsgType::kSealed, 0, 2, 0, 1));
  EXPECT_EQ(sched_->counts().stale_messages, before + 1);
}

TEST_F(SchedulerTest, ADeadConsumersSlotGoesBackToReadyAndIsDispatchedAgain) {
  make(/*slots=*/1, /*parts=*/1, /*synth=*/1, /*gpu=*/2);
  const auto d = sealed_then_dispatched(0);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].seat, 1);
  claim(d[0]);
  sched_->seat_died(1, "gpu.1 killed", now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kReady);
  EXPECT_EQ(ledger_->at(0).state, PartState::kReady);
  const auto again = sends(sched_->schedule(now_));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].seat, 2);
  EXPECT_EQ(again[0].message.header.attempt, 1u);  // no re-synthesis
  EXPECT_EQ(again[0].message.header.epoch, ring_.load(0).epoch);
}

TEST_F(SchedulerTest, APartitionThatFailsMaxAttemptsTimesEndsFailedWithEveryCause) {
  make(/*slots=*/1, /*parts=*/1, /*synth=*/1, /*gpu=*/1, /*max_attempts=*/2);
  for (int i = 0; i < 2; ++i) {
    send(0, MsgType::kWantSlot);
    ASSERT_EQ(sends(sched_->schedule(now_)).size(), 1u);
    sched_->seat_died(0, "crash " + std::to_string(i), now_);
    start(0);
  }
  EXPECT_EQ(ledger_->at(0).state, PartState::kFailed);
  EXPECT_EQ(ledger_->at(0).causes, (std::vector<std::string>{"crash 0 while writing", "crash 1 while writing"}));
  EXPECT_TRUE(ledger_->finished());
  EXPECT_EQ(ring_.load(0).state, SlotState::kFree);
}

TEST_F(SchedulerTest, AProofIsCommittedExactlyOnce) {
  make(/*slots=*/1, /*parts=*/1);
  const Actions a = through(0, 2);
  const auto verify = std::find_if(a.begin(), a.end(), [](const Action& x) { return x.kind == Action::Kind::kVerify; });
  ASSERT_NE(verify, a.end());
  EXPECT_FALSE(sched_->committed(0, verify->stages, now_).empty());
  EXPECT_EQ(ledger_->at(0).state, PartState::kDone);
  EXPECT_TRUE(sched_->committed(0, verify->stages, now_).empty());
  EXPECT_EQ(sched_->counts().duplicate_proofs, 1u);
  Action again;
  again.seat = 2;
  again.message = msg(2, MsgType::kDispatch, 0, 0, 0, 1);
  const Actions dup = prove(again);
  EXPECT_TRUE(std::none_of(dup.begin(), dup.end(), [](const Action& x) { return x.kind == Action::Kind::kVerify; }));
}

// A PROOF body holds exactly a proof of the partition's key's curve: on a
// bn128 key (256-byte proofs) a BLS12-381-sized body is malformed, and the
// right size goes to verification as raw bytes, the stages after them.
TEST_F(SchedulerTest, AProofBodyMustBeTheSizeOfItsKeysCurvesProof) {
  constexpr size_t kBn = sizeof(formats::ProofT<curves::Bn254>);
  static_assert(kBn == 256 && sizeof(groth16::ProofT<curves::Bls12_381>) == 384);
  proof_bytes_ = {kBn};
  make(/*slots=*/1, /*parts=*/1);
  Actions a = through(0, 2);  // a body for BLS12-381: 384 + 24 bytes
  EXPECT_TRUE(std::none_of(a.begin(), a.end(), [](const Action& x) { return x.kind == Action::Kind::kVerify; }));
  EXPECT_EQ(sched_->counts().malformed_messages, 1u);
  EXPECT_EQ(ledger_->at(0).causes.back(), "malformed proof message (408 bytes)");

  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  seal(g[0]);
  const auto d = sends(sched_->schedule(now_));
  ASSERT_EQ(d.size(), 1u);
  release(d[0], claim(d[0]));
  const ipc::ProveStages stages{0.5, 0.25, 0.125};
  std::string body(kBn, '\x5a');
  body.append(reinterpret_cast<const char*>(&stages), sizeof stages);
  a = prove(d[0], body);
  const auto verify = std::find_if(a.begin(), a.end(), [](const Action& x) { return x.kind == Action::Kind::kVerify; });
  ASSERT_NE(verify, a.end());
  EXPECT_EQ(verify->proof, std::string(kBn, '\x5a'));
  EXPECT_EQ(verify->stages.msms_s, 0.125);
  EXPECT_EQ(sched_->counts().malformed_messages, 1u);
}

// Messages are never trusted: fields out of range, a forged or stale sender,
// a truncated PROOF body are dropped and counted, and nothing asserts.
TEST_F(SchedulerTest, MalformedAndStaleMessagesAreDroppedAndCounted) {
  make(/*slots=*/2, /*parts=*/2);
  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  for (MsgType t : {MsgType::kSealed, MsgType::kSynthFailed}) {
    deliver(msg(0, t, /*slot=*/999, 1, 0, 1));
    deliver(msg(0, t, 0, 1, /*part=*/1u << 31, 1));
  }
  for (MsgType t : {MsgType::kClaimed, MsgType::kQuarantined, MsgType::kReleased, MsgType::kProof}) {
    deliver(msg(2, t, /*slot=*/999, 1, 0, 1));
  }
  EXPECT_EQ(sched_->counts().malformed_messages, 8u);
  ipc::Message forged = msg(0, MsgType::kSealed, 0, 2, 0, 1);
  forged.header.seat = 200;  // no such seat
  deliver(forged);
  EXPECT_TRUE(sched_->on_message("someone-else", msg(0, MsgType::kWantSlot), now_).empty());  // wrong peer
  forged = msg(0, MsgType::kWantSlot);
  forged.header.role = ipc::Role::kProver;  // seat 0 writes
  deliver(forged);
  EXPECT_EQ(sched_->counts().stale_messages, 3u);
  EXPECT_EQ(ledger_->at(0).state, PartState::kWriting);  // nothing moved
  // The real partition goes through; its PROOF comes truncated.
  seal(g[0]);
  const auto d = sends(sched_->schedule(now_));
  ASSERT_EQ(d.size(), 1u);
  release(d[0], claim(d[0]));
  prove(d[0], "short");
  EXPECT_EQ(sched_->counts().malformed_messages, 9u);
  EXPECT_EQ(ledger_->at(0).state, PartState::kPending);
  EXPECT_EQ(ledger_->at(0).causes.back(), "malformed proof message (5 bytes)");
}

// A prover that quarantines a corrupt record and is killed before its
// QUARANTINED message leaves (fault site gpu.after_quarantine): the slot
// word is the only record. The scan frees the slot and requeues the
// partition; before, the slot stayed QUARANTINED and mapped for the rest of
// the run (with one slot, the run hung).
TEST_F(SchedulerTest, AQuarantinedSlotWhoseProverDiedIsFreedAndItsPartitionRequeued) {
  make(/*slots=*/1, /*parts=*/1, /*synth=*/1, /*gpu=*/1);
  const auto d = sealed_then_dispatched(0);
  ASSERT_EQ(d.size(), 1u);
  const uint64_t consuming = claim(d[0]);
  ASSERT_TRUE(ring_.quarantine(0, SlotWord{SlotState::kConsuming, 1, consuming}));
  sched_->seat_died(1, "gpu.1 killed", now_);
  sched_->reconcile(now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kFree);
  EXPECT_EQ(ledger_->at(0).state, PartState::kPending);
  start(1);
  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);  // the only slot is back in the pool
  EXPECT_EQ(g[0].message.header.attempt, 2u);
}

// A live prover that quarantined its slot is not overtaken by the scan: the
// slot waits for its QUARANTINED message, whose cause names the corruption
// (the scan would have recorded only "quarantined"), and the partition is
// requeued once. Failed before the fix: the scan freed the slot first and
// the cause was the scan's.
TEST_F(SchedulerTest, TheScanLeavesALiveProversQuarantineToItsMessage) {
  make(/*slots=*/1, /*parts=*/1, /*synth=*/1, /*gpu=*/1);
  const auto d = sealed_then_dispatched(0);
  ASSERT_EQ(d.size(), 1u);
  const uint64_t consuming = claim(d[0]);
  const auto quarantined = ring_.quarantine(0, SlotWord{SlotState::kConsuming, 1, consuming});
  ASSERT_TRUE(quarantined);
  sched_->reconcile(now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kQuarantined) << "the scan took the slot from a live prover";
  EXPECT_EQ(ledger_->at(0).state, PartState::kProving);
  const auto& h = d[0].message.header;
  send(1, MsgType::kQuarantined, h.slot, *quarantined, h.partition, h.attempt, "checksum does not match header");
  sched_->reconcile(now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kFree);
  ASSERT_EQ(ledger_->at(0).state, PartState::kPending);
  ASSERT_EQ(ledger_->at(0).causes.size(), 1u);
  EXPECT_NE(ledger_->at(0).causes[0].find("does not match header"), std::string::npos) << ledger_->at(0).causes[0];
}

// A word no code of ours writes (a state out of range, an owner seat past
// the seat count) is quarantined by the scan, freed, and what the slot
// carried is synthesized again.
TEST_F(SchedulerTest, AnInsaneSlotWordIsQuarantinedAndItsPartitionRequeued) {
  make(/*slots=*/2, /*parts=*/1);
  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  const uint32_t slot = g[0].message.header.slot;
  headers_[slot].word = SlotWord{SlotState::kWriting, 77, ring_.load(slot).epoch}.pack();  // seat 77: no such seat
  ASSERT_FALSE(ring_.is_sane(ring_.load(slot)));
  sched_->reconcile(now_);
  EXPECT_EQ(ring_.load(slot).state, SlotState::kFree);
  EXPECT_EQ(ledger_->at(0).state, PartState::kPending);
  EXPECT_FALSE(sched_->slot_partition(slot));
}

// A WRITING word naming a seat that is not alive (its death scan lost the
// race, or the word was never seen) is reclaimed by the scan.
TEST_F(SchedulerTest, AWritingWordOfASeatThatIsNotAliveIsReclaimedByTheScan) {
  make(/*slots=*/1, /*parts=*/1);
  send(0, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 1u);
  // The seat died while its slot was (wrongly) still FREE to the death scan;
  // the word is WRITING(0) now.
  const SlotWord writing = ring_.load(0);
  headers_[0].word = SlotWord{SlotState::kFree, shm::kNoSeat, writing.epoch}.pack();
  sched_->seat_died(0, "synth.0 killed", now_);
  headers_[0].word = writing.pack();
  sched_->reconcile(now_);
  EXPECT_EQ(ring_.load(0).state, SlotState::kFree);
  EXPECT_EQ(ledger_->at(0).state, PartState::kPending);
  EXPECT_FALSE(sched_->slot_partition(0));
}

// restore(snapshot()) on a Scheduler over copies of the Ledger and ring
// decides as the original (the slot model branches runs this way).
TEST_F(SchedulerTest, ARestoredSnapshotOverCopiedLedgerAndRingDecidesAsTheOriginal) {
  make(/*slots=*/2, /*parts=*/3);
  send(0, MsgType::kWantSlot);
  send(1, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 2u);
  seal(g[1]);
  send(1, MsgType::kWantSlot);  // waits: no FREE slot

  Ledger ledger2 = *ledger_;
  std::vector<shm::SlotHeader> headers2 = headers_;
  std::vector<std::byte> payload2 = payload_;
  shm::SlotRing ring2(headers2.data(), 2, 3, payload2.data(), kSlotBytes);
  Scheduler copy(ledger2, ring2, 2, 1, {sizeof(groth16::ProofT<curves::Bls12_381>)});
  copy.restore(sched_->snapshot());

  // The same events to both: a seal, then a schedule, then a death.
  seal(g[0]);
  const auto epoch0 = ring_.load(g[0].message.header.slot);
  headers2 = headers_;
  payload2 = payload_;
  ASSERT_EQ(ring2.load(g[0].message.header.slot), epoch0);
  const auto& h0 = g[0].message.header;
  copy.on_message(ipc::routing_id(ipc::Role::kSynth, 0, sched_->seat(0).incarnation),
                  msg(0, MsgType::kSealed, h0.slot, epoch0.epoch, h0.partition, h0.attempt), now_);
  const auto a = sends(sched_->schedule(now_)), b = sends(copy.schedule(now_));
  ASSERT_EQ(a.size(), 1u);  // the prover gets the older READY partition
  ASSERT_EQ(b.size(), a.size());
  EXPECT_EQ(b[0].seat, a[0].seat);
  EXPECT_EQ(b[0].message.header.type, a[0].message.header.type);
  EXPECT_EQ(b[0].message.header.partition, a[0].message.header.partition);
  EXPECT_EQ(b[0].message.header.epoch, a[0].message.header.epoch);
  EXPECT_EQ(copy.ready_queue(), sched_->ready_queue());
  EXPECT_EQ(copy.grant_queue(), sched_->grant_queue());
  sched_->seat_died(2, "gpu away", now_);
  copy.seat_died(2, "gpu away", now_);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ledger2.at(i).state, ledger_->at(i).state) << i;
    EXPECT_EQ(ledger2.at(i).attempt, ledger_->at(i).attempt) << i;
  }
  EXPECT_EQ(copy.ready_queue(), sched_->ready_queue());
}

// run --inputs (docs/witness-gen.md): the GRANT asks for the witness to be
// generated (the command and the input), and the public signals to verify
// against arrive with SEALED, after the generator's seconds; a body of the
// wrong size leaves them unknown and is counted.
TEST_F(SchedulerTest, AGeneratedWitnessIsGrantedWithItsCommandAndItsSignalsComeWithSealed) {
  make(/*slots=*/2, /*parts=*/2);
  for (uint32_t i = 0; i < 2; ++i) {
    Partition& p = ledger_->at(i);
    p.wtns.clear();
    p.input = "/in/p" + std::to_string(i) + ".json";
    p.generator = {"/usr/bin/node", "/c_js/generate_witness.js", "/c_js/c.wasm"};
    p.public_signals.assign(2, FrWords{});
    p.signals_known = false;
  }
  send(0, MsgType::kWantSlot);
  send(1, MsgType::kWantSlot);
  const auto g = sends(sched_->schedule(now_));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(g[0].message.header.flags & ipc::kFlagGenerate);
  const auto req = ipc::decode_generate(g[0].message.body);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->command, ledger_->at(0).generator);
  EXPECT_EQ(req->input, "/in/p0.json");

  const double secs = 0.25;
  const FrWords signals[2] = {FrWords{7, 1, 2, 3}, FrWords{11, 4, 5, 6}};  // raw words: the Scheduler copies them
  std::string body(reinterpret_cast<const char*>(&secs), sizeof secs);
  body.append(reinterpret_cast<const char*>(signals), sizeof signals);
  seal(g[0], body);
  const Partition& p0 = ledger_->at(0);
  EXPECT_EQ(p0.state, PartState::kReady);
  EXPECT_TRUE(p0.signals_known);
  EXPECT_EQ(p0.generate_s, 0.25);
  EXPECT_TRUE(p0.public_signals[0] == signals[0] && p0.public_signals[1] == signals[1]);

  seal(g[1], body.substr(0, body.size() - 1));  // one byte short
  EXPECT_EQ(ledger_->at(1).state, PartState::kReady);
  EXPECT_FALSE(ledger_->at(1).signals_known);
  EXPECT_EQ(sched_->counts().malformed_messages, 1u);
}

}  // namespace
}  // namespace proofpipe::engine
