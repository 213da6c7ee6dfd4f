// The CUDA NTT's per-thread bodies (proofpipe/cuda/ntt_kernels.hpp) run on the
// host: every kernel of cuda/src/ntt.cu is emulated as a loop over its thread
// ids (tile kernels stage-outer, thread-inner, on a tile array standing in for
// shared memory), in the same launch order, with tables from the same table
// functions. Results must equal ntt::DomainT and ntt::compute_h_odd_coset bit
// for bit at every size 2^0..2^14 (tile-only sizes, one global radix-2 pass,
// radix-4 pairs, both), and compute_h at 2^15 and 2^16. Thread order inside a
// step is shuffled, so a body that depended on it (two threads on one
// element: a race on the device) would fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "proofpipe/cuda/ntt_kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using bls12_381::Fr;
namespace nttk = cuda::nttk;

constexpr unsigned kMaxEmuLog = 14;

std::vector<Fr> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

// The device's tables, built by the functions ntt_tables.cpp uses.
struct EmuTables {
  std::vector<Fr> tw, blk, off, lvl_fwd, lvl_inv;
  Fr inv_n;
};

EmuTables make_tables(unsigned k) {
  EmuTables t;
  if (k > nttk::kTileBits) {
    const uint64_t count = (uint64_t(1) << (k - 1)) + 1;
    t.tw.resize(count);
    // In pieces of 100 like the device build's chunks (there 4096): each piece
    // starts from its own pow, so piece boundaries are exercised.
    const Fr omega = ntt::root_of_unity<Fr>(k);
    for (uint64_t b = 0; b < count; b += 100) nttk::twiddle_range(t.tw.data() + b, omega, b, std::min(count, b + 100));
  }
  nttk::scale_tables(k, t.blk, t.off);
  t.lvl_fwd = nttk::level_table(false);
  t.lvl_inv = nttk::level_table(true);
  t.inv_n = Fr::from_u64(uint64_t(1) << k).inverse();
  return t;
}

// A "launch": body(t) for every thread id t < threads, in a shuffled order.
template <class Body>
void launch(uint64_t threads, std::mt19937_64& rng, Body&& body) {
  std::vector<uint64_t> order(threads);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (uint64_t t : order) body(t);
}

void emu_tile(const nttk::TileArgs& a, unsigned k, std::mt19937_64& rng) {
  std::vector<Fr> tile(size_t(1) << a.tile_bits);
  const uint64_t blocks = uint64_t(1) << (k - a.tile_bits);
  for (uint64_t blk = 0; blk < blocks; ++blk) {
    for (unsigned s = 0; s < nttk::tile_steps(a); ++s) {
      launch(a.threads, rng, [&](uint64_t tid) { nttk::tile_step(a, tile.data(), blk, s, unsigned(tid)); });
    }
  }
}

nttk::TileArgs tile_args(Fr* x, unsigned k, const EmuTables& t) {
  nttk::TileArgs a{};
  a.x = x;
  a.tile_bits = nttk::tile_bits_for(k);
  a.threads = nttk::tile_threads_for(a.tile_bits);
  a.lvl_fwd = t.lvl_fwd.data();
  a.blk_scale = t.blk.data();
  a.off_scale = t.off.data();
  return a;
}

void emu_dif_global(Fr* x, unsigned k, bool inv, const EmuTables& t, std::mt19937_64& rng) {
  const nttk::GlobalPlan p = nttk::dif_plan(k);
  for (unsigned i = 0; i < p.count; ++i) {
    const unsigned l = p.pass[i].l;
    if (p.pass[i].radix == 4) {
      launch(uint64_t(1) << (k - 2), rng, [&](uint64_t th) {
        if (inv) {
          nttk::dif_r4_body<true>(x, t.tw.data(), k, l, th);
        } else {
          nttk::dif_r4_body<false>(x, t.tw.data(), k, l, th);
        }
      });
    } else {
      launch(uint64_t(1) << (k - 1), rng, [&](uint64_t th) {
        if (inv) {
          nttk::dif_r2_body<true>(x, t.tw.data(), k, l, th);
        } else {
          nttk::dif_r2_body<false>(x, t.tw.data(), k, l, th);
        }
      });
    }
  }
}

