// What the CUDA backend's set-up takes on the device for a proving key, and
// the check that refuses a key the device has no room for before anything
// is uploaded: one line naming the parts (docs/design/overview.md §11: "refuse early
// with a one-line error" and say how much is needed), where a failed
// cudaMalloc halfway through the uploads said only "out of memory".
// Host-only header: no CUDA types.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstddef>

#include "proofpipe/common/status.hpp"
#include "proofpipe/cuda/key_compaction.hpp"
#include "proofpipe/cuda/msm_plan.hpp"
#include "proofpipe/cuda/ntt_kernels.hpp"
#include "proofpipe/ec/xyzz.hpp"
#include "proofpipe/groth16/proving_key.hpp"

namespace proofpipe::cuda {

// Device bytes, by part. A lower bound of what prepare() holds: CUB's temp
// storage and the known-answer test's small sections are not counted (a
// few MiB). For a PoRep partition: about 44 + 16 + 2 + 6.4 GiB.
struct DeviceNeed {
  size_t points = 0;   // the five sections as stored (key_compaction.hpp)
  size_t buffers = 0;  // a, b, c over the domain, and the witness
  size_t ntt = 0;      // the domain's twiddles and coset scale tables
  size_t scratch = 0;  // MSM scratch for any witness (msm_plan.hpp reserve_bytes)
  size_t total() const { return points + buffers + ntt + scratch; }
};

// pk's five point sections as the backend stores them: one pass over each
// to count its identity points. prepare() computes it once and hands it to
// both the room check and the uploads.
struct KeyLayout {
  StoredSection a, b1, b2, c, h;
};
inline KeyLayout key_layout(const groth16::ProvingKeyT<curves::Bls12_381>& pk) {
  return {stored_section<bls12_381::G1Cfg>(pk.a), stored_section<bls12_381::G1Cfg>(pk.b1),
          stored_section<bls12_381::G2Cfg>(pk.b2), stored_section<bls12_381::G1Cfg>(pk.c),
          stored_section<bls12_381::G1Cfg>(pk.h)};
}

// DeviceNeed of pk laid out as `layout` (the sections the backend stores
// without their identity points take less). The same sizes as
// backend.cpp's prepare(), ntt_tables.cpp and reserve_msm.
inline DeviceNeed device_need(const groth16::ProvingKeyT<curves::Bls12_381>& pk, const KeyLayout& layout) {
  using bls12_381::Fr;
  DeviceNeed need;
  size_t g1_terms = 0;
  for (const StoredSection& st : {layout.a, layout.b1, layout.c, layout.h}) {
    need.points += st.bytes;
    g1_terms = std::max(g1_terms, st.count);
  }
  const StoredSection& b2 = layout.b2;
  need.points += b2.bytes;
  const size_t n = pk.domain_size;
  need.buffers = (3 * n + std::max<size_t>(n, pk.n_vars)) * sizeof(Fr);
  if (n != 0) {  // a power of two (the key's checks)
    const unsigned log_n = unsigned(std::countr_zero(n)), tb = nttk::tile_bits_for(log_n);
    const size_t twiddles = log_n > nttk::kTileBits ? n / 2 + 1 : 0;
    need.ntt = (twiddles + (size_t(1) << (log_n - tb)) + (size_t(1) << tb)) * sizeof(Fr);
  }
  need.scratch = msm_detail::reserve_bytes(g1_terms, sizeof(ec::Xyzz<bls12_381::G1Cfg>), b2.count,
                                           sizeof(ec::Xyzz<bls12_381::G2Cfg>));
  return need;
}
inline DeviceNeed device_need(const groth16::ProvingKeyT<curves::Bls12_381>& pk) {
  return device_need(pk, key_layout(pk));
}

// kResourceExhausted with the parts in GiB when need.total() is more than
// the device's free memory plus what the backend already holds (a second
// set-up reuses its buffers); ok otherwise.
inline Status check_device_room(const DeviceNeed& need, size_t free_bytes, size_t held_bytes) {
  if (need.total() <= free_bytes + held_bytes) return Status::ok();
  const auto gib = [](size_t b) { return double(b) / double(size_t(1) << 30); };
  return make_error(ErrorCode::kResourceExhausted,
                    "the key needs at least {:.2f} GiB of device memory (points {:.2f}, per-proof buffers {:.2f}, "
                    "NTT tables {:.2f}, MSM scratch {:.2f}); the device has {:.2f} GiB free{}",
                    gib(need.total()), gib(need.points), gib(need.buffers), gib(need.ntt), gib(need.scratch),
                    gib(free_bytes),
                    held_bytes != 0 ? fmt::format(" and this backend holds {:.2f}", gib(held_bytes)) : "");
}

}  // namespace proofpipe::cuda
