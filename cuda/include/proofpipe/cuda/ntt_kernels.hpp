// Per-thread bodies of the CUDA Fr NTT (cuda/src/ntt.cu), written once for
// nvcc and the host compiler: the kernels are thin loops around these, and
// tests/cuda/ntt_kernels_test.cpp runs the very same bodies in host loops.
// No CUDA headers, no CUDA-only constructs.
//
// Layout of a size-2^k transform (k <= 28), radix-2 levels l = 0..k-1 (half
// size m = 2^l, pair (i, i + m), offset j = i mod m, twiddle w_{2m}^j):
//  - levels l >= tile_bits: "global" passes, one kernel per 2 levels
//    (radix-4: 4 elements per thread, 2 loads + 2 stores of the array per
//    2 levels) and a radix-2 kernel for an odd level left over;
//  - levels l < tile_bits: one shared-memory kernel per contiguous tile of
//    2^tile_bits elements (tile_bits = min(k, kTileBits)), which runs all of
//    them between one load and one store.
// DIF (Gentleman-Sande) takes natural order to bit-reversed order, DIT
// (Cooley-Tukey) bit-reversed to natural, so the H chain (inverse DIF, scale,
// forward DIT) never permutes; only the plain ntt/intt need bitrev_body.
//
// Twiddles: `tw` is the per-size table w^j, j in [0, n/2] (n/2 + 1 entries:
// w^(n/2) = -1 is the last); level l reads tw[j << (k-1-l)]. Inverse
// transforms use negated twiddles w' = -w_{2m}^-j = w_{2m}^(m-j) from the same
// table and a butterfly computing (b - a) * w' instead of (a - b) * w^-j: no
// second n/2 table (4 GiB at 2^28). The tile levels read the size-independent
// level tables lvl[m + j] = w_{2m}^j (or w_{2m}^(m-j)), 2^kTileBits entries,
// since w_n^(n/2m) = w_{2m} for snarkjs's roots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/hd.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::cuda::nttk {

using bls12_381::Fr;

// 2^10 Fr = 32 KiB of shared memory per tile: under the 48 KiB static limit
// (no opt-in), and up to 7 blocks per SM by shared memory on sm_90 (228 KiB).
// 2^11 would save no global pass at 2^20..2^28 (the global levels are paired
// two per kernel either way: 2^24 -> 14 levels = 7 passes with 10, 13 = 6 + 1
// with 11), so the smaller tile wins on occupancy.
inline constexpr unsigned kTileBits = 10;
// Threads per tile block: 2 butterflies per thread per level at 2^10.
inline constexpr unsigned kTileThreads = 256;
// Threads per block of the global and element-wise kernels.
inline constexpr unsigned kGlobalThreads = 256;

// v's low `bits` bits reversed (bits <= 64). Mask-and-swap, no intrinsics,
// so the same code runs on both sides.
PP_HD_INLINE uint64_t reverse_bits(uint64_t v, unsigned bits) {
  if (bits == 0) return 0;
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  v = ((v >> 8) & 0x00FF00FF00FF00FFULL) | ((v & 0x00FF00FF00FF00FFULL) << 8);
  v = ((v >> 16) & 0x0000FFFF0000FFFFULL) | ((v & 0x0000FFFF0000FFFFULL) << 16);
  v = (v >> 32) | (v << 32);
  return v >> (64 - bits);
}

// ----- element access -----

