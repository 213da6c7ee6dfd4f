// Key sections without their identity points: the CUDA backend's device
// copy of a section (cuda/src/backend.cpp). Host code, no CUDA headers: the
// host tests use it too.
//
// snarkjs keys hold the identity (0,0) for every wire absent from a query:
// 62 % of the B1 and B2 points of a `proofpipe gen` key at 2^20, about 75 %
// for a PoRep partition (b density 25.4 %, docs/design/numbers.md §1), where B1 and B2
// are 130 M points each (12.5 + 25 GB) but only 33 M of them are not the
// identity (3.2 + 6.4 GB). The device keeps the other points in order and
// the position of each; the MSM then reads term i's scalar at index[i]
// (msm_kernels.hpp, term_scalar), so the witness is used in place:
//
//   host section, n points           device copy, `present` points
//   pos   0    1    2    3    4  5   points [P0][P2][P5]
//        [P0][ 0 ][P2][ 0 ][ 0 ][P5] index  [ 0][ 2][ 5]   (uint32 each)
//   term i = w[index[i]] * points[i]
//
// The identity adds nothing to a sum, so the MSM is unchanged; what shrinks
// is the device memory, the set-up upload and each MSM's split pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/bls12_381.hpp"

namespace proofpipe::cuda {

// Runs body(part, begin, end) over `parts` equal parts of [0, n) on the
// worker pool (4 a worker: a PoRep B2 section is 25 GB to read).
template <class Body>
void for_parts(size_t n, size_t parts, const Body& body) {
  const size_t step = (n + parts - 1) / parts;
  parallel_for(parts, [&](size_t p) { body(p, std::min(n, p * step), std::min(n, (p + 1) * step)); });
}

// How many points of `pts` are not the identity (the decision comes before
// any index is built: a section left whole needs none).
template <class Cfg>
size_t count_present(std::span<const ec::Affine<Cfg>> pts) {
  std::vector<size_t> count(4 * size_t(worker_count()));
  for_parts(pts.size(), count.size(), [&](size_t p, size_t begin, size_t end) {
    size_t c = 0;  // a local: the parts' counters share cache lines
    for (size_t i = begin; i < end; ++i) c += pts[i].is_identity() ? 0 : 1;
    count[p] = c;
  });
  size_t total = 0;
  for (size_t c : count) total += c;
  return total;
}

// The positions of the points of `pts` that are not the identity, in order.
// Sections are indexed by a zkey's u32 wire numbers, so positions fit.
template <class Cfg>
std::vector<uint32_t> present_points(std::span<const ec::Affine<Cfg>> pts) {
  PP_ASSERT(pts.size() <= UINT32_MAX, "present_points: section over 2^32 points");
  std::vector<std::vector<uint32_t>> found(4 * size_t(worker_count()));
  for_parts(pts.size(), found.size(), [&](size_t p, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      if (!pts[i].is_identity()) found[p].push_back(uint32_t(i));
  });
  std::vector<uint32_t> index;
  for (const auto& f : found) index.insert(index.end(), f.begin(), f.end());
  return index;
}

// Whether the compacted copy is worth keeping: the points it leaves out
// (n - present of point_bytes each) save at least twice what its index
// costs (4 bytes a present point), i.e. for G1 (96-byte points) when more
// than 1 point in 13 is the identity, for G2 (192 bytes) 1 in 25. Below
// that the plain copy is as good and the MSM skips one indirection.
inline bool worth_compacting(size_t n, size_t present, size_t point_bytes) {
  return present < n && (n - present) * point_bytes >= 2 * sizeof(uint32_t) * present;
}

// A section as the backend stores it: the points on the device (all, or
// the present ones when worth_compacting) and the bytes they and their
// index take. One count of the section's identity points.
struct StoredSection {
  size_t count = 0;
  size_t bytes = 0;
  bool compacted = false;
};
template <class Cfg>
StoredSection stored_section(std::span<const ec::Affine<Cfg>> pts) {
  constexpr size_t kPoint = sizeof(ec::Affine<Cfg>);
  const size_t present = count_present<Cfg>(pts);
  if (worth_compacting(pts.size(), present, kPoint)) return {present, present * (kPoint + sizeof(uint32_t)), true};
  return {pts.size(), pts.size() * kPoint, false};
}

// out[j] = pts[index[first + j]] for j < out.size() (first + out.size() <=
// index.size()): one chunk of the compacted section, gathered on the host
// before its upload.
template <class Cfg>
void gather_points(std::span<const ec::Affine<Cfg>> pts, std::span<const uint32_t> index, size_t first,
                   std::span<ec::Affine<Cfg>> out) {
  PP_ASSERT(first + out.size() <= index.size(), "gather_points: chunk past the index");
  for (size_t j = 0; j < out.size(); ++j) out[j] = pts[index[first + j]];
}

}  // namespace proofpipe::cuda