// ntt.cu's plain_transform.
void emu_plain(std::vector<Fr>& x, unsigned k, bool inv, const EmuTables& t, std::mt19937_64& rng) {
  emu_dif_global(x.data(), k, inv, t, rng);
  nttk::TileArgs a = tile_args(x.data(), k, t);
  a.mode = nttk::TileMode::kDif;
  a.inverse = inv;
  a.lvl_dif = inv ? t.lvl_inv.data() : t.lvl_fwd.data();
  emu_tile(a, k, rng);
  launch(uint64_t(1) << k, rng, [&](uint64_t i) { nttk::bitrev_body(x.data(), k, t.inv_n, inv, i); });
}

// ntt.cu's odd_coset_chain.
void emu_odd_coset(Fr* x, const Fr* b, const Fr* c, unsigned k, const EmuTables& t, std::mt19937_64& rng) {
  emu_dif_global(x, k, true, t, rng);
  const nttk::GlobalPlan p = nttk::dit_plan(k);
  nttk::TileArgs a = tile_args(x, k, t);
  a.mode = nttk::TileMode::kOddCoset;
  a.inverse = true;
  a.lvl_dif = t.lvl_inv.data();
  if (p.count == 0) {
    a.b = b;
    a.c = c;
  }
  emu_tile(a, k, rng);
  for (unsigned i = 0; i < p.count; ++i) {
    const bool last = i + 1 == p.count;
    const Fr* pb = last ? b : nullptr;
    const Fr* pc = last ? c : nullptr;
    const unsigned l = p.pass[i].l;
    if (p.pass[i].radix == 4) {
      launch(uint64_t(1) << (k - 2), rng, [&](uint64_t th) { nttk::dit_r4_body(x, pb, pc, t.tw.data(), k, l, th); });
    } else {
      launch(uint64_t(1) << (k - 1), rng, [&](uint64_t th) { nttk::dit_r2_body(x, pb, pc, t.tw.data(), k, l, th); });
    }
  }
}

// ntt.cu's compute_h_device.
void emu_compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c, unsigned k, const EmuTables& t,
                   std::mt19937_64& rng) {
  emu_odd_coset(b.data(), nullptr, nullptr, k, t, rng);
  emu_odd_coset(c.data(), nullptr, nullptr, k, t, rng);
  emu_odd_coset(a.data(), b.data(), c.data(), k, t, rng);
}

// ----- index maths -----

TEST(CudaNttKernels, ReverseBitsMatchesNaive) {
  PP_SEEDED_RNG(rng);
  for (unsigned bits = 0; bits <= 64; ++bits) {
    for (int r = 0; r < 200; ++r) {
      uint64_t v = rng();
      if (bits < 64) v &= (uint64_t(1) << bits) - 1;
      uint64_t want = 0;
      for (unsigned i = 0; i < bits; ++i) want |= ((v >> i) & 1) << (bits - 1 - i);
      ASSERT_EQ(nttk::reverse_bits(v, bits), want) << "bits=" << bits << " v=" << v;
    }
  }
}

// Every level in [tile_bits, k) exactly once, DIF descending and DIT
// ascending, and the DIT's last pass radix 4 whenever two levels remain.
TEST(CudaNttKernels, GlobalPlansCoverEveryLevelOnce) {
  for (unsigned k = 0; k <= ntt::kMaxLogSize; ++k) {
    const unsigned tb = nttk::tile_bits_for(k);
    for (bool dif : {true, false}) {
      const nttk::GlobalPlan p = dif ? nttk::dif_plan(k) : nttk::dit_plan(k);
      std::vector<unsigned> levels;
      for (unsigned i = 0; i < p.count; ++i) {
        const unsigned l = p.pass[i].l;
        ASSERT_TRUE(p.pass[i].radix == 2 || p.pass[i].radix == 4);
        if (p.pass[i].radix == 2) {
          levels.push_back(l);
        } else if (dif) {
          levels.push_back(l);
          levels.push_back(l - 1);
        } else {
          levels.push_back(l - 1);
          levels.push_back(l);
        }
      }
      std::vector<unsigned> want;
      for (unsigned l = tb; l < k; ++l) want.push_back(l);
      if (dif) std::reverse(want.begin(), want.end());
      EXPECT_EQ(levels, want) << "k=" << k << (dif ? " dif" : " dit");
      if (!dif && k - tb >= 2) {
        EXPECT_EQ(p.pass[p.count - 1].radix, 4) << "k=" << k;
      }
      EXPECT_LE(p.count, 16u);
    }
  }
}

