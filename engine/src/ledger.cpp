// Ledger transitions (ledger.hpp). Every transition asserts its from-state:
// the event loop checks staleness before calling, so a wrong state is a bug.
#include "proofpipe/engine/ledger.hpp"

#include <algorithm>

#include "proofpipe/common/assert.hpp"

namespace proofpipe::engine {

const char* part_state_name(PartState s) {
  switch (s) {
    case PartState::kPending: return "pending";
    case PartState::kWriting: return "writing";
    case PartState::kReady: return "ready";
    case PartState::kProving: return "proving";
    case PartState::kDone: return "done";
    case PartState::kFailed: return "failed";
  }
  return "?";
}

Ledger::Ledger(std::vector<Partition> parts, uint32_t max_attempts)
    : parts_(std::make_move_iterator(parts.begin()), std::make_move_iterator(parts.end())),
      max_attempts_(max_attempts) {
  for (const Partition& p : parts_) counts_[size_t(p.state)] += 1;
}

uint32_t Ledger::append(Partition p) {
  p.index = uint32_t(size());
  p.state = PartState::kPending;
  counts_[size_t(PartState::kPending)] += 1;
  parts_.push_back(std::move(p));
  return parts_.back().index;
}

void Ledger::set_state(Partition& p, PartState s) {
  counts_[size_t(p.state)] -= 1;
  counts_[size_t(s)] += 1;
  p.state = s;
  while (open_begin_ < size() &&
         (at(open_begin_).state == PartState::kDone || at(open_begin_).state == PartState::kFailed)) {
    ++open_begin_;
  }
}

void Ledger::forget_payload(uint32_t i) {
  Partition& p = at(i);
  PP_ASSERT(p.state == PartState::kDone || p.state == PartState::kFailed, "forget_payload of an open partition");
  std::vector<FrWords>().swap(p.public_signals);
  std::vector<std::string>().swap(p.causes);
  std::vector<std::string>().swap(p.generator);
}

size_t Ledger::drop_ended_before(uint32_t limit) {
  // Everything below open_begin_ has ended; std::deque frees its blocks as
  // the front goes.
  const uint32_t end = std::min(limit, open_begin_);
  size_t dropped = 0;
  for (; base_ < end; ++base_, ++dropped) parts_.pop_front();
  return dropped;
}

std::optional<uint32_t> Ledger::next_pending() const {
  if (count(PartState::kPending) == 0) return std::nullopt;
  std::optional<uint32_t> best;
  for (uint32_t i = open_begin_; i < size(); ++i) {
    const Partition& p = at(i);
    if (p.state != PartState::kPending) continue;
    if (!best) {
      best = i;
      continue;
    }
    const Partition& b = at(*best);
    if (p.priority > b.priority || (p.priority == b.priority && p.job < b.job)) best = i;
  }
  return best;
}

void Ledger::start_write(uint32_t i, uint8_t seat, uint32_t slot, uint64_t epoch, double now) {
  Partition& p = at(i);
  PP_ASSERT(p.state == PartState::kPending, "start_write on a partition that is not pending");
  set_state(p, PartState::kWriting);
  p.attempt += 1;
  p.seat = seat;
  p.slot = slot;
  p.epoch = epoch;
  if (p.attempt == 1) p.started_s = now;
  p.write_started_s = now;
  notify(p, LedgerEvent::kAttemptStarted, {});
}

void Ledger::sealed(uint32_t i, uint64_t epoch, double now) {
  Partition& p = at(i);
  PP_ASSERT(p.state == PartState::kWriting, "sealed on a partition that is not being written");
  set_state(p, PartState::kReady);
  p.seat.reset();
  p.epoch = epoch;
  p.sealed_s = now;
  p.synth_s = now - p.write_started_s;
}

void Ledger::proving(uint32_t i, uint8_t seat, double now) {
  Partition& p = at(i);
  PP_ASSERT(p.state == PartState::kReady, "proving on a partition that is not ready");
  set_state(p, PartState::kProving);
  p.seat = seat;
  p.claimed_s = now;
}

PartState Ledger::back_to_ready(uint32_t i, uint64_t epoch, std::string cause) {
  Partition& p = at(i);
  PP_ASSERT(p.state == PartState::kReady || p.state == PartState::kProving, "back_to_ready from a wrong state");
  p.causes.push_back(std::move(cause));
  p.seat.reset();
  p.epoch = epoch;
  // A cancelled partition's record is not proved again (Scheduler::cancel).
  if (p.causes.size() >= max_attempts_ || p.cancelled) {
    set_state(p, PartState::kFailed);
    p.slot.reset();
    notify(p, LedgerEvent::kFailed, p.cancelled ? std::string_view("cancelled") : p.causes.back());
  } else {
    set_state(p, PartState::kReady);
  }
  return p.state;
}

PartState Ledger::requeue(uint32_t i, std::string cause, bool permanent) {
  Partition& p = at(i);
  PP_ASSERT(p.state != PartState::kDone && p.state != PartState::kFailed, "requeue of a finished partition");
  p.causes.push_back(std::move(cause));
  p.seat.reset();
  p.slot.reset();
  const bool failed = permanent || p.cancelled || p.attempt >= max_attempts_;
  set_state(p, failed ? PartState::kFailed : PartState::kPending);
  notify(p, failed ? LedgerEvent::kFailed : LedgerEvent::kRequeued, p.causes.back());
  return p.state;
}

bool Ledger::commit(uint32_t i, double now, const ipc::ProveStages& stages) {
  Partition& p = at(i);
  if (p.state != PartState::kProving) return false;
  set_state(p, PartState::kDone);
  p.seat.reset();
  p.slot.reset();
  p.done_s = now;
  p.prove_s = now - p.sealed_s;
  p.stages = stages;
  notify(p, LedgerEvent::kDone, {});
  return true;
}

}  // namespace proofpipe::engine
