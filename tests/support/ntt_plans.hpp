// random_plan(rng, k): a random cut of a 2^k transform into passes (bottom
// pass first, then column passes of 1..12 levels), not just make_plan's, so
// the tests reach every pass width and offset, and the 3-pass plans of
// 2^23..2^28, on small vectors.
#pragma once

#include <algorithm>

#include "proofpipe/ntt/kernels.hpp"

namespace proofpipe::test {

template <class Rng>
ntt::Plan random_plan(Rng& rng, unsigned k) {
  ntt::Plan plan{k, {}};
  for (unsigned lo = 0; lo < k;) {
    const unsigned bits = std::min<unsigned>(k - lo, 1 + unsigned(rng() % std::min(k, ntt::kMaxPassBits)));
    plan.passes.push_back({lo, bits});
    lo += bits;
  }
  return plan;
}

}  // namespace proofpipe::test
