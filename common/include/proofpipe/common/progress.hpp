// Progress: the evidence that a process's work moves, for the worker
// heartbeat (ipc/worker.hpp draws the scheme). The work counts progress at
// the points where it finishes something: the serve loop on every receive
// or receive timeout, the synthesis and proving loops at their stage
// boundaries, and parallel_for after every task index (CPU work reports
// chunk by chunk). The heartbeat thread publishes a beat only when the
// count moved since its last beat, so a main thread blocked forever (a
// deadlock, a kernel that never returns, a `stall` fault) stops the beats
// although the heartbeat thread itself still runs.
#pragma once

#include <atomic>
#include <cstdint>

namespace proofpipe {

namespace detail {
// Own cache line: every pool thread adds to it, and nothing else should
// bounce with it.
struct alignas(64) ProgressCounter {
  std::atomic<uint64_t> count{0};
  std::atomic<const char*> phase{"start"};
};
inline ProgressCounter g_progress;
}  // namespace detail

// Counts one step of progress. Relaxed: a count orders nothing, it only has
// to change.
inline void note_progress() noexcept { detail::g_progress.count.fetch_add(1, std::memory_order_relaxed); }

// Names the step the work enters (a string literal: "synthesize", "msms")
// and counts as progress; the heartbeat names the step a long gap was in.
inline void note_progress(const char* phase) noexcept {
  detail::g_progress.phase.store(phase, std::memory_order_relaxed);
  note_progress();
}

inline uint64_t progress_count() noexcept { return detail::g_progress.count.load(std::memory_order_relaxed); }
inline const char* progress_phase() noexcept { return detail::g_progress.phase.load(std::memory_order_relaxed); }

// What the heartbeat thread decides on each tick: beat when the count moved
// since the last beat. Also keeps the longest time between two beats and
// the step it was spent in (logged when the worker ends: the figure to hold
// against --hang-timeout).
class ProgressWatch {
 public:
  explicit ProgressWatch(uint64_t now_ms) : last_count_(progress_count()), last_beat_ms_(now_ms) {}

  // True when there was progress since the last true: publish a beat at now_ms.
  bool moved(uint64_t now_ms) {
    const uint64_t count = progress_count();
    if (count == last_count_) return false;
    if (now_ms - last_beat_ms_ > longest_gap_ms_) {
      longest_gap_ms_ = now_ms - last_beat_ms_;
      longest_gap_phase_ = last_phase_;
    }
    last_count_ = count;
    last_beat_ms_ = now_ms;
    last_phase_ = progress_phase();
    return true;
  }

  uint64_t longest_gap_ms() const { return longest_gap_ms_; }
  // Starts the longest-gap count again (set-up and work are judged apart).
  void reset_longest() {
    longest_gap_ms_ = 0;
    longest_gap_phase_ = "none";
  }
  const char* longest_gap_phase() const { return longest_gap_phase_; }
  uint64_t last_beat_ms() const { return last_beat_ms_; }

 private:
  uint64_t last_count_;
  uint64_t last_beat_ms_;
  const char* last_phase_ = progress_phase();
  uint64_t longest_gap_ms_ = 0;
  const char* longest_gap_phase_ = "none";
};

}  // namespace proofpipe
