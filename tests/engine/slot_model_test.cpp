// Exhaustive model check of the slot state machine: DFS over every
// interleaving of the slot_model.hpp actors (deduplicated by a 128-bit state
// hash), checking the invariants after every step and the outcome at every end.
// Also checks every reachable slot word against an independent transition table.
#include "slot_model.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace proofpipe::shm::model {
namespace {

// ---- the transition table, written down independently of slot_ring.cpp ----
enum class Op {
  kGrant,
  kReclaimWriting,
  kReclaimConsuming,
  kReleaseQuarantined,
  kSeal,
  kAbortWrite,
  kClaim,
  kRelease,
  kQuarantine
};
constexpr Op kOps[] = {Op::kGrant,      Op::kReclaimWriting, Op::kReclaimConsuming, Op::kReleaseQuarantined, Op::kSeal,
                       Op::kAbortWrite, Op::kClaim,          Op::kRelease,          Op::kQuarantine};
constexpr SlotState kStates[] = {SlotState::kFree, SlotState::kWriting, SlotState::kReady, SlotState::kConsuming,
                                 SlotState::kQuarantined};

// What op(seat, epoch) must do to word w: win and produce `to`, or lose.
bool expected_win(Op op, SlotWord w, Seat seat, Epoch e, SlotState q_state, SlotWord* to) {
  const bool exact = w.seat == seat && w.epoch == e;
  const bool seat_ok = seat < kSeats;
  switch (op) {
    case Op::kGrant:
      *to = {SlotState::kWriting, seat, e + 1};
      return w.state == SlotState::kFree && w.epoch == e && seat_ok;
    case Op::kReclaimWriting: *to = {SlotState::kFree, kNoSeat, e + 1}; return w.state == SlotState::kWriting && exact;
    case Op::kReclaimConsuming:
      *to = {SlotState::kReady, kNoSeat, e + 1};
      return w.state == SlotState::kConsuming && exact;
    case Op::kReleaseQuarantined:
      *to = {SlotState::kFree, kNoSeat, e + 1};
      return w.state == SlotState::kQuarantined && w.epoch == e;
    case Op::kSeal: *to = {SlotState::kReady, seat, e + 1}; return w.state == SlotState::kWriting && exact;
    case Op::kAbortWrite: *to = {SlotState::kFree, kNoSeat, e + 1}; return w.state == SlotState::kWriting && exact;
    case Op::kClaim:
      *to = {SlotState::kConsuming, seat, e + 1};
      return w.state == SlotState::kReady && w.epoch == e && seat_ok;
    case Op::kRelease: *to = {SlotState::kFree, seat, e + 1}; return w.state == SlotState::kConsuming && exact;
    case Op::kQuarantine:
      *to = {SlotState::kQuarantined, seat, e + 1};
      return w.state == q_state && exact && q_state != SlotState::kQuarantined;
  }
  return false;
}

bool run_op(SlotRing& ring, Op op, Seat seat, Epoch e, SlotState q_state) {
  switch (op) {
    case Op::kGrant: return ring.grant(0, e, seat).has_value();
    case Op::kReclaimWriting: return ring.reclaim_writing(0, seat, e).has_value();
    case Op::kReclaimConsuming: return ring.reclaim_consuming(0, seat, e).has_value();
    case Op::kReleaseQuarantined: return ring.release_quarantined(0, e).has_value();
    case Op::kSeal: return ring.seal(0, seat, e, {1, 2, 3, 4, 5}).has_value();
    case Op::kAbortWrite: return ring.abort_write(0, seat, e).has_value();
    case Op::kClaim: return ring.claim(0, seat, e).has_value();
    case Op::kRelease: return ring.release(0, seat, e).has_value();
    case Op::kQuarantine: return ring.quarantine(0, {q_state, seat, e}).has_value();
  }
  return false;
}

struct TableStats {
  uint64_t words = 0, attempts = 0, stale_attempts = 0;
};

// Every op, every seat (and kNoSeat), every epoch from 0 to one past the
// current one, against one header holding `w`: the real code must match the
// table, and a losing CAS must leave all 64 header bytes untouched.
std::string check_table(const SlotHeader& original, TableStats& stats) {
  const SlotWord w = SlotWord::unpack(original.word);
  stats.words++;
  std::byte scratch_payload[kPayloadBytes] = {};
  for (Op op : kOps) {
    for (SlotState q : kStates) {
      if (op != Op::kQuarantine && q != SlotState::kFree) continue;  // q matters to quarantine only
      for (unsigned seat = 0; seat <= kSeats; ++seat) {
        const Seat s = seat == kSeats ? kNoSeat : Seat(seat);
        for (Epoch e = 0; e <= w.epoch + 1; ++e) {
          SlotHeader h = original;
          SlotRing ring(&h, 1, kSeats, scratch_payload, kPayloadBytes);
          SlotWord to;
          const bool want = expected_win(op, w, s, e, q, &to);
          const bool won = run_op(ring, op, s, e, q);
          stats.attempts++;
          if (e < w.epoch) stats.stale_attempts++;
          if (won != want)
            return fmt::format("op {} seat {} epoch {} on {}@{}: won={} expected {}", int(op), s, e,
                               slot_state_name(w.state), w.epoch, won, want);
          if (!won && std::memcmp(&h, &original, sizeof(h)) != 0)
            return fmt::format("op {} lost but changed the header", int(op));
          if (won && SlotWord::unpack(h.word) != to) return fmt::format("op {} won but wrote the wrong word", int(op));
        }
      }
    }
  }
  return "";
}

// ---- per-state and per-step invariants ----
// Over the slot words, the workers and the real Ledger: an owned word has a
// live owner that knows it (or a dead one awaiting the reap), no record is
// in two slots, no partition is committed twice or failed (every budget is
// below kMaxAttempts, so FAILED means a partition was lost), and no slot is
// the record's home of two written or undispatched partitions (slots conserved).
std::string check_state(const State& st) {
  const Flat& s = st.flat;
  Flat copy = s;
  SlotRing ring = ring_over(copy);
  int in_slots[kPartitions] = {};
  for (uint32_t i = 0; i < kSlots; ++i) {
    const SlotWord w = ring.load(i);
    if (!ring.is_sane(w)) return fmt::format("slot {} holds an insane word {:#x}", i, w.pack());
    if (w.state == SlotState::kWriting || w.state == SlotState::kConsuming) {
      const Actor& a = s.actors[w.seat];
      const bool consumer = w.state == SlotState::kConsuming;
      if (consumer != (w.seat == kConsumer)) return fmt::format("slot {} owned by a seat of the wrong role", i);
      const bool holds = (a.slot == i && a.epoch == w.epoch) ||
                         (a.inbox.type != 0 && a.inbox.slot == i && a.inbox.epoch == w.epoch);  // GRANT not yet read
      if (a.phase != kDead && a.phase != kReaped && !holds)
        return fmt::format("slot {} owned by seat {} which does not hold it", i, w.seat);
    }
    if (w.state == SlotState::kReady || w.state == SlotState::kConsuming) in_slots[s.headers[i].partition_id]++;
  }
  for (uint8_t seat = 0; seat < kSeats; ++seat) {
    const Actor& a = s.actors[seat];
    const bool claims = a.phase == kHalfWritten || a.phase == kWritten || a.phase == kClaimed || a.phase == kVerified ||
                        a.phase == kBad;
    if (!claims) continue;
    const SlotState want = seat == kConsumer ? SlotState::kConsuming : SlotState::kWriting;
    if (ring.load(a.slot) != SlotWord{want, seat, a.epoch})
      return fmt::format("seat {} believes it owns slot {} but does not", seat, a.slot);
  }
  uint32_t homes[kSlots] = {};
  for (uint32_t p = 0; p < kPartitions; ++p) {
    const engine::Partition& lp = st.ledger.at(p);
    if (in_slots[p] > 1) return fmt::format("partition {} sealed in {} slots at once", p, in_slots[p]);
    if (s.commits[p] > 1) return fmt::format("partition {} committed {} times", p, s.commits[p]);
    if ((lp.state == engine::PartState::kDone) != (s.commits[p] == 1))
      return fmt::format("partition {} is {} in the ledger after {} commits", p, engine::part_state_name(lp.state),
                         s.commits[p]);
    if (lp.state == engine::PartState::kFailed)
      return fmt::format("partition {} lost: FAILED after {} attempts ({})", p, lp.attempt, lp.causes.back());
    // Once dispatched, a partition's slot is only a note until its RELEASED
    // arrives: the prover may have released it, and it been granted again.
    bool dispatched = false;
    for (const engine::SeatState& w : st.sched.seats)
      dispatched |= w.alive && w.role == ipc::Role::kProver && w.partition == p;
    const bool live = lp.state == engine::PartState::kWriting || (lp.state == engine::PartState::kReady && !dispatched);
    if (live && lp.slot && ++homes[*lp.slot] > 1)
      return fmt::format("slot {} is the ledger's home of two partitions", *lp.slot);
  }
  return "";
}

std::string check_step(const State& before, const State& after) {
  for (uint32_t i = 0; i < kSlots; ++i) {
    const SlotWord a = SlotWord::unpack(before.flat.headers[i].word), b = SlotWord::unpack(after.flat.headers[i].word);
    if (b.epoch < a.epoch) return fmt::format("slot {} epoch fell from {} to {}", i, a.epoch, b.epoch);
    if (b.epoch > a.epoch + 1)
      return fmt::format("slot {} epoch jumped from {} to {} in one step", i, a.epoch, b.epoch);
    if ((a != b) != (b.epoch == a.epoch + 1)) return fmt::format("slot {} word changed without an epoch bump", i);
  }
  return "";
}

// Nothing left to do: every partition committed once, every slot FREE and
// back in the pool (not mapped to a partition, or no writer could get it).
std::string check_end(const State& s) {
  for (uint32_t p = 0; p < kPartitions; ++p) {
    if (s.flat.commits[p] != 1)
      return fmt::format("run ended with partition {} committed {} times (ledger: {})", p, s.flat.commits[p],
                         engine::part_state_name(s.ledger.at(p).state));
  }
  for (uint32_t i = 0; i < kSlots; ++i) {
    if (SlotWord::unpack(s.flat.headers[i].word).state != SlotState::kFree)
      return fmt::format("run ended with slot {} not FREE", i);
    if (s.sched.slot_part[i])
      return fmt::format("run ended with slot {} still mapped to partition {}", i, *s.sched.slot_part[i]);
  }
  return "";
}

// ---- the explorer ----
struct Key {
  uint64_t a, b;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const { return k.a ^ (k.b * 0x9E3779B97F4A7C15ull); }
};

// The flat bytes, then the coordinator's decision-relevant encoding.
Key key_of(const State& s) {
  static_assert(sizeof(Flat) % 8 == 0);
  uint64_t words[sizeof(Flat) / 8];
  std::memcpy(words, &s.flat, sizeof(s.flat));
  uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
  auto mix = [&](uint64_t w) {
    a = std::rotl((a ^ w) * 0xFF51AFD7ED558CCDull, 29);
    b = std::rotl(b + w * 0xC4CEB9FE1A85EC53ull, 31) ^ (b >> 17);
  };
  for (uint64_t w : words) mix(w);
  for (uint64_t w : encode_coordinator(s)) mix(w);
  return {a, b};
}

class Explorer {
 public:
  struct Stats {
    uint64_t states = 0, transitions = 0, terminal_states = 0, max_depth = 0;
    double interleavings = 0;  // complete runs = root-to-end paths of the state DAG
    TableStats table;
  };

