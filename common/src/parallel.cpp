// Worker pool behind parallel_for (see parallel.hpp). Threads are created once
// and sleep on a condition variable between jobs; one job runs at a time
// (callers from several threads are serialised), which is what the prover's
// coarse operations (one NTT, one MSM at a time) need. Every finished task
// counts as progress (progress.hpp): a worker busy for minutes in one MSM
// still beats, task by task, while a stuck task stops the beats.
#include "proofpipe/common/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "proofpipe/common/progress.hpp"

namespace proofpipe {
namespace {

thread_local bool t_in_pool_job = false;

class Pool {
 public:
  explicit Pool(unsigned threads) {
    for (unsigned i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void run(size_t n, const std::function<void(size_t)>& body) {
    std::lock_guard<std::mutex> job_lock(job_mu_);  // one job at a time
    {
      std::lock_guard<std::mutex> lock(mu_);
      body_ = &body;
      n_ = n;
      next_.store(0);
      active_ = workers_.size();
      ++generation_;
    }
    cv_.notify_all();
    drain();
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return active_ == 0; });
    body_ = nullptr;
  }

 private:
  void drain() {
    t_in_pool_job = true;
    for (size_t i; (i = next_.fetch_add(1)) < n_;) {
      (*body_)(i);
      note_progress();
    }
    t_in_pool_job = false;
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      drain();
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) done_cv_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mu_, mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(size_t)>* body_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  size_t active_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p(worker_count());
  return p;
}

}  // namespace

unsigned worker_count() {
  static const unsigned count = [] {
    if (const char* env = std::getenv("PROOFPIPE_THREADS")) {
      long v = std::strtol(env, nullptr, 10);
      if (v > 0) return static_cast<unsigned>(v);
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return count;
}

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (n == 1 || worker_count() == 1 || t_in_pool_job) {
    for (size_t i = 0; i < n; ++i) {
      body(i);
      note_progress();
    }
    return;
  }
  pool().run(n, body);
}

void parallel_for_range(size_t n, const std::function<void(size_t, size_t)>& body, size_t chunks) {
  if (n == 0) return;
  if (chunks == 0) chunks = 4 * size_t(worker_count());
  chunks = std::min(chunks, n);
  const size_t step = (n + chunks - 1) / chunks;
  parallel_for((n + step - 1) / step, [&](size_t c) { body(c * step, std::min(n, (c + 1) * step)); });
}

}  // namespace proofpipe
