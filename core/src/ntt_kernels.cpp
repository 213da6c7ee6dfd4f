// Radix-2 NTT passes over Fr (see proofpipe/ntt/kernels.hpp for the layout):
// Cooley-Tukey DIT and Gentleman-Sande DIF butterflies, the bottom pass on
// contiguous blocks, and column passes on gathered 2^bits x cw tiles.
// Not here: roots, caching and the public API (ntt.cpp), bit reversal (ntt_permute.cpp).
#include <algorithm>
#include <cstring>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ntt/instances.hpp"
#include "proofpipe/ntt/kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define PP_NTT_INLINE inline __attribute__((always_inline))

namespace proofpipe::ntt {
namespace {

// A column tile holds at most 2^13 elements = 256 KiB: it fits the 2 MiB L2
// with room for the twiddle lines streamed next to it.
constexpr size_t kTileElems = size_t(1) << 13;
constexpr size_t kPrefetchRows = 4;
constexpr unsigned kL1Bits = 10;

// a + b and a - b mod r for the butterflies, both fully reduced.
// The portable Field + and - end in a data-dependent branch (take p off / add
// p back) that random butterfly inputs mispredict half the time: 83 against
// 52 ns per butterfly with this mask-select version on the 2-core dev VM.
// r < 2^255, so a + b never carries out of 4 limbs.
#if defined(__x86_64__)
PP_NTT_INLINE unsigned char addc(unsigned char c, uint64_t x, uint64_t y, uint64_t* out) {
  unsigned long long v;
  c = _addcarry_u64(c, x, y, &v);
  *out = v;
  return c;
}
PP_NTT_INLINE unsigned char subb(unsigned char b, uint64_t x, uint64_t y, uint64_t* out) {
  unsigned long long v;
  b = _subborrow_u64(b, x, y, &v);
  *out = v;
  return b;
}
#else
PP_NTT_INLINE unsigned char addc(unsigned char c, uint64_t x, uint64_t y, uint64_t* out) {
  const ff::u128 t = ff::u128(x) + y + c;
  *out = uint64_t(t);
  return (unsigned char)(t >> 64);
}
PP_NTT_INLINE unsigned char subb(unsigned char b, uint64_t x, uint64_t y, uint64_t* out) {
  const ff::u128 t = ff::u128(x) - y - b;
  *out = uint64_t(t);
  return (unsigned char)((t >> 64) & 1);
}
#endif

template <class Fr>
PP_NTT_INLINE void add_sub_masked(const Fr& a, const Fr& b, Fr& sum, Fr& diff) {
  constexpr auto kP = Fr::C::kP;
  uint64_t s[4], t[4], d[4];
  unsigned char c = 0, bs = 0, bd = 0;
  for (int i = 0; i < 4; ++i) c = addc(c, a.l[i], b.l[i], &s[i]);
  for (int i = 0; i < 4; ++i) {
    bs = subb(bs, s[i], kP[i], &t[i]);
    bd = subb(bd, a.l[i], b.l[i], &d[i]);
  }
  const uint64_t keep_s = uint64_t(0) - bs;  // s < p: keep s, else s - p
  const uint64_t add_p = uint64_t(0) - bd;   // a < b: add p back
  c = 0;
  for (int i = 0; i < 4; ++i) {
    sum.l[i] = (s[i] & keep_s) | (t[i] & ~keep_s);
    c = addc(c, d[i], kP[i] & add_p, &diff.l[i]);
  }
}

// Where the CPU runs the BMI2/ADX kernels (ff/detail/mont_x86.hpp), Field's +
// and - are branch-free asm, measured ~25% faster per butterfly than the
// fused C++ above; elsewhere that C++.
template <class Fr>
PP_NTT_INLINE void add_sub(const Fr& a, const Fr& b, Fr& sum, Fr& diff) {
  if (Fr::host_asm()) {
    const Fr s = a + b;
    diff = a - b;
    sum = s;
  } else {
    add_sub_masked(a, b, sum, diff);
  }
}

// Butterflies. Inverse transforms pass negated twiddles w' = -w^-1 (see kernels.hpp).
template <bool Inv, class Fr>
PP_NTT_INLINE void dif_bf(Fr& a, Fr& b, const Fr& w) {
  Fr s, d;
  if constexpr (Inv) {
    add_sub(b, a, s, d);  // b - a
  } else {
    add_sub(a, b, s, d);
  }
  a = s;
  b = d * w;
}
template <bool Inv, class Fr>
PP_NTT_INLINE void dit_bf(Fr& a, Fr& b, const Fr& w) {
  const Fr t = b * w;
  if constexpr (Inv) {
    Fr s, d;
    add_sub(a, t, s, d);
    a = d;
    b = s;
  } else {
    add_sub(a, t, a, b);
  }
}
// Twiddle 1 (forward) or -1 negated (inverse): the same add/sub pair, no multiply.
template <class Fr>
PP_NTT_INLINE void bf_nomul(Fr& a, Fr& b) {
  Fr s, d;
  add_sub(a, b, s, d);
  a = s;
  b = d;
}

// Per-level tables shared by every domain (level_table in kernels.hpp).
// 2 x 128 KiB; w_{2m} does not depend on n, so one table serves all sizes.
template <class Fr>
struct LevelTables {
  std::vector<Fr> fwd, inv;
  LevelTables() : fwd(size_t(1) << kMaxPassBits), inv(size_t(1) << kMaxPassBits) {
    for (unsigned l = 0; l < kMaxPassBits; ++l) {
      const size_t m = size_t(1) << l;
      std::vector<Fr> p = powers(root_of_unity<Fr>(l + 1), 2 * m);
      for (size_t j = 0; j < m; ++j) {
        fwd[m + j] = p[j];
        inv[m + j] = p[m - j];
      }
    }
  }
};
template <class Fr>
const LevelTables<Fr>& level_tables() {
  static const LevelTables<Fr> t;
  return t;
}

// Levels [l_end, l_begin) of a DIF (descending l) or DIT (ascending l) over
// one contiguous run of len elements.
template <bool Dif, bool Inv, class Fr>
PP_NTT_INLINE void block_levels(Fr* p, size_t len, unsigned l_lo, unsigned l_hi, const Fr* level) {
  for (unsigned s = l_lo; s < l_hi; ++s) {
    const unsigned l = Dif ? l_hi - 1 - (s - l_lo) : s;
    const size_t m = size_t(1) << l;
    const Fr* w = level + m;
    for (size_t b = 0; b < len; b += 2 * m) {
      bf_nomul(p[b], p[b + m]);
      for (size_t j = 1; j < m; ++j) {
        if constexpr (Dif) {
          dif_bf<Inv>(p[b + j], p[b + j + m], w[j]);
        } else {
          dit_bf<Inv>(p[b + j], p[b + j + m], w[j]);
        }
      }
    }
  }
}

// A bottom block of 2^bits. The levels below kL1Bits run per 2^kL1Bits
// sub-block (32 KiB, inside the 48 KiB L1); only the levels above sweep the
// whole block through L2.
template <bool Inv, class Fr>
void dif_block(Fr* p, unsigned bits, const Fr* level) {
  const size_t len = size_t(1) << bits;
  const unsigned split = std::min(bits, kL1Bits);
  block_levels<true, Inv>(p, len, split, bits, level);
  for (size_t sb = 0; sb < len; sb += size_t(1) << split)
    block_levels<true, Inv>(p + sb, size_t(1) << split, 0, split, level);
}

template <bool Inv, class Fr>
void dit_block(Fr* p, unsigned bits, const Fr* level) {
  const size_t len = size_t(1) << bits;
  const unsigned split = std::min(bits, kL1Bits);
  for (size_t sb = 0; sb < len; sb += size_t(1) << split)
    block_levels<false, Inv>(p + sb, size_t(1) << split, 0, split, level);
  block_levels<false, Inv>(p, len, split, bits, level);
}

// Runs fn(block pointer) on every 2^bits block of the bottom pass in parallel.
template <class Fr, class Fn>
void for_each_block(Fr* x, const Plan& plan, Fn&& fn) {
  const unsigned bits = plan.passes[0].bits;
  const size_t blocks = size_t(1) << (plan.log_n - bits);
  parallel_for(blocks, [&](size_t b) { fn(b, x + (b << bits)); });
}

// The levels of one column pass on the tile whose first column is c0, cw
// wide: for each level (DIF top-down, DIT bottom-up) and each row offset r
// below its half size h, tw[cc] is column c0 + cc's twiddle and
// rows_fn(r, h, tw) runs the butterflies of rows ub + r and ub + r + h.
// Column (global) index c = c0 + cc; pair offset jj = r*2^lo + c < m.
// The twiddle of pair offset jj is top[jj * n/(2m)], and top[(m-jj) * n/(2m)]
// negated for the inverse; m*n/(2m) = n/2 is the table's last entry, -1.
template <bool Dif, bool Inv, class Fr, class RowsFn>
PP_NTT_INLINE void column_levels(unsigned log_n, PassSpec ps, const Fr* top, size_t c0, size_t cw, RowsFn&& rows_fn) {
  const unsigned lo = ps.lo, bits = ps.bits;
  Fr tw[kMaxTileCols];
  for (unsigned s = 0; s < bits; ++s) {
    const unsigned l = Dif ? bits - 1 - s : s;  // DIF runs top-down, DIT bottom-up
    const size_t h = size_t(1) << l, m = h << lo;
    const unsigned stride_log = log_n - 1 - lo - l;  // log2(n / (2m))
    auto tw_index = [&](size_t r, size_t cc) {
      const size_t jj = (r << lo) + c0 + cc;
      return (Inv ? m - jj : jj) << stride_log;
    };
    for (size_t r = 0; r < h; ++r) {
      // The top levels touch a fresh twiddle line per column (entries n/(2m)
      // apart, up to 4 KiB at 2^20) far outside L2. perf at 2^20: the
      // twiddle loads took 16% of this pass's samples, 9% when fetched
      // kPrefetchRows rows ahead.
      if (r + kPrefetchRows < h) {
        for (size_t cc = 0; cc < cw; ++cc) __builtin_prefetch(top + tw_index(r + kPrefetchRows, cc));
      }
      for (size_t cc = 0; cc < cw; ++cc) tw[cc] = top[tw_index(r, cc)];
      rows_fn(r, h, static_cast<const Fr*>(tw));
    }
  }
}

// One column pass: levels with global half size m = 2^l, l in [lo, lo+bits).
// Element (row u, column c) of outer block o is x[o*2^(lo+bits) + u*2^lo + c].
// On the IFMA lanes when the tile is a whole number of Packs wide (always for
// make_plan's plans: cw >= 8 there); the twiddle lookup is shared.
template <bool Dif, bool Inv, class Fr>
void column_pass(Fr* x, unsigned log_n, PassSpec ps, const Fr* top) {
  const unsigned lo = ps.lo, bits = ps.bits;
  const size_t rows = size_t(1) << bits, cols = size_t(1) << lo;
  const size_t outers = size_t(1) << (log_n - lo - bits);
  size_t cw = std::min({cols, std::max<size_t>(2, kTileElems >> bits), kMaxTileCols});
  // Keep at least 8 tasks so both cores (and any more) get work at 2^13..2^16.
  while (cw > 2 && outers * (cols / cw) < 8) cw /= 2;
  const size_t groups = cols / cw;
  const bool lanes = cw % 8 == 0 && ifma_lanes();

  parallel_for(outers * groups, [&](size_t task) {
    const size_t c0 = (task % groups) * cw;
    Fr* base = x + ((task / groups) << (lo + bits)) + c0;
    if (lanes) {
      LanePack<Fr>* t = ifma_tile_load(base, lo, rows, cw);
      column_levels<Dif, Inv>(log_n, ps, top, c0, cw, [&](size_t r, size_t h, const Fr* tw) {
        ifma_tile_rows(t, rows, cw, r, h, tw, Dif, Inv);
      });
      ifma_tile_store(t, base, lo, rows, cw);
      return;
    }
    thread_local std::vector<Fr> tile;
    tile.resize(rows * cw);
    Fr* t = tile.data();
    for (size_t u = 0; u < rows; ++u) std::memcpy(t + u * cw, base + (u << lo), cw * sizeof(Fr));
    column_levels<Dif, Inv>(log_n, ps, top, c0, cw, [&](size_t r, size_t h, const Fr* tw) {
      for (size_t ub = 0; ub < rows; ub += 2 * h) {
        Fr* p1 = t + (ub + r) * cw;
        Fr* p2 = p1 + h * cw;
        for (size_t cc = 0; cc < cw; ++cc) {
          if constexpr (Dif) {
            dif_bf<Inv>(p1[cc], p2[cc], tw[cc]);
          } else {
            dit_bf<Inv>(p1[cc], p2[cc], tw[cc]);
          }
        }
      }
    });
    for (size_t u = 0; u < rows; ++u) std::memcpy(base + (u << lo), t + u * cw, cw * sizeof(Fr));
  });
}

template <bool Dif, class Fr>
void columns(Fr* x, const Plan& plan, const Fr* top, bool inverse) {
  if (plan.passes.size() <= 1) return;
  PP_ASSERT(top != nullptr, "ntt: column passes need the domain's twiddle table");
  const size_t np = plan.passes.size();
  for (size_t i = 1; i < np; ++i) {
    const PassSpec ps = plan.passes[Dif ? np - i : i];  // DIF: highest levels first
    if (inverse) {
      column_pass<Dif, true>(x, plan.log_n, ps, top);
    } else {
      column_pass<Dif, false>(x, plan.log_n, ps, top);
    }
  }
}

}  // namespace

template <class Fr>
const Fr* level_table(bool inverse) {
  const LevelTables<Fr>& t = level_tables<Fr>();
  return inverse ? t.inv.data() : t.fwd.data();
}

Plan make_plan(unsigned log_n) {
  Plan plan;
  plan.log_n = log_n;
  if (log_n <= kMaxPassBits) {
    plan.passes.push_back({0, log_n});
    return plan;
  }
  // The bottom pass takes as many levels as it can (12): its blocks stay in
  // L2 and read compact twiddles, while a column pass pays for a gather, a
  // scatter and twiddles strided through the big table. Measured at 2^20 on
  // one core (best of 4 on the shared VM): 12+8 and 11+9 ran about 7% under
  // 10+10 and 20% under 8+12. The
  // other levels go to ceil(rest / 10) column passes of >= 4 levels each:
  // 2^13 -> 9+4, 2^20 -> 12+8, 2^22 -> 12+10, 2^24 -> 12+6+6, 2^28 -> 12+8+8.
  const unsigned columns = (log_n - kMaxPassBits + kMaxColumnBits - 1) / kMaxColumnBits;
  const unsigned bottom = std::min(kMaxPassBits, log_n - 4 * columns);
  plan.passes.push_back({0, bottom});
  const unsigned rest = log_n - bottom;
  unsigned lo = bottom;
  for (unsigned i = 0; i < columns; ++i) {
    const unsigned bits = rest / columns + (i < rest % columns ? 1 : 0);
    plan.passes.push_back({lo, bits});
    lo += bits;
  }
  return plan;
}

template <class Fr>
std::vector<Fr> powers(const Fr& v, size_t count) {
  std::vector<Fr> p(count);
  Fr acc = Fr::one();
  for (size_t i = 0; i < count; ++i) {
    p[i] = acc;
    acc = acc * v;
  }
  return p;
}

template <class Fr>
void dif_columns(Fr* x, const Plan& plan, const Fr* top, bool inverse) {
  columns<true>(x, plan, top, inverse);
}
template <class Fr>
void dit_columns(Fr* x, const Plan& plan, const Fr* top, bool inverse) {
  columns<false>(x, plan, top, inverse);
}

template <class Fr>
void dif(Fr* x, const Plan& plan, const Fr* top, bool inverse) {
  dif_columns(x, plan, top, inverse);
  const Fr* level = level_table<Fr>(inverse);
  const unsigned bits = plan.passes[0].bits;
  const bool lanes = ifma_blocks(bits);
  for_each_block(x, plan, [&](size_t, Fr* p) {
    if (lanes) {
      ifma_dif_block(p, bits, inverse);
    } else if (inverse) {
      dif_block<true>(p, bits, level);
    } else {
      dif_block<false>(p, bits, level);
    }
  });
}

template <class Fr>
void dit(Fr* x, const Plan& plan, const Fr* top, bool inverse) {
  const Fr* level = level_table<Fr>(inverse);
  const unsigned bits = plan.passes[0].bits;
  const bool lanes = ifma_blocks(bits);
  for_each_block(x, plan, [&](size_t, Fr* p) {
    if (lanes) {
      ifma_dit_block(p, bits, inverse);
    } else if (inverse) {
      dit_block<true>(p, bits, level);
    } else {
      dit_block<false>(p, bits, level);
    }
  });
  dit_columns(x, plan, top, inverse);
}

template <class Fr>
void bottom_inverse_scale_forward(Fr* x, const Plan& plan, const Fr& shift, const Fr& inv_n) {
  const unsigned k = plan.log_n, bits = plan.passes[0].bits;
  const size_t len = size_t(1) << bits;
  // Position pos = b*2^bits + t holds coefficient rev_k(pos) = rev_bits(t) << (k-bits) | rev_{k-bits}(b),
  // so its factor splits into a per-block part and a per-offset table.
  std::vector<Fr> col(len);
  {
    const std::vector<Fr> p = powers(shift.pow_u64(uint64_t(1) << (k - bits)), len);
    for (size_t t = 0; t < len; ++t) col[t] = p[reverse_bits(t, bits)];
  }
  const Fr* fwd = level_table<Fr>(false);
  const Fr* inv = level_table<Fr>(true);
  const bool lanes = ifma_blocks(bits);
  const std::vector<LanePack<Fr>> col_lanes = lanes ? ifma_lane_form(col.data(), len) : std::vector<LanePack<Fr>>();
  for_each_block(x, plan, [&](size_t b, Fr* p) {
    const Fr f = inv_n * shift.pow_u64(reverse_bits(b, k - bits));
    if (lanes) {
      ifma_inverse_scale_forward_block(p, bits, f, col_lanes.data());
      return;
    }
    dif_block<true>(p, bits, inv);
    for (size_t t = 0; t < len; ++t) p[t] = p[t] * (f * col[t]);
    dit_block<false>(p, bits, fwd);
  });
}

template <class Fr>
void scale_by_powers(Fr* x, unsigned log_n, const Fr& g, const Fr& scale) {
  const unsigned c = log_n / 2;
  const size_t cols = size_t(1) << c, rows = size_t(1) << (log_n - c);
  const std::vector<Fr> col = powers(g, cols);
  std::vector<Fr> row = powers(g.pow_u64(cols), rows);
  for (Fr& f : row) f = f * scale;
  parallel_for_range(rows, [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) {
      Fr* p = x + r * cols;
      for (size_t t = 0; t < cols; ++t) p[t] = p[t] * (row[r] * col[t]);
    }
  });
}

#define PP_NTT_KERNELS(F)                                                          \
  template std::vector<F> powers(const F&, size_t);                                \
  template const F* level_table(bool);                                             \
  template void dif_columns(F*, const Plan&, const F*, bool);                      \
  template void dit_columns(F*, const Plan&, const F*, bool);                      \
  template void dif(F*, const Plan&, const F*, bool);                              \
  template void dit(F*, const Plan&, const F*, bool);                              \
  template void bottom_inverse_scale_forward(F*, const Plan&, const F&, const F&); \
  template void scale_by_powers(F*, unsigned, const F&, const F&);
PP_NTT_FOR_EACH_FIELD(PP_NTT_KERNELS)

}  // namespace proofpipe::ntt