// Position p after the inverse DIF holds coefficient rev_k(p); the two scale
// tables must give it inv_n * w_2n^rev_k(p). All p up to 2^14, samples at
// 2^20 and 2^28 (where the block table has 2^10 and 2^18 entries).
TEST(CudaNttKernels, OddCosetScaleIsInvNTimesShiftToRevP) {
  PP_SEEDED_RNG(rng);
  for (unsigned k : {0u, 1u, 2u, 5u, 9u, 10u, 11u, 12u, 13u, 14u, 20u, 28u}) {
    std::vector<Fr> blk, off;
    nttk::scale_tables(k, blk, off);
    const unsigned tb = nttk::tile_bits_for(k);
    ASSERT_EQ(off.size(), size_t(1) << tb);
    ASSERT_EQ(blk.size(), size_t(1) << (k - tb));
    const Fr shift = ntt::root_of_unity<Fr>(k + 1);
    const Fr inv_n = Fr::from_u64(uint64_t(1) << k).inverse();
    const uint64_t n = uint64_t(1) << k;
    auto check = [&](uint64_t p) {
      const Fr want = inv_n * shift.pow_u64(nttk::reverse_bits(p, k));
      ASSERT_EQ(blk[p >> tb] * off[p & ((uint64_t(1) << tb) - 1)], want) << "k=" << k << " p=" << p;
    };
    if (k <= kMaxEmuLog) {
      for (uint64_t p = 0; p < n; ++p) check(p);
    } else {
      for (int r = 0; r < 300; ++r) check(rng() & (n - 1));
      check(0);
      check(n - 1);
    }
  }
  EXPECT_EQ(ntt::root_of_unity<Fr>(11), ntt::DomainT<bls12_381::Fr>::get(10).odd_coset_shift());
}

TEST(CudaNttKernels, TablesMatchDomainRoots) {
  const std::vector<Fr> f = nttk::level_table(false), i = nttk::level_table(true);
  for (unsigned l = 0; l < nttk::kTileBits; ++l) {
    const size_t m = size_t(1) << l;
    const Fr w = ntt::root_of_unity<Fr>(l + 1);
    for (size_t j = 0; j < m; ++j) {
      ASSERT_EQ(f[m + j], w.pow_u64(j)) << "l=" << l << " j=" << j;
      ASSERT_EQ(i[m + j], -(w.inverse().pow_u64(j))) << "l=" << l << " j=" << j;  // negated inverse
    }
  }
  const EmuTables t = make_tables(13);
  const Fr w = ntt::DomainT<bls12_381::Fr>::get(13).omega();
  ASSERT_EQ(t.tw.size(), (size_t(1) << 12) + 1);
  for (size_t j = 0; j < t.tw.size(); j += 37) EXPECT_EQ(t.tw[j], w.pow_u64(j)) << j;
  EXPECT_EQ(t.tw.back(), -Fr::one());
}

// ----- whole transforms against ntt::DomainT -----

TEST(CudaNttKernels, ForwardAndInverseMatchDomain) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= kMaxEmuLog; ++k) {
    const EmuTables t = make_tables(k);
    const ntt::DomainT<bls12_381::Fr>& d = ntt::DomainT<bls12_381::Fr>::get(k);
    const std::vector<Fr> in = random_vec(size_t(1) << k, rng);
    std::vector<Fr> want = in, got = in;
    d.ntt(want);
    emu_plain(got, k, /*inv=*/false, t, rng);
    ASSERT_EQ(got, want) << "ntt k=" << k;
    want = in;
    got = in;
    d.intt(want);
    emu_plain(got, k, /*inv=*/true, t, rng);
    ASSERT_EQ(got, want) << "intt k=" << k;
  }
}

