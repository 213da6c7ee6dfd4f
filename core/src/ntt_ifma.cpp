// The NTT's passes on eight AVX-512 IFMA lanes: the bottom pass (the levels
// inside one contiguous block of 2^4..2^12 elements: dif/dit blocks and the
// inverse DIF + scaling + forward DIT block of evals_to_odd_coset), the
// butterflies of the column passes' tiles, and the H step's final
// a * b - c. ntt_kernels.cpp calls these when
// ifma_lanes() says so and keeps the twiddle lookup, the plan and the
// threading; its scalar passes stay the fallback and the reference (results
// are bit-identical, tests/core/ntt_ifma_test.cpp).
//
// Montgomery factors (the bookkeeping of ff/ifma/batch_affine.hpp): an Fr
// element x is the integer x*2^I, I = 64N = 256, and is repacked raw into
// radix 2^52 without a conversion product. Twiddles and scaling factors are
// held in the radix-2^52 Montgomery form, factor R = 52L = 260, so every
// product w*b carries I + R - R = I again, and the block is repacked raw back
// to 64-bit limbs, fully reduced: the same integers the scalar path writes.
// Values stay in [0, 2p) through DIF levels (Field8's invariant: + takes
// [0, 2p) to [0, 2p), and so does the product since 4p < 2^260) and in
// [0, 4p) through DIT levels (see butterfly()); leaving the lanes reduces
// to [0, p).
//
// Column tiles: rows x cw columns, Pack q of a row holding columns 8q..8q+7,
// so every column level is vertical; the twiddles arrive per row in
// ff::Field form (top[] entries strided through the domain's table) and
// are lifted to factor R by four modular doublings (see lifted()).
//
// Layout of a block: it is copied into a thread-local array of Packs, element
// 8g + e in lane e of Pack g (40 bytes per element for L = 5, 160 KiB at
// 2^12). Levels with half size m >= 8 pair Pack g with Pack g + m/8: plain
// vertical butterflies, twiddle Pack j/8 of the level. The three levels
// m = 4, 2, 1 pair lanes of the same Pack; they run on two Packs (16
// elements) at a time, permuted with vpermt2q into a layout where each
// level's partners sit in the same lane of the two registers. Going from
// one level's layout straight to the next costs two permutes per limb, so
// the three levels cost 4 x 2 x L = 40 permutes per 16 elements next to
// their 3 eight-lane products (315 IFMAs) and 6 adds/subs; an 8x8
// transpose of each limb would cost about as many shuffles (24 per limb
// per 64 elements, both ways) and need a second layout for the whole block.
#include <array>
#include <cstdint>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/ff/ifma/dispatch.hpp"
#include "proofpipe/ntt/instances.hpp"
#include "proofpipe/ntt/kernels.hpp"
#if defined(PP_IFMA_COMPILED)
#include "proofpipe/ff/ifma/field8.hpp"
#endif