  std::string run(const State& init) {
    spdlog::set_level(spdlog::level::off);  // the Scheduler logs every reclaim, millions of times here
    if (auto err = check_state(init); !err.empty()) return err;
    error_.clear();
    memo_.reserve(1 << 20);
    stats_.interleavings = visit(init);
    stats_.states = memo_.size();
    return error_;
  }
  const Stats& stats() const { return stats_; }

 private:
  double visit(const State& s) {
    // One lookup per visit; the reference survives rehashing (node-based map).
    const Key key = key_of(s);
    auto [it, inserted] = memo_.try_emplace(key, -1.0);  // -1: on the DFS stack
    double& memo = it->second;
    if (!inserted) {
      if (memo < 0) fail("cycle: a run can return to an earlier state (livelock)");
      return memo;
    }
    for (uint32_t i = 0; i < kSlots; ++i) {
      if (seen_words_.insert(s.flat.headers[i].word).second) fail(check_table(s.flat.headers[i], stats_.table));
    }
    stats_.max_depth = std::max<uint64_t>(stats_.max_depth, path_.size());
    const StepList steps = enabled_steps(s);
    double paths = 0;
    bool moved = false;
    for (size_t i = 0; i < steps.size && error_.empty(); ++i) {
      State next = s;
      path_.push_back(steps.items[i]);
      fail(apply_step(next, steps.items[i]));
      // A coordinator call that changes nothing (schedule with nothing to
      // grant, a clean scan) is no transition.
      if (error_.empty() && key_of(next) == key) {
        path_.pop_back();
        continue;
      }
      moved = true;
      stats_.transitions++;
      if (error_.empty()) fail(check_step(s, next));
      if (error_.empty()) fail(check_state(next));
      if (error_.empty()) paths += visit(next);
      path_.pop_back();
    }
    if (!moved && error_.empty()) {
      stats_.terminal_states++;
      fail(check_end(s));
      paths = 1;
    }
    memo = paths;
    return paths;
  }