// On the device an Fr moves as two 16-byte vector accesses (LDG/STG/LDS.128)
// instead of four 8-byte ones: half the memory instructions of the
// bandwidth-bound global passes. Arrays must be 16-byte aligned (cudaMalloc
// gives 256, and element offsets keep 32). The guarded branch uses CUDA's
// ulonglong2, which only device compilation sees; the host copies plainly.
PP_HD_INLINE Fr ld(const Fr* p) {
#if defined(__CUDA_ARCH__)
  const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
  const ulonglong2 lo = q[0], hi = q[1];
  Fr r;
  r.l[0] = lo.x;
  r.l[1] = lo.y;
  r.l[2] = hi.x;
  r.l[3] = hi.y;
  return r;
#else
  return *p;
#endif
}
PP_HD_INLINE void st(Fr* p, const Fr& v) {
#if defined(__CUDA_ARCH__)
  ulonglong2* q = reinterpret_cast<ulonglong2*>(p);
  q[0] = make_ulonglong2(v.l[0], v.l[1]);
  q[1] = make_ulonglong2(v.l[2], v.l[3]);
#else
  *p = v;
#endif
}

// ----- butterflies -----

// DIF: (a, b) <- (a + b, (a - b) * w); inverse with w' = -w^-1: (b - a) * w'.
template <bool Inv>
PP_HD_INLINE void dif_bf(Fr& a, Fr& b, const Fr& w) {
  const Fr s = a + b;
  const Fr d = Inv ? b - a : a - b;
  a = s;
  b = d * w;
}
// DIT, forward only (the H chain's one DIT direction): (a + b*w, a - b*w).
PP_HD_INLINE void dit_bf(Fr& a, Fr& b, const Fr& w) {
  const Fr t = b * w;
  b = a - t;
  a = a + t;
}

// Twiddle of pair offset j at level l (half size m = 2^l) of a 2^log_n transform.
template <bool Inv>
PP_HD_INLINE Fr global_twiddle(const Fr* tw, unsigned log_n, unsigned l, uint64_t j) {
  const uint64_t m = uint64_t(1) << l;
  return ld(tw + ((Inv ? m - j : j) << (log_n - 1 - l)));
}

// ----- global passes (levels >= tile_bits) -----

// One radix-2 DIF level l; thread t < n/2.
template <bool Inv>
PP_HD_INLINE void dif_r2_body(Fr* x, const Fr* tw, unsigned log_n, unsigned l, uint64_t t) {
  const uint64_t m = uint64_t(1) << l, j = t & (m - 1);
  const uint64_t i = ((t >> l) << (l + 1)) | j;
  Fr a = ld(x + i), b = ld(x + i + m);
  dif_bf<Inv>(a, b, global_twiddle<Inv>(tw, log_n, l, j));
  st(x + i, a);
  st(x + i + m, b);
}

// a = x * b - c at one position: the H product, fused into the chain's last pass.
PP_HD_INLINE void store_h(Fr* a, const Fr* b, const Fr* c, uint64_t i, const Fr& v) {
  st(a + i, v * ld(b + i) - ld(c + i));
}

// One radix-2 forward DIT level l; thread t < n/2. With b, c non-null the
// outputs are stored as out * b - c (the H product).
PP_HD_INLINE void dit_r2_body(Fr* x, const Fr* b, const Fr* c, const Fr* tw, unsigned log_n, unsigned l, uint64_t t) {
  const uint64_t m = uint64_t(1) << l, j = t & (m - 1);
  const uint64_t i = ((t >> l) << (l + 1)) | j;
  Fr u = ld(x + i), v = ld(x + i + m);
  dit_bf(u, v, global_twiddle<false>(tw, log_n, l, j));
  if (b != nullptr) {
    store_h(x, b, c, i, u);
    store_h(x, b, c, i + m, v);
  } else {
    st(x + i, u);
    st(x + i + m, v);
  }
}