namespace proofpipe::ntt {

bool ifma_lanes() { return ff::ifma::kIfmaCompiled && ff::ifma::simd_path() == ff::ifma::SimdPath::kIfma; }

// Blocks of fewer than 16 elements (n <= 8) have no Pack pair to run the
// lane levels on; they stay scalar.
bool ifma_blocks(unsigned bits) { return bits >= 4 && ifma_lanes(); }

#if defined(PP_IFMA_COMPILED)
namespace {

namespace ifma = ff::ifma;

// Lane layouts of two registers holding 16 consecutive elements: entry
// t < 8 is the element in lane t of the first register, t >= 8 lane t - 8
// of the second. Layout 0 is the natural order; layout d (4, 2, 1) puts the
// elements with bit d clear, ascending, in the first register and each one's
// partner (+d) in the same lane of the second.
using Layout = std::array<uint64_t, 16>;
constexpr Layout layout(unsigned d) {
  Layout r{};
  if (d == 0) {
    for (uint64_t e = 0; e < 16; ++e) r[e] = e;
    return r;
  }
  size_t t = 0;
  for (uint64_t e = 0; e < 16; ++e)
    if ((e & d) == 0) {
      r[t] = e;
      r[t + 8] = e + d;
      ++t;
    }
  return r;
}

// vpermt2q indices taking layout `from` to layout `to`: index t of the
// first register's vector names the position of to[t] in `from` (bit 3
// selects the second source register).
struct alignas(64) Permute {
  uint64_t lo[8], hi[8];
};
constexpr Permute permute(unsigned from, unsigned to) {
  const Layout f = layout(from), g = layout(to);
  Permute p{};
  for (size_t t = 0; t < 16; ++t)
    for (uint64_t s = 0; s < 16; ++s)
      if (f[s] == g[t]) (t < 8 ? p.lo[t] : p.hi[t - 8]) = s;
  return p;
}
// DIF runs the lane levels as m = 4, 2, 1; DIT as 1, 2, 4.
constexpr Permute kDifSteps[4] = {permute(0, 4), permute(4, 2), permute(2, 1), permute(1, 0)};
constexpr Permute kDitSteps[4] = {permute(0, 1), permute(1, 2), permute(2, 4), permute(4, 0)};

template <class P>
PP_IFMA_INLINE void apply(ifma::Field8<P>& x, ifma::Field8<P>& y, const Permute& p) {
  const __m512i lo = _mm512_load_si512(p.lo), hi = _mm512_load_si512(p.hi);
  for (size_t k = 0; k < ifma::Field8<P>::L; ++k) {
    const __m512i a = _mm512_permutex2var_epi64(x.v[k], lo, y.v[k]);
    y.v[k] = _mm512_permutex2var_epi64(x.v[k], hi, y.v[k]);
    x.v[k] = a;
  }
}

// a + b and a - b + 2p for a, b in [0, 2p): in [0, 4p), limbs normalised,
// without Field8's final conditional subtraction of 2p (26 of a
// butterfly's ~220 instructions each). Dropping the DIF one made ntt 2^16
// (DIF only) 11 % faster on one thread (iterations per second, three runs
// against two); the DIT one's gain on the H step stayed within the shared
// machine's noise (about 4 %). A product by a twiddle (< 2p) takes such an
// operand and still returns [0, 2p): (4p * 2p) / 2^260 + p < 2p since
// 8p < 2^260.
template <bool Add, class P>
PP_IFMA_INLINE ifma::Field8<P> unreduced(const ifma::Field8<P>& a, const ifma::Field8<P>& b) {
  using V = ifma::Field8<P>;
  V s;
  for (size_t k = 0; k < V::L; ++k)
    s.v[k] = Add ? _mm512_add_epi64(a.v[k], b.v[k])
                 : _mm512_sub_epi64(_mm512_add_epi64(a.v[k], V::bc(V::K::k2P[k])), b.v[k]);
  V::carry_signed(s);
  return s;
}

// The scalar butterflies of ntt_kernels.cpp, lane-wise; Inv takes negated
// twiddles. Twiddle 1 (j = 0) is not special-cased: the product by 1's
// radix-2^52 form is exact and keeps the factor.
// DIF data stays in [0, 2p): a' = a + b reduced, b' = (a - b) * w from the
// unreduced difference. DIT data lies in [0, 4p) between levels (Harvey's
// butterfly): a is brought below 2p, t = b * w < 2p, and a + t, a - t are
// left unreduced; tile_store reduces before leaving the lanes.
template <bool Dif, bool Inv, class P>
PP_IFMA_INLINE void butterfly(ifma::Field8<P>& a, ifma::Field8<P>& b, const ifma::Field8<P>& w) {
  using V = ifma::Field8<P>;
  if constexpr (Dif) {
    const V d = Inv ? unreduced<false>(b, a) : unreduced<false>(a, b);
    a = a + b;
    b = d * w;
  } else {
    const V ar = V::sub_if_geq(a, V::K::k2P);
    const V t = b * w;
    const V s = unreduced<true>(ar, t), d = unreduced<false>(ar, t);
    a = Inv ? d : s;
    b = Inv ? s : d;
  }
}

// The twiddles of one direction in the radix-2^52 form: for every level
// m >= 8 its m/8 Packs (level m starts at Pack m/8 - 1, 511 Packs = 160 KiB
// for 2^12), and for m = 4, 2, 1 one Pack in that level's lane layout. Built
// once per field from the scalar level table.
template <class Fr>
struct LaneTwiddles {
  using P = typename Fr::Params;
  std::vector<ifma::Pack<P>> wide;
  ifma::Pack<P> lane[3];  // m = 1, 2, 4

