// Progress counting (progress.hpp): the heartbeat's rule that a beat needs
// progress since the last one, and parallel_for counting its tasks, so CPU
// work of any length keeps a worker's heartbeat going chunk by chunk.
#include "proofpipe/common/progress.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "proofpipe/common/parallel.hpp"

namespace proofpipe {
namespace {

TEST(Progress, ABeatNeedsProgressSinceTheLastBeat) {
  ProgressWatch watch(1000);
  EXPECT_FALSE(watch.moved(1100));  // nothing done: no beat, however often asked
  EXPECT_FALSE(watch.moved(1200));
  note_progress("step one");
  EXPECT_TRUE(watch.moved(1300));
  EXPECT_FALSE(watch.moved(1400));
  EXPECT_EQ(watch.last_beat_ms(), 1300u);
  EXPECT_EQ(watch.longest_gap_ms(), 300u);
}

// The longest gap is named by the step that was current while nothing moved.
TEST(Progress, TheLongestGapNamesTheStepItWasSpentIn) {
  ProgressWatch watch(0);
  note_progress("quick");
  ASSERT_TRUE(watch.moved(100));
  note_progress("slow");
  ASSERT_TRUE(watch.moved(200));
  note_progress("after");  // the slow step ends 5 s later
  ASSERT_TRUE(watch.moved(5200));
  EXPECT_EQ(watch.longest_gap_ms(), 5000u);
  EXPECT_STREQ(watch.longest_gap_phase(), "slow");
  note_progress();
  ASSERT_TRUE(watch.moved(5300));
  EXPECT_STREQ(watch.longest_gap_phase(), "slow");
}

// Every task of a parallel_for counts, whichever thread runs it, and so does
// every index of the inline path (one thread, or nested calls).
TEST(Progress, ParallelForCountsEveryTask) {
  const uint64_t before = progress_count();
  parallel_for(1000, [](size_t) {});
  EXPECT_GE(progress_count() - before, 1000u);
  const uint64_t mid = progress_count();
  parallel_for(1, [](size_t) {});
  EXPECT_GE(progress_count() - mid, 1u);
}

// A long CPU job whose chunks each take a while keeps moving: a watcher
// polling every 20 ms sees progress while it runs, not only at its end.
TEST(Progress, ALongParallelJobMovesWhileItRuns) {
  std::atomic<bool> done{false};
  unsigned moves = 0;
  std::thread watcher([&] {
    ProgressWatch watch(0);
    uint64_t t = 0;
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      moves += watch.moved(t += 20);
    }
  });
  parallel_for(4 * worker_count() + 4, [](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  done = true;
  watcher.join();
  EXPECT_GE(moves, 3u);
}

}  // namespace
}  // namespace proofpipe