// Levels l and l-1 (l >= 1) of a DIF in one pass; thread t < n/4 holds the
// four elements i, i+h, i+2h, i+3h (h = 2^(l-1), i with bits l and l-1 clear).
template <bool Inv>
PP_HD_INLINE void dif_r4_body(Fr* x, const Fr* tw, unsigned log_n, unsigned l, uint64_t t) {
  const uint64_t h = uint64_t(1) << (l - 1), j = t & (h - 1);
  const uint64_t i = ((t >> (l - 1)) << (l + 1)) | j;
  Fr x0 = ld(x + i), x1 = ld(x + i + h), x2 = ld(x + i + 2 * h), x3 = ld(x + i + 3 * h);
  dif_bf<Inv>(x0, x2, global_twiddle<Inv>(tw, log_n, l, j));
  dif_bf<Inv>(x1, x3, global_twiddle<Inv>(tw, log_n, l, j + h));
  const Fr w = global_twiddle<Inv>(tw, log_n, l - 1, j);
  dif_bf<Inv>(x0, x1, w);
  dif_bf<Inv>(x2, x3, w);
  st(x + i, x0);
  st(x + i + h, x1);
  st(x + i + 2 * h, x2);
  st(x + i + 3 * h, x3);
}

// Levels l-1 and l (l >= 1) of a forward DIT in one pass; same four elements.
// With b, c non-null the outputs are stored as out * b - c.
PP_HD_INLINE void dit_r4_body(Fr* x, const Fr* b, const Fr* c, const Fr* tw, unsigned log_n, unsigned l, uint64_t t) {
  const uint64_t h = uint64_t(1) << (l - 1), j = t & (h - 1);
  const uint64_t i = ((t >> (l - 1)) << (l + 1)) | j;
  Fr x0 = ld(x + i), x1 = ld(x + i + h), x2 = ld(x + i + 2 * h), x3 = ld(x + i + 3 * h);
  const Fr w = global_twiddle<false>(tw, log_n, l - 1, j);
  dit_bf(x0, x1, w);
  dit_bf(x2, x3, w);
  dit_bf(x0, x2, global_twiddle<false>(tw, log_n, l, j));
  dit_bf(x1, x3, global_twiddle<false>(tw, log_n, l, j + h));
  if (b != nullptr) {
    store_h(x, b, c, i, x0);
    store_h(x, b, c, i + h, x1);
    store_h(x, b, c, i + 2 * h, x2);
    store_h(x, b, c, i + 3 * h, x3);
  } else {
    st(x + i, x0);
    st(x + i + h, x1);
    st(x + i + 2 * h, x2);
    st(x + i + 3 * h, x3);
  }
}

// The global passes of one transform, in launch order. `l` is the pass's
// upper level; radix 4 covers levels l and l-1.
struct GlobalPass {
  uint8_t radix;  // 2 or 4
  uint8_t l;
};
struct GlobalPlan {
  GlobalPass pass[16];  // (28 - 0) / 2 = 14 at most
  unsigned count = 0;
};

PP_HD_INLINE unsigned tile_bits_for(unsigned log_n) { return log_n < kTileBits ? log_n : kTileBits; }

// DIF: levels log_n-1 down to tile_bits, pairs from the top; an odd level
// left over runs last as radix 2 (at l = tile_bits).
inline GlobalPlan dif_plan(unsigned log_n) {
  GlobalPlan p;
  unsigned top = log_n;  // levels [tb, top) remain
  const unsigned tb = tile_bits_for(log_n);
  while (top - tb >= 2) {
    p.pass[p.count++] = {4, uint8_t(top - 1)};
    top -= 2;
  }
  if (top > tb) p.pass[p.count++] = {2, uint8_t(tb)};
  return p;
}
// DIT: levels tile_bits up to log_n-1; an odd level runs first as radix 2,
// so the last pass (which carries the fused H product) is radix 4 when there
// are two levels or more.
inline GlobalPlan dit_plan(unsigned log_n) {
  GlobalPlan p;
  const unsigned tb = tile_bits_for(log_n);
  unsigned lo = tb;  // levels [lo, log_n) remain
  if ((log_n - tb) % 2 == 1) p.pass[p.count++] = {2, uint8_t(lo++)};
  while (lo < log_n) {
    p.pass[p.count++] = {4, uint8_t(lo + 1)};
    lo += 2;
  }
  return p;
}

// ----- bit reversal (plain ntt / intt only) -----

