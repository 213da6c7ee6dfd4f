// groth16/backend.hpp on the CPU: the compute_h size rule every backend
// shares, and the set-up hook (prepare) followed by a proof from the fixture
// key, compared with an unprepared backend's proof for the same r and s.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/prove_with.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(BackendSizes, PowersOfTwoUpToTheMaxAreAccepted) {
  for (unsigned k : {0u, 1u, 10u, unsigned(ntt::kMaxLogSize)}) {
    const size_t n = size_t(1) << k;
    auto log_n = groth16::h_step_log_size(n, n, n);
    ASSERT_TRUE(log_n) << log_n.status().message();
    EXPECT_EQ(*log_n, k);
  }
}

TEST(BackendSizes, OtherSizesAreInvalidArguments) {
  const size_t too_big = size_t(1) << (ntt::kMaxLogSize + 1);
  const size_t cases[][3] = {{0, 0, 0}, {3, 3, 3}, {8, 8, 4}, {8, 4, 8}, {too_big, too_big, too_big}};
  for (const auto& c : cases) {
    auto log_n = groth16::h_step_log_size(c[0], c[1], c[2]);
    ASSERT_FALSE(log_n) << c[0] << " " << c[1] << " " << c[2];
    EXPECT_EQ(log_n.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(log_n.status().message().find("compute_h: sizes"), std::string::npos) << log_n.status().message();
  }
  auto cpu = groth16::make_cpu_backend();
  std::vector<ff::Fr> a(8), b(8), c(4);
  EXPECT_EQ(cpu->compute_h(a, b, c).code(), ErrorCode::kInvalidArgument);
}

TEST(CpuBackend, PreparedBackendProvesAsUnprepared) {
  PP_SEEDED_RNG(rng);
  const std::filesystem::path dir = std::filesystem::path(PP_TEST_DATA_DIR) / "sparse_dense";
  auto zkey = formats::load_zkey(dir / "circuit.zkey");
  ASSERT_TRUE(zkey) << zkey.status().message();
  auto witness = formats::load_wtns(dir / "w00.wtns");
  ASSERT_TRUE(witness) << witness.status().message();
  const groth16::ProvingKey pk = groth16::proving_key_of(*zkey);
  auto prepared_backend = groth16::make_cpu_backend(), plain_backend = groth16::make_cpu_backend();
  ASSERT_TRUE(prepared_backend->prepare(pk));
  const ff::Fr r = ff::Fr::random(rng), s = ff::Fr::random(rng);
  groth16::Proof proofs[2];
  groth16::ProverBackend* backends[2] = {prepared_backend.get(), plain_backend.get()};
  for (int i = 0; i < 2; ++i) {
    auto proof = prove_with(*backends[i], pk, witness->values, r, s);
    ASSERT_TRUE(proof) << proof.status().message();
    proofs[i] = *proof;
  }
  EXPECT_TRUE(proofs[0] == proofs[1]);

  groth16::ProvingKey bad = pk;
  bad.domain_size = 3;
  EXPECT_EQ(prepared_backend->prepare(bad).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace proofpipe::test
