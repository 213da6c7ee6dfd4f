// A process-wide worker pool and parallel_for over task indices. Tasks are
// handed out one index at a time from an atomic counter, so uneven tasks
// (MSM windows of different cost, NTT blocks) balance themselves.
// The calling thread works too; nested calls run inline (no deadlock).
#pragma once

#include <cstddef>
#include <functional>

namespace proofpipe {

// Threads used by parallel_for: PROOFPIPE_THREADS if set, else the number of
// CPUs this process may run on (sched_getaffinity, so cgroup/taskset limits count).
unsigned worker_count();

// Runs body(i) for i in [0, n) across the pool and returns when all are done.
// body must be safe to call concurrently for different i.
void parallel_for(size_t n, const std::function<void(size_t)>& body);

// Splits [0, n) into about `chunks` contiguous ranges (default: 4 per worker)
// and runs body(begin, end) on each.
void parallel_for_range(size_t n, const std::function<void(size_t, size_t)>& body, size_t chunks = 0);

}  // namespace proofpipe
