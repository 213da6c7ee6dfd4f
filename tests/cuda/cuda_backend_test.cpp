// The CUDA backend end to end (skips without a device): proofs of the
// committed fixtures equal the CPU backend's for the same r and s and pass our
// verifier, on the copy path and the GPU worker's taken-inputs path; the
// key-point cache notices a buffer reused for other points; sections with
// identity points are stored without them and sum the same; and a whole
// `proofpipe run --backend cuda` gives proofs that verify (snarkjs too where
// node is installed), with either intake. Proofs after prepare() allocate no
// device memory (device_bytes() unchanged).
// The backend factory's fallback is checked only without a device.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

#include "proofpipe/backends/factory.hpp"
#include "proofpipe/cuda/backend.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/cuda/device_need.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/verifier.hpp"
#include "proofpipe/msm/msm.hpp"
#include "support/cli.hpp"
#include "support/gpu.hpp"
#include "support/json_file.hpp"
#include "support/msm_inputs.hpp"
#include "support/prove_with.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

TEST(CudaBackendFactory, AutoFallsBackToCpuWithoutDevice) {
  if (cuda::device_count() != 0) GTEST_SKIP() << "a device is present: fallback not reachable";
  std::string notice;
  auto b = backends::make_bls12_381_backend(groth16::BackendKind::kAuto, &notice);
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ((*b)->name(), "cpu");
  EXPECT_NE(notice.find("proving on the CPU"), std::string::npos) << notice;
  auto c = backends::make_bls12_381_backend(groth16::BackendKind::kCuda, &notice);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.status().code(), ErrorCode::kUnavailable);
}

TEST(CudaBackend, ProofsEqualCpuBackendForSameRandomness) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  auto cuda_backend = backends::make_bls12_381_backend(groth16::BackendKind::kCuda, nullptr);
  ASSERT_TRUE(cuda_backend) << cuda_backend.status().message();
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  for (const char* fixture : {"multi_io", "sparse_dense"}) {
    SCOPED_TRACE(fixture);
    const fs::path dir = data_dir() / fixture;
    auto zkey = formats::load_zkey<curves::Bls12_381>(dir / "circuit.zkey");
    ASSERT_TRUE(zkey) << zkey.status().message();
    const groth16::ProvingKeyT<curves::Bls12_381> pk = groth16::proving_key_of(*zkey);
    const auto vk = formats::verification_key_from_zkey(*zkey);
    // As the GPU worker does at set-up: tables built, points resident.
    for (groth16::ProverBackendT<curves::Bls12_381>* be : {cpu.get(), cuda_backend->get()}) {
      const Status st = be->prepare(pk);
      ASSERT_TRUE(st) << be->name() << ": " << st.message();
    }
    // prepare() sized every device buffer (the MSM scratch for any mix of
    // scalars): the proofs below must allocate nothing more.
    const size_t held = (*cuda_backend)->device_bytes();
    EXPECT_GT(held, pk.a.size() * sizeof(bls12_381::G1Affine));
    for (const char* w : {"w00.wtns", "w01.wtns"}) {
      auto witness = formats::load_wtns<curves::Bls12_381>(dir / w);
      ASSERT_TRUE(witness) << witness.status().message();
      const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
      groth16::ProofT<curves::Bls12_381> proofs[2];
      groth16::ProverBackendT<curves::Bls12_381>* backends[2] = {cpu.get(), cuda_backend->get()};
      for (int i = 0; i < 2; ++i) {
        auto proof = prove_with(*backends[i], pk, witness->values, r, s);
        ASSERT_TRUE(proof) << backends[i]->name() << ": " << proof.status().message();
        proofs[i] = *proof;
      }
      EXPECT_TRUE(proofs[0] == proofs[1]) << w;
      // The GPU worker's path: the inputs taken from a record (here
      // pageable memory), h left on the device; the record is not written.
      std::vector<bls12_381::Fr> a(pk.domain_size), b(pk.domain_size), c(pk.domain_size);
      ASSERT_TRUE(groth16::synthesize(pk, witness->values, a, b, c));
      const std::vector<bls12_381::Fr> a0 = a;
      groth16::ProverBackendT<curves::Bls12_381>& dev = **cuda_backend;
      ASSERT_TRUE(dev.prefers_taking_inputs());
      ASSERT_TRUE(dev.take_inputs({a, b, c, witness->values}));
      ASSERT_TRUE(dev.inputs_taken());
      ASSERT_TRUE(dev.compute_h_taken());
      auto taken = groth16::prove_taken_finish_with(dev, pk, r, s);
      ASSERT_TRUE(taken) << taken.status().message();
      EXPECT_TRUE(*taken == proofs[0]) << w << " (taken inputs)";
      EXPECT_TRUE(a == a0);
      const size_t n_pub = vk.n_public;
      auto verdict = groth16::verify(vk, std::span(witness->values).subspan(1, n_pub), proofs[1]);
      ASSERT_TRUE(verdict) << verdict.status().message();
      EXPECT_TRUE(verdict->valid) << verdict->reason;
    }
    EXPECT_EQ((*cuda_backend)->device_bytes(), held) << "a proof grew the device buffers after prepare()";
  }
}

