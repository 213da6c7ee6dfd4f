// The CUDA backend's set-up check (proofpipe/cuda/device_need.hpp): the
// device memory it counts for the bundled keys, part by part, from the
// files' sections (identity points counted here by hand); the MSM scratch's
// figure and its growth with the terms; and the one-line refusal when the
// device is short. What prepare() really holds is checked against it on a
// device (tests/cuda/cuda_backend_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "proofpipe/cuda/device_need.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "support/format_files.hpp"

namespace proofpipe::test {
namespace {

namespace md = cuda::msm_detail;
constexpr size_t kG1 = sizeof(bls12_381::G1Affine), kG2 = sizeof(bls12_381::G2Affine);
constexpr size_t kX1 = sizeof(ec::Xyzz<bls12_381::G1Cfg>), kX2 = sizeof(ec::Xyzz<bls12_381::G2Cfg>);
constexpr double kGiB = double(size_t(1) << 30);

// Points on the device and bytes of one section, by the rule in
// key_compaction.hpp, from a plain count of all-zero points.
template <class Cfg>
std::pair<size_t, size_t> by_hand(std::span<const ec::Affine<Cfg>> s) {
  constexpr size_t p = sizeof(ec::Affine<Cfg>);
  size_t present = 0;
  for (const auto& pt : s) present += (pt.x.is_zero() && pt.y.is_zero()) ? 0 : 1;
  const bool compact = present < s.size() && (s.size() - present) * p >= 8 * present;
  return compact ? std::pair{present, present * (p + 4)} : std::pair{s.size(), s.size() * p};
}

TEST(DeviceNeed, BundledKeysPartByPart) {
  for (const char* name : {"multi_io", "sparse_dense"}) {
    SCOPED_TRACE(name);
    auto zkey = formats::load_zkey<curves::Bls12_381>(fixture(name, "circuit.zkey"));
    ASSERT_TRUE(zkey) << zkey.status().message();
    const groth16::ProvingKeyT<curves::Bls12_381> pk = groth16::proving_key_of(*zkey);
    const cuda::DeviceNeed need = cuda::device_need(pk);

    size_t points = 0, g1_terms = 0;
    for (std::span<const bls12_381::G1Affine> s : {pk.a, pk.b1, pk.c, pk.h}) {
      const auto [count, bytes] = by_hand<bls12_381::G1Cfg>(s);
      points += bytes;
      g1_terms = std::max(g1_terms, count);
    }
    const auto [b2_count, b2_bytes] = by_hand<bls12_381::G2Cfg>(pk.b2);
    EXPECT_EQ(need.points, points + b2_bytes);
    EXPECT_LT(need.points, (pk.a.size() + pk.b1.size() + pk.c.size() + pk.h.size()) * kG1 + pk.b2.size() * kG2)
        << "the bundled keys' B sections are 45 % identity: stored without them";
    const size_t n = pk.domain_size;
    EXPECT_EQ(need.buffers, (3 * n + std::max<size_t>(n, pk.n_vars)) * sizeof(bls12_381::Fr));
    // Up to 2^10 (multi_io, 2^9) one tile does every level: no twiddles;
    // above (sparse_dense, 2^12) w^j for j <= n/2. And the coset scale
    // tables: one entry per 2^10-tile and one per position in a tile.
    const size_t tile = std::min<size_t>(n, 1024);
    const size_t twiddles = n > 1024 ? n / 2 + 1 : 0;
    EXPECT_EQ(need.ntt, (twiddles + n / tile + tile) * sizeof(bls12_381::Fr));
    EXPECT_EQ(need.scratch, md::reserve_bytes(g1_terms, kX1, b2_count, kX2));
    EXPECT_EQ(need.total(), need.points + need.buffers + need.ntt + need.scratch);
  }
}

TEST(DeviceNeed, ScratchFigureAndGrowth) {
  // docs/gpu.md: 2^24 terms in both groups take 5.42 GiB without CUB's temp.
  const double both = double(md::reserve_bytes(size_t(1) << 24, kX1, size_t(1) << 24, kX2)) / kGiB;
  EXPECT_NEAR(both, 5.42, 0.01);
  EXPECT_EQ(md::reserve_bytes(0, kX1, 0, kX2), 0u);
  // The larger group decides each buffer: never less than either alone,
  // never more than both added; and more terms never need less.
  size_t last = 0;
  for (size_t n = 1; n <= (size_t(1) << 22); n = n * 5 / 4 + 1) {
    const size_t g1 = md::reserve_bytes(n, kX1, 0, kX2), g2 = md::reserve_bytes(0, kX1, n, kX2);
    const size_t two = md::reserve_bytes(n, kX1, n, kX2);
    EXPECT_GE(two, std::max(g1, g2)) << n;
    EXPECT_LE(two, g1 + g2) << n;
    EXPECT_GE(g1, last) << n;
    last = g1;
  }
}

TEST(DeviceNeed, RefusesInOneLineWithTheParts) {
  const size_t gib = size_t(1) << 30;
  const cuda::DeviceNeed need{44 * gib, 16 * gib, 2 * gib, 6 * gib};  // a PoRep partition, rounded
  EXPECT_TRUE(cuda::check_device_room(need, 68 * gib, 0));
  EXPECT_TRUE(cuda::check_device_room(need, 60 * gib, 8 * gib)) << "what the backend holds is reused";
  const Status st = cuda::check_device_room(need, 39 * gib, 0);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), ErrorCode::kResourceExhausted);
  const std::string m = st.message();
  EXPECT_EQ(m.find('\n'), std::string::npos);
  for (const char* part : {"at least 68.00 GiB", "points 44.00", "per-proof buffers 16.00", "NTT tables 2.00",
                           "MSM scratch 6.00", "39.00 GiB free"})
    EXPECT_NE(m.find(part), std::string::npos) << part << " in: " << m;
  EXPECT_NE(cuda::check_device_room(need, 39 * gib, gib).message().find("holds 1.00"), std::string::npos);
}

}  // namespace
}  // namespace proofpipe::test