// Thread i < n: swaps x[i] and x[rev(i)] once (from the lower index),
// multiplying by `scale` when do_scale (1/n of the inverse).
PP_HD_INLINE void bitrev_body(Fr* x, unsigned log_n, const Fr& scale, bool do_scale, uint64_t i) {
  const uint64_t r = reverse_bits(i, log_n);
  if (r < i) return;
  Fr u = ld(x + i), v = ld(x + r);
  if (do_scale) {
    u = u * scale;
    v = v * scale;
  }
  st(x + i, v);
  st(x + r, u);
}

// ----- the shared-memory tile kernel -----

enum class TileMode : uint8_t {
  kDif,       // DIF levels tile_bits-1 .. 0 (direction by `inverse`)
  kOddCoset,  // inverse DIF levels, scale by inv_n * shift^rev(p), forward DIT levels
};

// Everything one launch of the tile kernel needs (passed by value).
struct TileArgs {
  Fr* x;        // the array; block `blk` works on x[blk << tile_bits ...]
  const Fr* b;  // kOddCoset with b, c non-null: store x * b - c (the H product)
  const Fr* c;
  const Fr* lvl_dif;    // level table of the DIF levels (negated inverse when `inverse`)
  const Fr* lvl_fwd;    // forward level table (DIT levels of kOddCoset)
  const Fr* blk_scale;  // kOddCoset: per block, inv_n * shift^rev_{k-tb}(blk)
  const Fr* off_scale;  // kOddCoset: per offset t, (shift^(2^(k-tb)))^rev_tb(t)
  unsigned tile_bits;
  unsigned threads;  // block size: min(kTileThreads, max(1, tile/2))
  TileMode mode;
  bool inverse;  // kDif only
};

PP_HD_INLINE unsigned tile_threads_for(unsigned tile_bits) {
  const unsigned half = tile_bits == 0 ? 1u : 1u << (tile_bits - 1);
  return half < kTileThreads ? half : kTileThreads;
}

// Steps of one tile: load, the levels, (scale, levels,) store. The kernel
// runs `for (s < tile_steps) { tile_step(s); __syncthreads(); }`.
PP_HD_INLINE unsigned tile_steps(const TileArgs& a) {
  return a.mode == TileMode::kDif ? a.tile_bits + 2 : 2 * a.tile_bits + 3;
}

// Butterflies of one tile level: thread tid takes pairs tid, tid + threads, ...
template <bool Dif, bool Inv>
PP_HD_INLINE void tile_level(Fr* tile, unsigned tile_bits, unsigned l, const Fr* lvl, unsigned tid, unsigned threads) {
  const uint32_t half = uint32_t(1) << (tile_bits - 1), m = uint32_t(1) << l;
  for (uint32_t q = tid; q < half; q += threads) {
    const uint32_t j = q & (m - 1);
    const uint32_t i = ((q >> l) << (l + 1)) | j;
    Fr u = ld(tile + i), v = ld(tile + i + m);
    const Fr w = ld(lvl + m + j);
    if constexpr (Dif) {
      dif_bf<Inv>(u, v, w);
    } else {
      dit_bf(u, v, w);
    }
    st(tile + i, u);
    st(tile + i + m, v);
  }
}

