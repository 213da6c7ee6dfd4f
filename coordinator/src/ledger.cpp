// Ledger transitions (ledger.hpp). Every transition asserts its from-state:
// the event loop checks staleness before calling, so a wrong state is a bug.
#include "ledger.hpp"

#include "proofpipe/common/assert.hpp"

namespace proofpipe::coord {

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

std::optional<uint32_t> Ledger::next_pending() const {
  std::optional<uint32_t> best;
  for (uint32_t i = 0; i < parts_.size(); ++i) {
    if (parts_[i].state != PartState::kPending) continue;
    if (!best || parts_[i].request < parts_[*best].request) best = i;
  }
  return best;
}

void Ledger::start_write(uint32_t i, uint8_t seat, uint32_t slot, uint64_t epoch, double now) {
  Partition& p = parts_[i];
  PP_ASSERT(p.state == PartState::kPending, "start_write on a partition that is not pending");
  p.state = PartState::kWriting;
  p.attempt += 1;
  p.seat = seat;
  p.slot = slot;
  p.epoch = epoch;
  if (p.attempt == 1) p.started_s = now;
  p.write_started_s = now;
}

void Ledger::sealed(uint32_t i, uint64_t epoch, double now) {
  Partition& p = parts_[i];
  PP_ASSERT(p.state == PartState::kWriting, "sealed on a partition that is not being written");
  p.state = PartState::kReady;
  p.seat.reset();
  p.epoch = epoch;
  p.sealed_s = now;
  p.synth_s = now - p.write_started_s;
}

void Ledger::proving(uint32_t i, uint8_t seat) {
  Partition& p = parts_[i];
  PP_ASSERT(p.state == PartState::kReady, "proving on a partition that is not ready");
  p.state = PartState::kProving;
  p.seat = seat;
}

PartState Ledger::back_to_ready(uint32_t i, uint64_t epoch, std::string cause) {
  Partition& p = parts_[i];
  PP_ASSERT(p.state == PartState::kReady || p.state == PartState::kProving, "back_to_ready from a wrong state");
  p.causes.push_back(std::move(cause));
  p.seat.reset();
  p.epoch = epoch;
  if (p.causes.size() >= max_attempts_) {
    p.state = PartState::kFailed;
    p.slot.reset();
  } else {
    p.state = PartState::kReady;
  }
  return p.state;
}

PartState Ledger::requeue(uint32_t i, std::string cause, bool permanent) {
  Partition& p = parts_[i];
  PP_ASSERT(p.state != PartState::kDone && p.state != PartState::kFailed, "requeue of a finished partition");
  p.causes.push_back(std::move(cause));
  p.seat.reset();
  p.slot.reset();
  p.state = (permanent || p.attempt >= max_attempts_) ? PartState::kFailed : PartState::kPending;
  return p.state;
}

bool Ledger::commit(uint32_t i, double now) {
  Partition& p = parts_[i];
  if (p.state != PartState::kProving) return false;
  p.state = PartState::kDone;
  p.seat.reset();
  p.slot.reset();
  p.done_s = now;
  p.prove_s = now - p.sealed_s;
  return true;
}

size_t Ledger::count(PartState s) const {
  size_t n = 0;
  for (const auto& p : parts_) n += p.state == s;
  return n;
}

}  // namespace proofpipe::coord