  void fail(const std::string& err) {
    if (err.empty() || !error_.empty()) return;
    error_ = err + "\n  after:";
    for (const Step& st : path_) error_ += "\n    " + describe(st);
  }

  std::unordered_map<Key, double, KeyHash> memo_;
  std::unordered_set<uint64_t> seen_words_;
  std::vector<Step> path_;
  std::string error_;
  Stats stats_;
};

void explore_and_report(const char* label, const Budget& budget) {
  Explorer ex;
  const std::string err = ex.run(initial_state(budget));
  const auto& st = ex.stats();
  std::printf(
      "[ model    ] %s: %llu states, %llu transitions, %llu end states, depth %llu, %.4g complete interleavings;\n"
      "[ model    ]   transition table: %llu slot words x all ops, seats and epochs = %llu CAS attempts (%llu with a "
      "stale epoch)\n",
      label, (unsigned long long)st.states, (unsigned long long)st.transitions, (unsigned long long)st.terminal_states,
      (unsigned long long)st.max_depth, st.interleavings, (unsigned long long)st.table.words,
      (unsigned long long)st.table.attempts, (unsigned long long)st.table.stale_attempts);
  ::testing::Test::RecordProperty("states", std::to_string(st.states));
  ::testing::Test::RecordProperty("transitions", std::to_string(st.transitions));
  ::testing::Test::RecordProperty("interleavings", fmt::format("{:.4g}", st.interleavings));
  EXPECT_EQ(err, "");
  EXPECT_GT(st.terminal_states, 0u);
}

TEST(SlotModel, EveryInterleavingWithoutFaultsCommitsEachPartitionOnce) {
  explore_and_report("no faults", Budget{0, 0, 0});
}

TEST(SlotModel, EveryInterleavingWithAProducerDeathCommitsEachPartitionOnce) {
  explore_and_report("1 producer death", Budget{1, 0, 0});
}

TEST(SlotModel, EveryInterleavingWithAConsumerDeathCommitsEachPartitionOnce) {
  explore_and_report("1 consumer death", Budget{0, 1, 0});
}

// Two faults in one run are many millions of states with the real
// Scheduler's queues and message orders: PP_SHM_MODEL_BUDGET below.
TEST(SlotModel, EveryInterleavingWithACorruptRecordCommitsEachPartitionOnce) {
  explore_and_report("1 corrupt record", Budget{0, 0, 1});
}

// Larger budgets on request: PP_SHM_MODEL_BUDGET=p,c,x (producer deaths,
// consumer deaths, corruptions), e.g. 1,1,0 or 0,1,1: too much for every ctest run.
TEST(SlotModel, EveryInterleavingWithTheBudgetFromTheEnvironment) {
  const char* env = std::getenv("PP_SHM_MODEL_BUDGET");
  if (env == nullptr) GTEST_SKIP() << "set PP_SHM_MODEL_BUDGET=p,c,x to explore a larger fault budget";
  unsigned p = 0, c = 0, x = 0;
  ASSERT_EQ(std::sscanf(env, "%u,%u,%u", &p, &c, &x), 3) << "PP_SHM_MODEL_BUDGET=" << env;
  explore_and_report(fmt::format("budget {},{},{}", p, c, x).c_str(), Budget{uint8_t(p), uint8_t(c), uint8_t(x)});
}

}  // namespace
}  // namespace proofpipe::shm::model