// Step s of block blk, thread tid. tile: the block's 2^tile_bits shared elements.
PP_HD_INLINE void tile_step(const TileArgs& a, Fr* tile, uint64_t blk, unsigned s, unsigned tid) {
  const unsigned tb = a.tile_bits;
  const uint32_t len = uint32_t(1) << tb;
  const uint64_t base = blk << tb;
  const unsigned last = tile_steps(a) - 1;
  if (s == 0) {  // load: consecutive threads, consecutive elements
    for (uint32_t u = tid; u < len; u += a.threads) st(tile + u, ld(a.x + base + u));
    return;
  }
  if (s == last) {  // store (with the H product when b, c are given)
    for (uint32_t u = tid; u < len; u += a.threads) {
      if (a.b != nullptr) {
        store_h(a.x, a.b, a.c, base + u, ld(tile + u));
      } else {
        st(a.x + base + u, ld(tile + u));
      }
    }
    return;
  }
  if (s <= tb) {  // DIF levels tb-1 .. 0
    const unsigned l = tb - s;
    if (a.mode == TileMode::kOddCoset || a.inverse) {
      tile_level<true, true>(tile, tb, l, a.lvl_dif, tid, a.threads);
    } else {
      tile_level<true, false>(tile, tb, l, a.lvl_dif, tid, a.threads);
    }
    return;
  }
  if (s == tb + 1) {  // kOddCoset: position p = blk * 2^tb + t holds coefficient rev_k(p)
    const Fr f = ld(a.blk_scale + blk);
    for (uint32_t u = tid; u < len; u += a.threads) st(tile + u, ld(tile + u) * (f * ld(a.off_scale + u)));
    return;
  }
  tile_level<false, false>(tile, tb, s - tb - 2, a.lvl_fwd, tid, a.threads);  // DIT levels 0 .. tb-1
}

// ----- host-side tables (built once per size, uploaded by ntt_tables.cpp) -----

// lvl[m + j] = w_{2m}^j (forward) or w_{2m}^(m-j) (inverse, negated) for
// m = 2^l, l < kTileBits, j < m; entry 0 unused.
inline std::vector<Fr> level_table(bool inverse) {
  std::vector<Fr> t(size_t(1) << kTileBits, Fr::zero());
  for (unsigned l = 0; l < kTileBits; ++l) {
    const size_t m = size_t(1) << l;
    const Fr w = ntt::root_of_unity<Fr>(l + 1);
    Fr p = Fr::one();
    std::vector<Fr> pw(2 * m);
    for (size_t j = 0; j < 2 * m; ++j, p = p * w) pw[j] = p;
    for (size_t j = 0; j < m; ++j) t[m + j] = inverse ? pw[m - j] : pw[j];
  }
  return t;
}

// tw[j - begin] = omega^j for j in [begin, end): one pow, then a chain.
// The caller splits the n/2 + 1 entries into chunks (in parallel).
inline void twiddle_range(Fr* out, const Fr& omega, uint64_t begin, uint64_t end) {
  Fr p = omega.pow_u64(begin);
  for (uint64_t j = begin; j < end; ++j, p = p * omega) out[j - begin] = p;
}

// The two scale tables of kOddCoset for a 2^log_n transform. Position
// p = blk * 2^tb + t holds coefficient rev_k(p) = rev_tb(t) * 2^(k-tb) + rev_{k-tb}(blk),
// whose factor inv_n * shift^rev_k(p) splits into
//   blk[blk] = inv_n * shift^rev_{k-tb}(blk)   (2^(k-tb) entries, 4 MiB at 2^28)
//   off[t]   = (shift^(2^(k-tb)))^rev_tb(t)    (2^tb entries)
// shift = w_{2n} (the odd coset), inv_n = 1/n.
inline void scale_tables(unsigned log_n, std::vector<Fr>& blk, std::vector<Fr>& off) {
  const unsigned tb = tile_bits_for(log_n), hb = log_n - tb;
  // Not ntt::DomainT::get(log_n): that would build the CPU's n/2 table (4 GiB at 2^28).
  const Fr shift = ntt::root_of_unity<Fr>(log_n + 1);
  blk.assign(size_t(1) << hb, Fr::zero());
  Fr p = Fr::from_u64(uint64_t(1) << log_n).inverse();
  for (uint64_t e = 0; e < blk.size(); ++e, p = p * shift) blk[reverse_bits(e, hb)] = p;
  off.assign(size_t(1) << tb, Fr::zero());
  const Fr s2 = shift.pow_u64(uint64_t(1) << hb);
  p = Fr::one();
  for (uint64_t e = 0; e < off.size(); ++e, p = p * s2) off[reverse_bits(e, tb)] = p;
}

}  // namespace proofpipe::cuda::nttk