// The set-up's room check counts what prepare() then holds: at least that,
// and no more than CUB's temp storage and the known-answer test's cut key
// (a few MiB) beyond it.
TEST(CudaBackend, PrepareHoldsWhatTheRoomCheckCounts) {
  PP_REQUIRE_DEVICE();
  for (const char* fixture : {"multi_io", "sparse_dense"}) {
    SCOPED_TRACE(fixture);
    auto zkey = formats::load_zkey<curves::Bls12_381>(data_dir() / fixture / "circuit.zkey");
    ASSERT_TRUE(zkey) << zkey.status().message();
    const groth16::ProvingKeyT<curves::Bls12_381> pk = groth16::proving_key_of(*zkey);
    auto backend = cuda::make_cuda_backend();
    ASSERT_TRUE(backend) << backend.status().message();
    const Status st = (*backend)->prepare(pk);
    ASSERT_TRUE(st) << st.message();
    const size_t held = (*backend)->device_bytes(), need = cuda::device_need(pk).total();
    EXPECT_GE(held, need);
    EXPECT_LT(held - need, size_t(16) << 20) << "held " << held << ", counted " << need;
  }
}

TEST(CudaBackend, PointCacheNoticesReusedBuffer) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  auto backend = cuda::make_cuda_backend();
  ASSERT_TRUE(backend) << backend.status().message();
  const size_t n = 1000;
  std::vector<bls12_381::G1Affine> points(n);
  std::vector<bls12_381::Fr> scalars(n);
  const bls12_381::G1 g = bls12_381::G1::from_affine(bls12_381::g1_generator());
  for (int round = 0; round < 2; ++round) {
    // Round 1 rewrites the same buffer with other points: the backend must
    // upload them again, not reuse round 0's device copy.
    bls12_381::G1 p = bls12_381::scalar_mul(g, bls12_381::Fr::random(rng));
    for (size_t i = 0; i < n; ++i, p = p + p.dbl()) points[i] = p.to_affine();
    for (auto& k : scalars) k = bls12_381::Fr::random(rng);
    auto got = (*backend)->msm_g1(points, scalars);
    ASSERT_TRUE(got) << got.status().message();
    EXPECT_TRUE(*got == msm::msm_g1(points, scalars)) << "round " << round;
  }
}

// Sections with many identity points (a snarkjs B1/B2) go to the device
// without them, and the MSM reads each scalar through the kept positions
// (key_compaction.hpp): the sums are the CPU's for G1 and G2, random and
// skewed scalars, identity points at both ends; a section of nothing but
// the identity holds nothing. A whole section of the same size is summed
// first, so the scratch is already large enough and the compacted G1
// section adds exactly its present points and their 4-byte positions.
TEST(CudaBackend, SectionsWithoutIdentityPointsGiveTheCpuSums) {
  PP_REQUIRE_DEVICE();
  PP_SEEDED_RNG(rng);
  auto backend = cuda::make_cuda_backend();
  ASSERT_TRUE(backend) << backend.status().message();
  const size_t n = 4097;
  const auto whole = msm_test_points<bls12_381::G1Cfg>(n, rng);
  auto g1 = msm_test_points<bls12_381::G1Cfg>(n, rng);
  auto g2 = msm_test_points<bls12_381::G2Cfg>(n, rng);
  size_t present = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || i == n - 1 || rng() % 100 < 62) {
      g1[i] = bls12_381::G1Affine::identity();
      g2[i] = bls12_381::G2Affine::identity();
    } else {
      ++present;
    }
  }
  const auto s = random_scalars(n, rng);
  auto got = (*backend)->msm_g1(whole, s);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(*got == msm::msm_g1(whole, s));
  const size_t before = (*backend)->device_bytes();
  got = (*backend)->msm_g1(g1, s);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(*got == msm::msm_g1(g1, s));
  EXPECT_EQ((*backend)->device_bytes() - before, present * (sizeof(bls12_381::G1Affine) + sizeof(uint32_t)))
      << present << " of " << n << " points present";

  const auto skewed = skewed_scalars(n, rng);
  got = (*backend)->msm_g1(g1, skewed);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(*got == msm::msm_g1(g1, skewed));
  for (const auto* k : {&s, &skewed}) {
    auto got2 = (*backend)->msm_g2(g2, *k);
    ASSERT_TRUE(got2) << got2.status().message();
    EXPECT_TRUE(*got2 == msm::msm_g2(g2, *k)) << (k == &s ? "random" : "skewed");
  }

  const size_t held = (*backend)->device_bytes();
  const std::vector<bls12_381::G1Affine> none(n, bls12_381::G1Affine::identity());
  got = (*backend)->msm_g1(none, s);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(got->is_identity());
  EXPECT_EQ((*backend)->device_bytes(), held);
}

