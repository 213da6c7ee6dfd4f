// Where a synthesized partition lives inside its slot (docs/design/overview.md §3):
//
//   slot offset 0                                                 payload_len
//   +--------------+--------------+--------------+---------------+--------+
//   | a[n]  (Fr)   | b[n]  (Fr)   | c[n]  (Fr)   | w[nVars] (Fr) | unused |
//   +--------------+--------------+--------------+---------------+--------+
//
// Fr values are 32 bytes, Montgomery form, little-endian limbs: the prover's
// own layout, so the GPU worker reads them in place. n = domain size. The
// slot header (state word, job, length, checksum) lives in the control
// segment, not here. The slot size is rounded up to a page by shm/.
#pragma once

#include <cstdint>

namespace proofpipe::ipc {

struct PartitionLayout {
  static constexpr uint64_t kFrBytes = 32;
  uint64_t domain_size = 0;  // n
  uint64_t n_vars = 0;

  uint64_t a_offset() const { return 0; }
  uint64_t b_offset() const { return domain_size * kFrBytes; }
  uint64_t c_offset() const { return 2 * domain_size * kFrBytes; }
  uint64_t witness_offset() const { return 3 * domain_size * kFrBytes; }
  uint64_t payload_len() const { return (3 * domain_size + n_vars) * kFrBytes; }
};

}  // namespace proofpipe::ipc
