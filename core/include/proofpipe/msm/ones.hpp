// MSM internals, part 6: the sum of the points whose scalar is +-1, which
// skip the buckets (msm/pippenger.hpp, prepare_chunk). Circuits are full of
// bits: a SHA-256 witness is ~95 % 0/1 values, so in its A and C MSMs the
// +-1 terms are most of the work that is left.
//
// The points are collected (negated where the scalar is -1) into a bounded
// buffer and summed by a pairwise tree of batch-affine additions
// (add_pairs, msm/reduce.hpp: one inversion per level, eight IFMA lanes
// where the CPU has them) instead of one serial XYZZ mixed add each. The
// serial chain is latency-bound: perf on a bn128 SHA-256 proof (2^16)
// showed it at ~9 % of the CPU time, ~650 ns per point, against ~150 ns per
// batch add on the IFMA path.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/msm/reduce.hpp"

namespace proofpipe::msm::detail {

template <class Cfg>
class OnesSum {
 public:
  using A = ec::Affine<Cfg>;
  using X = ec::Xyzz<Cfg>;

  // 1024 points: 64 KB (BN254 G1) to 192 KB (BLS12-381 G2) per chunk in
  // flight, and a tree of 10 levels whose top levels are few adds sharing an
  // inversion (~70 M for G1): ~0.7 M per point, against ~6 M for the add.
  static constexpr size_t kCapacity = 1024;
  // Below this many points the tree's per-level inversions cost more than
  // the mixed adds they replace (10 M each): 8 levels * 70 M / 10 M ~ 56.
  static constexpr size_t kTreeFrom = 64;

  explicit OnesSum(MsmStats* stats) : stats_(stats) { buf_.reserve(kCapacity); }

  // Adds -p when neg, else p. p must not be the identity.
  void add(const A& p, bool neg) {
    buf_.push_back(neg ? A{p.x, -p.y} : p);
    if (buf_.size() == kCapacity) fold();
  }

  // The sum of everything added; the buffer is empty afterwards.
  X take() {
    X sum = X::identity();
    if (buf_.size() >= kTreeFrom) fold();
    for (const A& p : buf_) {
      if (p.is_identity()) continue;
      sum += p;
      ++stats_->madds;
    }
    buf_.clear();
    return sum;
  }

 private:
  // Folds the buffer into buf_[0] by pairwise levels (level s adds
  // buf_[i + s] into buf_[i] for i a multiple of 2s); add_pairs handles
  // the identity, equal and opposite points.
  void fold() {
    for (size_t s = 1; s < buf_.size(); s *= 2) {
      pairs_.clear();
      for (size_t i = 0; i + s < buf_.size(); i += 2 * s) pairs_.push_back({&buf_[i], &buf_[i + s]});
      add_pairs<Cfg>(pairs_, stats_);
    }
    buf_.resize(buf_.empty() ? 0 : 1);
  }

  std::vector<A> buf_;
  std::vector<std::pair<A*, const A*>> pairs_;
  MsmStats* stats_;
};

}  // namespace proofpipe::msm::detail