// snarkjs needs node and the npm install; the lent device machine has
// neither (scripts/device_check.sh brings the proofs back to check them).
bool snarkjs_available() {
  return fs::exists(fs::path(PP_SOURCE_DIR) / "node_modules/snarkjs/build/cli.cjs") &&
         run_command("node --version").exit_code == 0;
}

TEST(CudaBackend, PipelineRunWithCudaBackendProofsVerify) {
  PP_REQUIRE_DEVICE();
  TempDir tmp;
  const fs::path dir = data_dir() / "multi_io";
  std::string witnesses;
  for (int i = 0; i < 4; ++i) witnesses += " --witness " + quote(dir / ("w0" + std::to_string(i) + ".wtns"));
  const bool snarkjs = snarkjs_available();
  if (!snarkjs) std::printf("[ note     ] no node/snarkjs here: proofs checked by proofpipe verify only\n");
  // auto and --gpus must pick the device too: the proving worker's HELLO
  // names the backend it got (and the device --gpus gave it), and the
  // summary records them.
  // The worker takes each record into the device from the page-locked
  // ring; PP_GPU_INTAKE=copy is the copy intake through its own buffers.
  int run = 0;
  const std::pair<const char*, const char*> runs[] = {
      {"--backend cuda", ""}, {"--backend auto", ""}, {"--gpus 0", ""}, {"--backend cuda", "PP_GPU_INTAKE=copy"}};
  for (const auto& [flags, env] : runs) {
    SCOPED_TRACE(std::string(flags) + " " + env);
    const fs::path out = tmp / ("out" + std::to_string(run++));
    auto r = pp_run("--zkey " + quote(dir / "circuit.zkey") + witnesses + " --out " + quote(out) +
                        " --synth-workers 2 --slots 2 " + flags + " --run-dir " + quote(tmp / "run"),
                    env);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4/4 partitions proved"), std::string::npos) << r.output;
    const bool copy = *env != '\0';
    EXPECT_NE(r.output.find(copy ? "copy intake" : "take intake"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("transfers stay pageable"), std::string::npos) << "page-locking failed:\n" << r.output;
    const auto summary = read_json(out / "summary.json");
    EXPECT_EQ(summary["seats"].back()["backend"], "cuda") << summary["seats"].dump();
    EXPECT_EQ(summary["seats"].back()["intake"], copy ? "copy" : "take") << summary["seats"].dump();
    if (std::string_view(flags) == "--gpus 0") {
      EXPECT_EQ(summary["seats"].back()["devices"], "0");
    }
    const fs::path vk = dir / "verification_key.json";
    for (int i = 0; i < 4; ++i) {
      const std::string stem = "w0" + std::to_string(i);
      const fs::path pub = out / (stem + ".public.json"), proof = out / (stem + ".proof.json");
      auto ours = pp_verify(vk, pub, proof);
      EXPECT_EQ(ours.exit_code, 0) << stem << ": " << ours.output;
      if (snarkjs) {
        auto theirs = snarkjs_verify(vk, pub, proof);
        EXPECT_EQ(theirs.exit_code, 0) << stem << ": " << theirs.output;
      }
    }
  }
}

}  // namespace
}  // namespace proofpipe::test
