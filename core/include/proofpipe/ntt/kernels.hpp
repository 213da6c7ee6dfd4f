// Internal to pp_core: the radix-2 passes, bit reversal and scaling behind
// ntt::DomainT (ntt.hpp). Not a public API; only core/src/ntt*.cpp include it.
//
// A transform of size 2^k is split into passes: a "bottom" pass of up to 12
// levels over contiguous blocks of 2^bottom_bits elements (128 KiB at 12
// bits, L2-resident), and "column" passes of up to 10 levels that gather
// 2^bits rows x cw columns (<= 2^13 elements = 256 KiB) into a thread-local
// buffer, run their levels there and scatter back. So a 2^20 transform reads
// and writes memory twice instead of 20 times, and the power-of-two strides
// never reach the cache sets (a 2^8-row column strided by 128 KiB would map to
// one L1 set).
//
// Both kinds of pass run on eight AVX-512 IFMA lanes (ntt_ifma.cpp) where
// ff::ifma::simd_path() allows, bit-identical with the scalar code here.
//
// Inverse transforms use "negated" twiddles w' = -w^-1 = w^(m-j) at level half
// size m, which are entries of the same forward table: no second table, and
// the sign is absorbed into the butterfly (b - a instead of a - b).
#pragma once

#include <cstddef>
#include <vector>

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/ifma/radix52.hpp"

namespace proofpipe::ntt {

inline constexpr unsigned kMaxPassBits = 12;    // bottom pass: 2^12 x 32 B = 128 KiB blocks
inline constexpr unsigned kMaxColumnBits = 10;  // column passes: <= 2^10 rows per tile
inline constexpr size_t kMaxTileCols = 256;     // ... and <= 256 columns

// Levels of one pass: the levels with global half size m = 2^l, l in [lo, lo + bits).
struct PassSpec {
  unsigned lo;
  unsigned bits;
};

// How a 2^log_n transform is cut into passes. passes[0] is the bottom pass
// (lo = 0); the rest are column passes in ascending lo.
struct Plan {
  unsigned log_n = 0;
  std::vector<PassSpec> passes;
};
Plan make_plan(unsigned log_n);

// Decimation in frequency, natural order in, bit-reversed order out.
// inverse: uses w^-1 (no 1/n). top: w_n^j for j in [0, n/2], needed only
// when the plan has column passes.
template <class Fr>
void dif(Fr* x, const Plan& plan, const Fr* top, bool inverse);
// Decimation in time, bit-reversed order in, natural order out.
template <class Fr>
void dit(Fr* x, const Plan& plan, const Fr* top, bool inverse);

// The middle of evals_to_odd_coset on the bottom blocks: inverse DIF levels,
// x[pos] *= inv_n * shift^rev(pos) (rev over log_n bits), forward DIT levels,
// one block at a time while it is in L2.
template <class Fr>
void bottom_inverse_scale_forward(Fr* x, const Plan& plan, const Fr& shift, const Fr& inv_n);
// The column passes only (everything but passes[0]), for the same pipeline.
template <class Fr>
void dif_columns(Fr* x, const Plan& plan, const Fr* top, bool inverse);
template <class Fr>
void dit_columns(Fr* x, const Plan& plan, const Fr* top, bool inverse);

// The in-block twiddles shared by every domain: level[m + j] = w_{2m}^j
// (forward) or w_{2m}^(m-j) = -w_{2m}^-j (inverse, negated), for
// m = 2^l < 2^kMaxPassBits, j < m.
template <class Fr>
const Fr* level_table(bool inverse);

// The passes on eight AVX-512 IFMA lanes (core/src/ntt_ifma.cpp), with
// results bit-identical to the scalar ones. ifma_lanes() says whether they
// may run now (ff::ifma::simd_path() is kIfma); the rest may only be called
// when it said so. ifma_blocks(bits): the bottom pass takes its blocks of
// 2^bits there (ifma_lanes() and bits >= 4).
bool ifma_lanes();
bool ifma_blocks(unsigned bits);
template <class Fr>
using LanePack = ff::ifma::Pack<typename Fr::Params>;
template <class Fr>
void ifma_dif_block(Fr* p, unsigned bits, bool inverse);
template <class Fr>
void ifma_dit_block(Fr* p, unsigned bits, bool inverse);
// v[0..count) (count a multiple of 8) in the lanes' radix-2^52 Montgomery form.
template <class Fr>
std::vector<LanePack<Fr>> ifma_lane_form(const Fr* v, size_t count);
// Inverse DIF levels, x[t] *= f * col[t], forward DIT levels on one block;
// col is ifma_lane_form of the scalar per-offset factors.
template <class Fr>
void ifma_inverse_scale_forward_block(Fr* p, unsigned bits, const Fr& f, const LanePack<Fr>* col);
// A column pass's tile of `rows` rows (2^lo apart from base) by cw columns
// (a multiple of 8) in lane form, a per-thread buffer until the next call;
// ifma_tile_rows runs the butterflies between rows ub + r and ub + r + h for
// every ub, tw[cc] being column cc's twiddle (ff::Field form); store writes
// the tile back fully reduced.
template <class Fr>
LanePack<Fr>* ifma_tile_load(const Fr* base, unsigned lo, size_t rows, size_t cw);
template <class Fr>
void ifma_tile_rows(LanePack<Fr>* t, size_t rows, size_t cw, size_t r, size_t h, const Fr* tw, bool dif, bool inverse);
template <class Fr>
void ifma_tile_store(const LanePack<Fr>* t, Fr* base, unsigned lo, size_t rows, size_t cw);
// a[i] = a[i] * b[i] - c[i] for i < count (the H step's pointwise product).
template <class Fr>
void ifma_mul_sub(Fr* a, const Fr* b, const Fr* c, size_t count);

// In-place bit-reversal permutation of 2^log_n elements, each multiplied by
// `scale` on the way (pass Fr::one() for none). Cache-blocked: 16 x 16 tiles.
template <class Fr>
void bit_reverse(Fr* x, unsigned log_n, const Fr& scale);

// x[j] *= scale * g^j for j < 2^log_n (natural order), 2 multiplications per
// element from two sqrt(n)-sized power tables.
template <class Fr>
void scale_by_powers(Fr* x, unsigned log_n, const Fr& g, const Fr& scale);

// v^0, v^1, ..., v^(count-1).
template <class Fr>
std::vector<Fr> powers(const Fr& v, size_t count);

// Reverses the low `bits` bits of v.
inline size_t reverse_bits(size_t v, unsigned bits) {
  size_t r = 0;
  for (unsigned i = 0; i < bits; ++i, v >>= 1) r = (r << 1) | (v & 1);
  return r;
}

}  // namespace proofpipe::ntt