  explicit LaneTwiddles(const Fr* level) : wide((size_t(1) << kMaxPassBits) / 8 - 1) {
    for (size_t m = 8; m < (size_t(1) << kMaxPassBits); m *= 2)
      for (size_t j = 0; j < m; j += 8) ifma::pack_from_fields(wide[m / 8 - 1 + j / 8], level + m + j);
    for (unsigned l = 0; l < 3; ++l) {
      const unsigned d = 1u << l;
      const Layout lay = layout(d);
      Fr w[8];
      for (size_t t = 0; t < 8; ++t) w[t] = level[d + (lay[t] & (d - 1))];
      ifma::pack_from_fields(lane[l], w);
    }
  }
};

template <class Fr>
const LaneTwiddles<Fr>& lane_twiddles(bool inverse) {
  static const LaneTwiddles<Fr> fwd(level_table<Fr>(false)), inv(level_table<Fr>(true));
  return inverse ? inv : fwd;
}

// Levels [lo, hi) (m = 2^l >= 8) of `packs` Packs, DIF descending, DIT ascending.
template <bool Dif, bool Inv, class P>
PP_IFMA_TARGET void wide_levels(ifma::Pack<P>* x, size_t packs, unsigned lo, unsigned hi, const ifma::Pack<P>* tw) {
  using V = ifma::Field8<P>;
  for (unsigned s = lo; s < hi; ++s) {
    const unsigned l = Dif ? hi - 1 - (s - lo) : s;
    const size_t h = size_t(1) << (l - 3);
    const ifma::Pack<P>* w = tw + h - 1;
    for (size_t b = 0; b < packs; b += 2 * h)
      for (size_t j = 0; j < h; ++j) {
        V a = V::load(x[b + j]), c = V::load(x[b + j + h]);
        butterfly<Dif, Inv>(a, c, V::load(w[j]));
        a.store(x[b + j]);
        c.store(x[b + j + h]);
      }
  }
}

// The levels m = 4, 2, 1 (DIF) or 1, 2, 4 (DIT), two Packs at a time.
template <bool Dif, bool Inv, class P>
PP_IFMA_TARGET void lane_levels(ifma::Pack<P>* x, size_t packs, const ifma::Pack<P>* lane) {
  using V = ifma::Field8<P>;
  const Permute* steps = Dif ? kDifSteps : kDitSteps;
  for (size_t g = 0; g < packs; g += 2) {
    V a = V::load(x[g]), b = V::load(x[g + 1]);
    for (unsigned s = 0; s < 3; ++s) {
      apply(a, b, steps[s]);
      butterfly<Dif, Inv>(a, b, V::load(lane[Dif ? 2 - s : s]));
    }
    apply(a, b, steps[3]);
    a.store(x[g]);
    b.store(x[g + 1]);
  }
}

// As dif_block/dit_block in ntt_kernels.cpp: the levels below kLaneL1Bits run
// per 2^9-element sub-block (64 Packs = 20 KiB, the Pack form being 25 %
// larger than Fr's), so they stay in the 48 KiB L1 with their twiddles.
constexpr unsigned kLaneL1Bits = 9;
constexpr size_t kMaxColumnPacks = kMaxTileCols / 8;

template <bool Inv, class P>
PP_IFMA_TARGET void dif_levels(ifma::Pack<P>* x, unsigned bits, const ifma::Pack<P>* wide, const ifma::Pack<P>* lane) {
  const unsigned split = bits < kLaneL1Bits ? bits : kLaneL1Bits;
  const size_t sub = size_t(1) << (split - 3);
  wide_levels<true, Inv>(x, size_t(1) << (bits - 3), split, bits, wide);
  for (size_t s = 0; s < (size_t(1) << (bits - 3)); s += sub) {
    wide_levels<true, Inv>(x + s, sub, 3, split, wide);
    lane_levels<true, Inv>(x + s, sub, lane);
  }
}

template <bool Inv, class P>
PP_IFMA_TARGET void dit_levels(ifma::Pack<P>* x, unsigned bits, const ifma::Pack<P>* wide, const ifma::Pack<P>* lane) {
  const unsigned split = bits < kLaneL1Bits ? bits : kLaneL1Bits;
  const size_t sub = size_t(1) << (split - 3);
  for (size_t s = 0; s < (size_t(1) << (bits - 3)); s += sub) {
    lane_levels<false, Inv>(x + s, sub, lane);
    wide_levels<false, Inv>(x + s, sub, 3, split, wide);
  }
  wide_levels<false, Inv>(x, size_t(1) << (bits - 3), split, bits, wide);
}

// Raw ff::Field limbs (factor I) to the radix-2^52 Montgomery form
// (factor R): R - I = 4 for both Fr fields, four modular doublings, far
// cheaper than the product by 2^(2R - I) that from_fields spends.
template <class P>
PP_IFMA_INLINE ifma::Field8<P> lifted(ifma::Field8<P> x) {
  using V = ifma::Field8<P>;
  constexpr size_t kD = 52 * V::L - 64 * V::N;
  if constexpr (kD <= 4) {
    for (size_t i = 0; i < kD; ++i) x = x + x;
    return x;
  } else {
    return x * V::constant(V::K::kIn);
  }
}

// Rows of one column tile: the butterflies between rows ub + r and ub + r + h,
// lane e of Pack q being column 8q + e.
template <bool Dif, bool Inv, class P>
PP_IFMA_TARGET void tile_rows(ifma::Pack<P>* t, size_t rows, size_t cw, size_t r, size_t h, const ff::Field<P>* tw) {
  using V = ifma::Field8<P>;
  const size_t cq = cw / 8;
  ifma::Pack<P> w[kMaxColumnPacks];
  for (size_t q = 0; q < cq; ++q) lifted(ifma::Field8<P>::load_raw(tw + 8 * q, 1)).store(w[q]);
  for (size_t ub = 0; ub < rows; ub += 2 * h) {
    ifma::Pack<P>* p1 = t + (ub + r) * cq;
    ifma::Pack<P>* p2 = p1 + h * cq;
    for (size_t q = 0; q < cq; ++q) {
      V a = V::load(p1[q]), b = V::load(p2[q]);
      butterfly<Dif, Inv>(a, b, V::load(w[q]));
      a.store(p1[q]);
      b.store(p2[q]);
    }
  }
}

// A tile of rows x cw elements (row u at base + u*2^lo) in Pack form, in a
// per-thread buffer, and back; raw repacking both ways, stored fully reduced.
// A bottom block is the tile of one row.
template <class P>
PP_IFMA_TARGET ifma::Pack<P>* tile_load(const ff::Field<P>* base, unsigned lo, size_t rows, size_t cw) {
  thread_local std::vector<ifma::Pack<P>> buf;
  const size_t cq = cw / 8;
  if (buf.size() < rows * cq) buf.resize(rows * cq);
  for (size_t u = 0; u < rows; ++u)
    for (size_t q = 0; q < cq; ++q) ifma::Field8<P>::load_raw(base + (u << lo) + 8 * q, 1).store(buf[u * cq + q]);
  return buf.data();
}
template <class P>
PP_IFMA_TARGET void tile_store(const ifma::Pack<P>* t, ff::Field<P>* base, unsigned lo, size_t rows, size_t cw) {
  const size_t cq = cw / 8;
  for (size_t u = 0; u < rows; ++u)
    for (size_t q = 0; q < cq; ++q) {
      using V = ifma::Field8<P>;
      V::sub_if_geq(V::load(t[u * cq + q]), V::K::k2P).store_raw(base + (u << lo) + 8 * q, 1);  // [0, 4p) -> [0, p)
    }
}
// a[i] = a[i] * b[i] - c[i], fully reduced: b lifted to factor R keeps the
// product's factor I, so no conversion product. Any count (a partial last
// group loads and stores only its live lanes).
template <class P>
PP_IFMA_TARGET void mul_sub(ff::Field<P>* a, const ff::Field<P>* b, const ff::Field<P>* c, size_t count) {
  using V = ifma::Field8<P>;
  for (size_t i = 0; i < count; i += 8) {
    const size_t live = count - i < 8 ? count - i : 8;
    const V ab = V::load_raw(a + i, 1, live) * lifted(V::load_raw(b + i, 1, live));
    (ab - V::load_raw(c + i, 1, live)).store_raw(a + i, 1, live);
  }
}

template <class Fr>
ifma::Pack<typename Fr::Params>* load_block(const Fr* p, unsigned bits) {
  return tile_load(p, 0, 1, size_t(1) << bits);
}
template <class Fr>
void store_block(const ifma::Pack<typename Fr::Params>* x, Fr* p, unsigned bits) {
  tile_store(x, p, 0, 1, size_t(1) << bits);
}

}  // namespace

namespace {
template <bool Dif, class Fr>
void lane_block(Fr* p, unsigned bits, bool inverse) {
  const LaneTwiddles<Fr>& t = lane_twiddles<Fr>(inverse);
  auto* x = load_block(p, bits);
  auto* levels = Dif ? (inverse ? &dif_levels<true, typename Fr::Params> : &dif_levels<false, typename Fr::Params>)
                     : (inverse ? &dit_levels<true, typename Fr::Params> : &dit_levels<false, typename Fr::Params>);
  levels(x, bits, t.wide.data(), t.lane);
  store_block(x, p, bits);
}
}  // namespace

template <class Fr>
void ifma_dif_block(Fr* p, unsigned bits, bool inverse) {
  lane_block<true>(p, bits, inverse);
}
template <class Fr>
void ifma_dit_block(Fr* p, unsigned bits, bool inverse) {
  lane_block<false>(p, bits, inverse);
}

template <class Fr>
std::vector<LanePack<Fr>> ifma_lane_form(const Fr* v, size_t count) {
  std::vector<LanePack<Fr>> r(count / 8);
  for (size_t g = 0; g < r.size(); ++g) ff::ifma::pack_from_fields(r[g], v + 8 * g);
  return r;
}

namespace {
template <class P>
PP_IFMA_TARGET void scale(ifma::Pack<P>* x, size_t packs, const ifma::Pack<P>& f, const ifma::Pack<P>* col) {
  using V = ifma::Field8<P>;
  const V fv = V::load(f);
  for (size_t g = 0; g < packs; ++g) (V::load(x[g]) * (fv * V::load(col[g]))).store(x[g]);
}
}  // namespace

template <class Fr>
void ifma_inverse_scale_forward_block(Fr* p, unsigned bits, const Fr& f, const LanePack<Fr>* col) {
  const LaneTwiddles<Fr>& fwd = lane_twiddles<Fr>(false);
  const LaneTwiddles<Fr>& inv = lane_twiddles<Fr>(true);
  Fr f8[8];
  for (Fr& v : f8) v = f;
  LanePack<Fr> fp;
  ff::ifma::pack_from_fields(fp, f8);  // factor R, as the twiddles
  auto* x = load_block(p, bits);
  dif_levels<true>(x, bits, inv.wide.data(), inv.lane);
  scale(x, size_t(1) << (bits - 3), fp, col);
  dit_levels<false>(x, bits, fwd.wide.data(), fwd.lane);
  store_block(x, p, bits);
}

template <class Fr>
LanePack<Fr>* ifma_tile_load(const Fr* base, unsigned lo, size_t rows, size_t cw) {
  return tile_load(base, lo, rows, cw);
}
template <class Fr>
void ifma_tile_rows(LanePack<Fr>* t, size_t rows, size_t cw, size_t r, size_t h, const Fr* tw, bool dif, bool inverse) {
  using P = typename Fr::Params;
  auto* fn = dif ? (inverse ? &tile_rows<true, true, P> : &tile_rows<true, false, P>)
                 : (inverse ? &tile_rows<false, true, P> : &tile_rows<false, false, P>);
  fn(t, rows, cw, r, h, tw);
}
template <class Fr>
void ifma_tile_store(const LanePack<Fr>* t, Fr* base, unsigned lo, size_t rows, size_t cw) {
  tile_store(t, base, lo, rows, cw);
}

template <class Fr>
void ifma_mul_sub(Fr* a, const Fr* b, const Fr* c, size_t count) {
  mul_sub(a, b, c, count);
}

#else  // no IFMA kernels in this build: ifma_blocks() is false, nothing calls these

template <class Fr>
void ifma_dif_block(Fr*, unsigned, bool) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}
template <class Fr>
void ifma_dit_block(Fr*, unsigned, bool) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}
template <class Fr>
std::vector<LanePack<Fr>> ifma_lane_form(const Fr*, size_t) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
  return {};
}
template <class Fr>
void ifma_inverse_scale_forward_block(Fr*, unsigned, const Fr&, const LanePack<Fr>*) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}
template <class Fr>
void ifma_mul_sub(Fr*, const Fr*, const Fr*, size_t) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}
template <class Fr>
LanePack<Fr>* ifma_tile_load(const Fr*, unsigned, size_t, size_t) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
  return nullptr;
}
template <class Fr>
void ifma_tile_rows(LanePack<Fr>*, size_t, size_t, size_t, size_t, const Fr*, bool, bool) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}
template <class Fr>
void ifma_tile_store(const LanePack<Fr>*, Fr*, unsigned, size_t, size_t) {
  PP_ASSERT(false, "ntt: IFMA block kernels are not compiled in");
}

#endif  // PP_IFMA_COMPILED

#define PP_NTT_IFMA(F)                                                                              \
  template void ifma_dif_block(F*, unsigned, bool);                                                 \
  template void ifma_dit_block(F*, unsigned, bool);                                                 \
  template std::vector<LanePack<F>> ifma_lane_form(const F*, size_t);                               \
  template void ifma_inverse_scale_forward_block(F*, unsigned, const F&, const LanePack<F>*);       \
  template LanePack<F>* ifma_tile_load(const F*, unsigned, size_t, size_t);                         \
  template void ifma_tile_rows(LanePack<F>*, size_t, size_t, size_t, size_t, const F*, bool, bool); \
  template void ifma_tile_store(const LanePack<F>*, F*, unsigned, size_t, size_t);                  \
  template void ifma_mul_sub(F*, const F*, const F*, size_t);
PP_NTT_FOR_EACH_FIELD(PP_NTT_IFMA)

}  // namespace proofpipe::ntt
