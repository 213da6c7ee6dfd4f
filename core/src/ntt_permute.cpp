// Bit-reversal permutation for the NTT's natural <-> bit-reversed hand-over.
// Cache-blocked: the index splits into (hi, mid, lo) with 4-bit hi and lo, and
// the 16 x 16 tile at `mid` swaps with the one at rev(mid), transposed. Each
// tile row is 16 x 32 B = 8 contiguous cache lines, where an element-wise swap
// would touch a fresh line (of which it uses half) on every access.
#include <algorithm>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ntt/instances.hpp"
#include "proofpipe/ntt/kernels.hpp"

namespace proofpipe::ntt {
namespace {

constexpr unsigned kTileBits = 4;
constexpr size_t kTile = size_t(1) << kTileBits;

template <class Fr>
inline Fr scaled(const Fr& v, const Fr& scale, bool do_scale) {
  return do_scale ? v * scale : v;
}

// Element-wise, for sizes below one pair of tiles (n < 256).
template <class Fr>
void bit_reverse_small(Fr* x, unsigned log_n, const Fr& scale, bool do_scale) {
  const size_t n = size_t(1) << log_n;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = reverse_bits(i, log_n);
    if (i < j) {
      const Fr t = x[i];
      x[i] = scaled(x[j], scale, do_scale);
      x[j] = scaled(t, scale, do_scale);
    } else if (i == j) {
      x[i] = scaled(x[i], scale, do_scale);
    }
  }
}

}  // namespace

template <class Fr>
void bit_reverse(Fr* x, unsigned log_n, const Fr& scale) {
  const bool do_scale = !scale.is_one();
  if (log_n < 2 * kTileBits) {
    bit_reverse_small(x, log_n, scale, do_scale);
    return;
  }
  const unsigned mid_bits = log_n - 2 * kTileBits;
  const unsigned hi_shift = log_n - kTileBits;
  size_t rev4[kTile];
  for (size_t i = 0; i < kTile; ++i) rev4[i] = reverse_bits(i, kTileBits);

  parallel_for_range(size_t(1) << mid_bits, [&](size_t m0, size_t m1) {
    Fr a[kTile * kTile], b[kTile * kTile];
    for (size_t mid = m0; mid < m1; ++mid) {
      const size_t rmid = reverse_bits(mid, mid_bits);
      if (rmid < mid) continue;  // the pair was done from its other end
      Fr* ta = x + (mid << kTileBits);
      Fr* tb = x + (rmid << kTileBits);
      for (size_t hi = 0; hi < kTile; ++hi) {
        std::copy_n(ta + (hi << hi_shift), kTile, a + hi * kTile);
        std::copy_n(tb + (hi << hi_shift), kTile, b + hi * kTile);
      }
      // new x[p] = old x[rev(p)]; rev(hi, mid, lo) = (rev lo, rev mid, rev hi).
      for (size_t hi = 0; hi < kTile; ++hi) {
        Fr* ra = ta + (hi << hi_shift);
        Fr* rb = tb + (hi << hi_shift);
        for (size_t lo = 0; lo < kTile; ++lo) {
          const size_t src = rev4[lo] * kTile + rev4[hi];
          ra[lo] = scaled(b[src], scale, do_scale);
          if (rmid != mid) rb[lo] = scaled(a[src], scale, do_scale);
        }
      }
    }
  });
}

#define PP_NTT_PERMUTE(F) template void bit_reverse(F*, unsigned, const F&);
PP_NTT_FOR_EACH_FIELD(PP_NTT_PERMUTE)

}  // namespace proofpipe::ntt
