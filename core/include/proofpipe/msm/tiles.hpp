// MSM internals, part 4: the task list of one MSM, from its plan (msm.hpp).
// A tile is one window over one contiguous range of the prepared terms.
#pragma once

#include <cstddef>
#include <vector>

#include "proofpipe/msm/msm.hpp"

namespace proofpipe::msm::detail {

struct TileSpec {
  unsigned window;
  size_t lo, hi;  // term range [lo, hi)
};

// Tiles for m terms, in the order parallel_for should hand them out: whole
// tiles first, then the tail pieces, so the short tasks fill the end.
std::vector<TileSpec> make_tiles(const MsmPlan& plan, size_t m);

}  // namespace proofpipe::msm::detail
