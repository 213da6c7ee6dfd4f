// The record checksum's two passes, old against new in the same run:
//   seal   the writer's checksum over a sealed record (synth worker):
//          one checksum64 stream (before 2026-12-03) vs record_checksum
//   intake the GPU worker's copy of a record out of its slot into a, b, c, w,
//          hashing each piece while cache-hot: one thread with one
//          Checksum64 stream (before) vs copy_with_record_checksum
//   start_copy_removed  the copy of h and w prove_start made (gone: views)
// A record at domain 2^k with n_vars = 2^k is 4 * 2^k * 32 bytes (2^20:
// 128 MiB, 2^22: 512 MiB; a 2^24 record is about 2 GiB). Both sides are
// memory-bound passes: `GBps` is record bytes per wall second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "proofpipe/shm/slot_ring.hpp"

namespace {

using proofpipe::shm::Checksum64;

struct Record {
  std::vector<std::byte> slot;               // the shared bytes
  std::vector<std::vector<std::byte>> dst;   // the worker's a, b, c, w
  std::vector<std::span<std::byte>> pieces;  // views of dst

  explicit Record(unsigned log_n) : slot(size_t(4) << (log_n + 5)) {
    std::mt19937_64 rng(log_n);
    for (size_t i = 0; i + 8 <= slot.size(); i += 8) {
      const uint64_t v = rng();
      std::memcpy(slot.data() + i, &v, 8);
    }
    for (int p = 0; p < 4; ++p) dst.emplace_back(slot.size() / 4, std::byte{1});  // touched: no page faults timed
    pieces.assign(dst.begin(), dst.end());
  }
};

// One record per size for the whole run: Google Benchmark calls each
// function several times while it sizes the iteration count, and filling
// 512 MiB is slower than the passes being timed.
Record& record(const benchmark::State& state) {
  static std::map<int64_t, std::unique_ptr<Record>> cache;
  auto& r = cache[state.range(0)];
  if (!r) r = std::make_unique<Record>(unsigned(state.range(0)));
  return *r;
}

void report(benchmark::State& state, const Record& r) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(r.slot.size()));
  state.counters["record_MiB"] = double(r.slot.size() >> 20);
}

void BM_SealStream(benchmark::State& state) {
  Record& r = record(state);
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::shm::checksum64(r.slot));
  report(state, r);
}

void BM_SealTree(benchmark::State& state) {
  Record& r = record(state);
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::shm::record_checksum(r.slot));
  report(state, r);
}

// The GPU worker's take_record loop as it was: 1 MiB copied, then hashed.
void BM_IntakeStream(benchmark::State& state) {
  Record& r = record(state);
  constexpr size_t kChunk = size_t(1) << 20;
  for (auto _ : state) {
    Checksum64 sum;
    const std::byte* src = r.slot.data();
    for (auto& piece : r.pieces) {
      for (size_t off = 0; off < piece.size(); off += kChunk) {
        const size_t len = std::min(kChunk, piece.size() - off);
        std::memcpy(piece.data() + off, src + off, len);
        sum.update(piece.subspan(off, len));
      }
      src += piece.size();
    }
    benchmark::DoNotOptimize(sum.finish());
  }
  report(state, r);
}

void BM_IntakeTree(benchmark::State& state) {
  Record& r = record(state);
  for (auto _ : state) benchmark::DoNotOptimize(proofpipe::shm::copy_with_record_checksum(r.slot, r.pieces));
  report(state, r);
}

// What groth16::prove_start did after the H step until 2026-12-03: copy h
// (the worker's a) and the witness (its w) into a fresh PreparedProofT, whose
// pageable vectors the five MSMs then uploaded from. It now returns views
// of those page-locked buffers, so this whole pass is gone.
void BM_StartCopy(benchmark::State& state) {
  Record& r = record(state);
  for (auto _ : state) {
    std::vector<std::byte> h(r.pieces[0].begin(), r.pieces[0].end());
    std::vector<std::byte> w(r.pieces[3].begin(), r.pieces[3].end());
    benchmark::DoNotOptimize(h.data());
    benchmark::DoNotOptimize(w.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(r.pieces[0].size() + r.pieces[3].size()));
}

}  // namespace

BENCHMARK(BM_SealStream)->Name("seal_stream")->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SealTree)->Name("seal_tree")->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IntakeStream)->Name("intake_stream")->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IntakeTree)->Name("intake_tree")->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_StartCopy)->Name("start_copy_removed")->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