TEST(CudaNttKernels, EvalsToOddCosetMatchesDomain) {
  PP_SEEDED_RNG(rng);
  for (unsigned k = 0; k <= kMaxEmuLog; ++k) {
    const EmuTables t = make_tables(k);
    const std::vector<Fr> in = random_vec(size_t(1) << k, rng);
    std::vector<Fr> want = in, got = in;
    ntt::DomainT<bls12_381::Fr>::get(k).evals_to_odd_coset(want);
    emu_odd_coset(got.data(), nullptr, nullptr, k, t, rng);
    ASSERT_EQ(got, want) << "k=" << k;
  }
}

// Every k up to kMaxEmuLog, then 2^15 (radix 4, 4, 2 on each side) and 2^16
// (4, 4, 4): the pass mixes of the large sizes.
TEST(CudaNttKernels, ComputeHMatchesCpu) {
  PP_SEEDED_RNG(rng);
  std::vector<unsigned> sizes;
  for (unsigned k = 0; k <= kMaxEmuLog; ++k) sizes.push_back(k);
  for (unsigned k : {15u, 16u})
    if (k > kMaxEmuLog) sizes.push_back(k);
  for (unsigned k : sizes) {
    const EmuTables t = make_tables(k);
    const size_t n = size_t(1) << k;
    std::vector<Fr> a = random_vec(n, rng), b = random_vec(n, rng), c = random_vec(n, rng);
    std::vector<Fr> wa = a, wb = b, wc = c;
    ntt::compute_h_odd_coset<Fr>(wa, wb, wc);
    emu_compute_h(a, b, c, k, t, rng);
    ASSERT_EQ(a, wa) << "k=" << k;
    // Not part of the contract (clobbered), but the chain leaves them on the coset too.
    ASSERT_EQ(b, wb) << "k=" << k;
    ASSERT_EQ(c, wc) << "k=" << k;
  }
}

// Edge inputs: zeros, ones, all r - 1, a delta; and a satisfied system
// (c = a*b on the domain: q vanishes there, not on the odd coset).
TEST(CudaNttKernels, EdgeInputsMatchCpu) {
  PP_SEEDED_RNG(rng);
  const Fr minus_one = -Fr::one();
  for (unsigned k : {1u, 4u, 10u, 11u, 12u, 13u}) {
    const EmuTables t = make_tables(k);
    const size_t n = size_t(1) << k;
    std::vector<std::vector<Fr>> inputs = {std::vector<Fr>(n, Fr::zero()), std::vector<Fr>(n, Fr::one()),
                                           std::vector<Fr>(n, minus_one), std::vector<Fr>(n, Fr::zero())};
    inputs[3][n / 2] = Fr::one();
    for (const auto& in : inputs) {
      std::vector<Fr> want = in, got = in;
      ntt::DomainT<bls12_381::Fr>::get(k).evals_to_odd_coset(want);
      emu_odd_coset(got.data(), nullptr, nullptr, k, t, rng);
      ASSERT_EQ(got, want) << "k=" << k;
      want = in;
      got = in;
      ntt::DomainT<bls12_381::Fr>::get(k).ntt(want);
      emu_plain(got, k, false, t, rng);
      ASSERT_EQ(got, want) << "k=" << k;
    }
    // A satisfied system: c = a * b pointwise on the domain.
    std::vector<Fr> a = random_vec(n, rng), b = random_vec(n, rng), c(n);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    std::vector<Fr> wa = a, wb = b, wc = c;
    ntt::compute_h_odd_coset<Fr>(wa, wb, wc);
    emu_compute_h(a, b, c, k, t, rng);
    ASSERT_EQ(a, wa) << "k=" << k;
  }
}

}  // namespace
}  // namespace proofpipe::test
