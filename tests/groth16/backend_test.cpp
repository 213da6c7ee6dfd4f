// groth16/backend.hpp on the CPU: the compute_h size rule every backend
// shares; the set-up hook (prepare) followed by a proof from the fixture key,
// compared with an unprepared backend's proof for the same r and s; and the
// known-answer test that gates a device backend, against a backend spoiled
// one operation at a time; how the prover uses a backend (views of its
// caller's buffers, one proof_msms call) and the default proof_msms; the
// taken-inputs path (its proofs, order rule and sizes).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "support/prove_with.hpp"
#include "support/require_ifma.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

// A fixture's key (views into its mapped zkey) and its first witness.
struct FixtureKey {
  formats::ZkeyT<curves::Bls12_381> zkey;
  groth16::ProvingKeyT<curves::Bls12_381> pk;
  std::vector<bls12_381::Fr> witness;
};
void load_fixture(const char* name, std::optional<FixtureKey>* out) {
  const std::filesystem::path dir = std::filesystem::path(PP_TEST_DATA_DIR) / name;
  auto zkey = formats::load_zkey<curves::Bls12_381>(dir / "circuit.zkey");
  ASSERT_TRUE(zkey) << zkey.status().message();
  auto witness = formats::load_wtns<curves::Bls12_381>(dir / "w00.wtns");
  ASSERT_TRUE(witness) << witness.status().message();
  out->emplace(FixtureKey{std::move(*zkey), {}, std::move(witness->values)});
  (*out)->pk = groth16::proving_key_of((*out)->zkey);
}

// A fixture's key and its first witness's record: a, b, c synthesized.
struct Record {
  std::vector<bls12_381::Fr> a, b, c;
};
void load_record(const char* name, std::optional<FixtureKey>* f, Record* r) {
  ASSERT_NO_FATAL_FAILURE(load_fixture(name, f));
  const size_t n = (*f)->pk.domain_size;
  r->a.resize(n), r->b.resize(n), r->c.resize(n);
  ASSERT_TRUE(groth16::synthesize((*f)->pk, (*f)->witness, r->a, r->b, r->c));
}

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
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  std::vector<bls12_381::Fr> a(8), b(8), c(4);
  EXPECT_EQ(cpu->compute_h(a, b, c).code(), ErrorCode::kInvalidArgument);
}

TEST(CpuBackend, PreparedBackendProvesAsUnprepared) {
  PP_SEEDED_RNG(rng);
  std::optional<FixtureKey> f;
  ASSERT_NO_FATAL_FAILURE(load_fixture("sparse_dense", &f));
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  auto prepared_backend = groth16::make_cpu_backend<curves::Bls12_381>(),
       plain_backend = groth16::make_cpu_backend<curves::Bls12_381>();
  ASSERT_TRUE(prepared_backend->prepare(pk));
  const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
  groth16::ProofT<curves::Bls12_381> proofs[2];
  groth16::ProverBackendT<curves::Bls12_381>* backends[2] = {prepared_backend.get(), plain_backend.get()};
  for (int i = 0; i < 2; ++i) {
    auto proof = prove_with(*backends[i], pk, f->witness, r, s);
    ASSERT_TRUE(proof) << proof.status().message();
    proofs[i] = *proof;
  }
  EXPECT_TRUE(proofs[0] == proofs[1]);

  groth16::ProvingKeyT<curves::Bls12_381> bad = pk;
  bad.domain_size = 3;
  EXPECT_EQ(prepared_backend->prepare(bad).code(), ErrorCode::kInvalidArgument);
}

// A backend that gives one wrong answer (or one error), for the gate.
// With `take` it prefers the taken-inputs path (as the CUDA backend does),
// which it runs on the CPU backend's; kTakenA corrupts one taken a value
// (an upload gone wrong).
enum class Spoil { kNone, kH, kG1, kG2, kG1Error, kProofC, kTakenA };
class SpoiledBackend final : public groth16::ProverBackendT<curves::Bls12_381> {
 public:
  explicit SpoiledBackend(Spoil s, bool take = false)
      : spoil_(s), take_(take), cpu_(groth16::make_cpu_backend<curves::Bls12_381>()) {}
  std::string_view name() const override { return "spoiled"; }
  bool prefers_taking_inputs() const override { return take_; }
  Status take_inputs(const groth16::ProofInputsT<curves::Bls12_381>& in) override {
    a_.assign(in.a.begin(), in.a.end());
    if (spoil_ == Spoil::kTakenA) a_[a_.size() / 2] += bls12_381::Fr::one();
    return cpu_->take_inputs({a_, in.b, in.c, in.w});
  }
  Status inputs_taken() override { return cpu_->inputs_taken(); }
  Status compute_h_taken() override { return cpu_->compute_h_taken(); }
  Result<groth16::ProofMsmsT<curves::Bls12_381>> proof_msms_taken(const groth16::ProvingKeyT<curves::Bls12_381>& pk,
                                                                  const bls12_381::Fr& r) override {
    return cpu_->proof_msms_taken(pk, r);
  }
  Status compute_h(std::span<bls12_381::Fr> a, std::span<bls12_381::Fr> b, std::span<bls12_381::Fr> c) override {
    PP_RETURN_IF_ERROR(cpu_->compute_h(a, b, c));
    if (spoil_ == Spoil::kH) a[a.size() / 2] += bls12_381::Fr::one();
    return Status::ok();
  }
  Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> p, std::span<const bls12_381::Fr> k) override {
    if (spoil_ == Spoil::kG1Error) return Status(ErrorCode::kResourceExhausted, "out of device memory");
    PP_ASSIGN_OR_RETURN(bls12_381::G1 r, cpu_->msm_g1(p, k));
    return spoil_ == Spoil::kG1 ? r.add_affine(bls12_381::g1_generator()) : r;
  }
  Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> p, std::span<const bls12_381::Fr> k) override {
    PP_ASSIGN_OR_RETURN(bls12_381::G2 r, cpu_->msm_g2(p, k));
    return spoil_ == Spoil::kG2 ? r.dbl() : r;
  }
  // A device override that offsets C's scalars wrongly (one wire late).
  Result<groth16::ProofMsmsT<curves::Bls12_381>> proof_msms(const groth16::ProvingKeyT<curves::Bls12_381>& pk,
                                                            std::span<const bls12_381::Fr> w,
                                                            std::span<const bls12_381::Fr> h,
                                                            const bls12_381::Fr& r) override {
    PP_ASSIGN_OR_RETURN(groth16::ProofMsmsT<curves::Bls12_381> m,
                        groth16::ProverBackendT<curves::Bls12_381>::proof_msms(pk, w, h, r));
    if (spoil_ == Spoil::kProofC && pk.c.size() > 1) {
      PP_ASSIGN_OR_RETURN(m.c, cpu_->msm_g1(pk.c.first(pk.c.size() - 1), w.subspan(pk.n_public + 2)));
    }
    return m;
  }

 private:
  Spoil spoil_;
  bool take_;
  std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>> cpu_;
  std::vector<bls12_381::Fr> a_;
};

TEST(KnownAnswerTest, PassesTheCpuAndCatchesEachWrongOperation) {
  std::optional<FixtureKey> f;
  ASSERT_NO_FATAL_FAILURE(load_fixture("multi_io", &f));
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  ASSERT_FALSE(pk.a.empty());
  ASSERT_FALSE(pk.b2.empty());
  EXPECT_TRUE(groth16::known_answer_test(*groth16::make_cpu_backend<curves::Bls12_381>(), pk));
  SpoiledBackend honest(Spoil::kNone), honest_taker(Spoil::kNone, true);
  EXPECT_TRUE(groth16::known_answer_test(honest, pk));
  EXPECT_TRUE(groth16::known_answer_test(honest_taker, pk));
  const std::pair<Spoil, const char*> cases[] = {{Spoil::kH, "the H step"},
                                                 {Spoil::kG1, "G1 MSM"},
                                                 {Spoil::kG2, "G2 MSM"},
                                                 {Spoil::kProofC, "the proof's C + H + r B1 MSMs (proof_msms)"},
                                                 {Spoil::kTakenA, "the proof's C + H + r B1 MSMs (taken inputs)"}};
  for (const auto& [spoil, needle] : cases) {
    SpoiledBackend bad(spoil, true);
    const Status st = groth16::known_answer_test(bad, pk);
    EXPECT_EQ(st.code(), ErrorCode::kInternal) << needle;
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("spoiled backend"), std::string::npos) << st.message();
  }
  SpoiledBackend failing(Spoil::kG1Error);
  EXPECT_EQ(groth16::known_answer_test(failing, pk).code(), ErrorCode::kResourceExhausted);
}

// A backend that records what the prover hands it, over the CPU backend.
class RecordingBackend final : public groth16::ProverBackendT<curves::Bls12_381> {
 public:
  std::string_view name() const override { return "recording"; }
  Status compute_h(std::span<bls12_381::Fr> a, std::span<bls12_381::Fr> b, std::span<bls12_381::Fr> c) override {
    h_out = a.data();
    return cpu_->compute_h(a, b, c);
  }
  Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> p, std::span<const bls12_381::Fr> k) override {
    ++single_msms;
    return cpu_->msm_g1(p, k);
  }
  Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> p, std::span<const bls12_381::Fr> k) override {
    ++single_msms;
    return cpu_->msm_g2(p, k);
  }
  Result<groth16::ProofMsmsT<curves::Bls12_381>> proof_msms(const groth16::ProvingKeyT<curves::Bls12_381>& pk,
                                                            std::span<const bls12_381::Fr> w,
                                                            std::span<const bls12_381::Fr> h,
                                                            const bls12_381::Fr& r) override {
    ++proof_msm_calls;
    w_in = w.data();
    h_in = h.data();
    return cpu_->proof_msms(pk, w, h, r);
  }
  const bls12_381::Fr* h_out = nullptr;
  const bls12_381::Fr* w_in = nullptr;
  const bls12_381::Fr* h_in = nullptr;
  int proof_msm_calls = 0, single_msms = 0;

 private:
  std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>> cpu_ = groth16::make_cpu_backend<curves::Bls12_381>();
};

// The prover hands the backend its caller's memory, not copies (a copy of
// h and w is 1 GiB per 2^24 proof), and asks for the five MSMs in one call,
// which a device backend uses to upload the witness once.
TEST(ProverBackendUse, FinishViewsTheCallersBuffersAndAsksForTheMsmsOnce) {
  PP_SEEDED_RNG(rng);
  std::optional<FixtureKey> f;
  Record record;
  ASSERT_NO_FATAL_FAILURE(load_record("sparse_dense", &f, &record));
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  std::vector<bls12_381::Fr>&a = record.a, &b = record.b, &c = record.c;
  RecordingBackend rec;
  auto started = groth16::prove_start(rec, pk, f->witness, a, b, c);
  ASSERT_TRUE(started) << started.status().message();
  EXPECT_EQ(started->h.data(), a.data());
  EXPECT_EQ(rec.h_out, a.data());
  EXPECT_EQ(started->witness.data(), f->witness.data());
  const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
  auto proof = groth16::prove_finish_with(rec, pk, *started, r, s);
  ASSERT_TRUE(proof) << proof.status().message();
  EXPECT_EQ(rec.proof_msm_calls, 1);
  EXPECT_EQ(rec.w_in, f->witness.data());
  EXPECT_EQ(rec.h_in, a.data());
  EXPECT_EQ(rec.single_msms, 0);
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  auto want = prove_with(*cpu, pk, f->witness, r, s);
  ASSERT_TRUE(want) << want.status().message();
  EXPECT_TRUE(*proof == *want);
}

// The CPU backend's proof_msms against the five MSMs computed directly (C,
// H and B1 as c + h + r b1: it returns that sum in c, which backend.hpp
// allows), and its size rule.
TEST(ProverBackendUse, CpuProofMsmsAreTheFiveMsmsAndCheckSizes) {
  PP_SEEDED_RNG(rng);
  std::optional<FixtureKey> f;
  ASSERT_NO_FATAL_FAILURE(load_fixture("multi_io", &f));
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  ASSERT_GT(pk.n_vars, pk.n_public + 1);
  std::vector<bls12_381::Fr> w(pk.n_vars), h(pk.h.size());
  for (auto* v : {&w, &h})
    for (bls12_381::Fr& x : *v) x = bls12_381::Fr::random(rng);
  const bls12_381::Fr r = bls12_381::Fr::random(rng);
  const auto rk = r.to_canonical();
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  auto got = cpu->proof_msms(pk, w, h, r);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(got->a == msm::msm_g1(pk.a, w));
  EXPECT_TRUE(got->b2 == msm::msm_g2(pk.b2, w));
  EXPECT_TRUE(got->c + got->h + got->b1.mul(rk) ==
              msm::msm_g1(pk.c, std::span<const bls12_381::Fr>(w).subspan(pk.n_public + 1)) + msm::msm_g1(pk.h, h) +
                  msm::msm_g1(pk.b1, w).mul(rk));
  EXPECT_TRUE(got->h.is_identity() && got->b1.is_identity());

  const std::span<const bls12_381::Fr> ws(w), hs(h);
  EXPECT_EQ(cpu->proof_msms(pk, ws.first(w.size() - 1), hs, r).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(cpu->proof_msms(pk, ws, hs.first(h.size() - 1), r).status().code(), ErrorCode::kInvalidArgument);
  groth16::ProvingKeyT<curves::Bls12_381> short_c = pk;
  short_c.c = pk.c.first(pk.c.size() - 1);
  const Status st = cpu->proof_msms(short_c, ws, hs, r).status();
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.message().find("A/B1/B2/C"), std::string::npos) << st.message();
}

// A one-shot key (`proofpipe prove`'s) hears of each section once the
// prover is done with it: the coefficients chunk by chunk (the ranges tile
// the section) and then whole, then A and B2 whole, each once; the zkey gives them back
// and the proof is the one the same r and s give without the hook. The
// known-answer subset of such a key must not carry the hook.
TEST(ProverBackendUse, AOneShotKeyGivesEachSectionBackOnceUsedAndProvesTheSame) {
  PP_SEEDED_RNG(rng);
  std::optional<FixtureKey> f;
  ASSERT_NO_FATAL_FAILURE(load_fixture("sparse_dense", &f));
  using formats::KeyPart;
  struct Heard {
    formats::ZkeyT<curves::Bls12_381>* zkey;
    std::mutex mu;  // synthesis calls from the pool's threads
    std::vector<std::tuple<KeyPart, size_t, size_t>> calls;
  } heard{&f->zkey, {}, {}};
  groth16::ProvingKeyT<curves::Bls12_381> pk = f->pk;
  pk.done_context = &heard;
  pk.done_with = [](void* context, KeyPart part, size_t first, size_t count) {
    auto* h = static_cast<Heard*>(context);
    const std::lock_guard<std::mutex> lock(h->mu);
    h->calls.emplace_back(part, first, count);
    if (first == 0 && count == SIZE_MAX) {
      h->zkey->drop(part);
    } else {
      h->zkey->release_range(part, first, count);
    }
  };
  const size_t n_coef = pk.coefficients.size();
  const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  auto want = prove_with(*cpu, f->pk, f->witness, r, s);  // before anything is dropped
  ASSERT_TRUE(want) << want.status().message();
  auto got = prove_with(*cpu, pk, f->witness, r, s);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_TRUE(*got == *want);

  std::vector<std::pair<size_t, size_t>> coef_ranges;
  std::vector<KeyPart> whole;
  for (const auto& [part, first, count] : heard.calls) {
    if (part == KeyPart::kCoefficients && count != SIZE_MAX) {
      coef_ranges.emplace_back(first, count);
    } else {
      EXPECT_EQ(first, 0u);
      EXPECT_EQ(count, SIZE_MAX);
      whole.push_back(part);
    }
  }
  std::sort(coef_ranges.begin(), coef_ranges.end());
  size_t covered = 0;
  for (const auto& [first, count] : coef_ranges) {
    EXPECT_EQ(first, covered);
    covered += count;
  }
  EXPECT_EQ(covered, n_coef);
  EXPECT_EQ(whole, (std::vector<KeyPart>{KeyPart::kCoefficients, KeyPart::kA, KeyPart::kB2}));
  EXPECT_TRUE(f->zkey.coefs().empty() && f->zkey.a().empty() && f->zkey.b2().empty());
  EXPECT_EQ(f->zkey.b1().size(), pk.n_vars);
}

// A whole proof with the eight-lane IFMA kernels (MSMs of both groups, the
// NTTs, the H step) is the scalar path's proof bit for bit, on both
// fixtures, for the same r and s. Skipped, saying why, without IFMA.
TEST(CpuBackend, WholeProofsAreTheSameOnTheIfmaAndScalarPaths) {
  PP_REQUIRE_IFMA_CPU();
  PP_SEEDED_RNG(rng);
  for (const char* name : {"sparse_dense", "multi_io"}) {
    SCOPED_TRACE(name);
    std::optional<FixtureKey> f;
    ASSERT_NO_FATAL_FAILURE(load_fixture(name, &f));
    const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
    std::optional<groth16::ProofT<curves::Bls12_381>> proofs[2];
    for (const ff::ifma::SimdPath path : {ff::ifma::SimdPath::kScalar, ff::ifma::SimdPath::kIfma}) {
      const ff::ifma::ScopedSimdPath guard(path);
      auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
      auto proof = prove_with(*cpu, f->pk, f->witness, r, s);
      ASSERT_TRUE(proof) << proof.status().message();
      proofs[path == ff::ifma::SimdPath::kIfma] = *proof;
    }
    EXPECT_TRUE(*proofs[0] == *proofs[1]);
  }
}

// The taken-inputs path (the GPU worker's with the CUDA backend) on the
// CPU backend: the proof of the copy path for the same r and s, and the
// record it took from left as it was (in the worker it is a shared slot
// that a CONSUMING -> READY reclaim hands to the next prover).
TEST(TakenInputs, GiveTheCopyPathsProofAndLeaveTheRecordAsItWas) {
  PP_SEEDED_RNG(rng);
  std::optional<FixtureKey> f;
  Record record;
  ASSERT_NO_FATAL_FAILURE(load_record("sparse_dense", &f, &record));
  const Record before = record;
  const std::vector<bls12_381::Fr> w0 = f->witness;
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  EXPECT_FALSE(cpu->prefers_taking_inputs());
  for (int proof = 0; proof < 2; ++proof) {  // the second reuses the backend's buffers
    const bls12_381::Fr r = bls12_381::Fr::random(rng), s = bls12_381::Fr::random(rng);
    ASSERT_TRUE(cpu->take_inputs({record.a, record.b, record.c, f->witness}));
    ASSERT_TRUE(cpu->inputs_taken());
    ASSERT_TRUE(cpu->compute_h_taken());
    auto got = groth16::prove_taken_finish_with(*cpu, pk, r, s);
    ASSERT_TRUE(got) << got.status().message();
    auto want = prove_with(*cpu, pk, f->witness, r, s);
    ASSERT_TRUE(want) << want.status().message();
    EXPECT_TRUE(*got == *want) << "proof " << proof;
  }
  EXPECT_TRUE(record.a == before.a && record.b == before.b && record.c == before.c && f->witness == w0);
}

TEST(TakenInputs, OutOfOrderCallsBadSizesAndBackendsWithoutThePathAreRefused) {
  std::optional<FixtureKey> f;
  Record record;
  ASSERT_NO_FATAL_FAILURE(load_record("sparse_dense", &f, &record));
  const groth16::ProvingKeyT<curves::Bls12_381>& pk = f->pk;
  const size_t n = pk.domain_size;
  const std::vector<bls12_381::Fr>&a = record.a, &b = record.b, &c = record.c;
  const std::span<const bls12_381::Fr> w(f->witness);
  auto cpu = groth16::make_cpu_backend<curves::Bls12_381>();
  const auto out_of_order = [](const Status& st) {
    return st.code() == ErrorCode::kInternal && st.message().find("out of order") != std::string::npos;
  };
  EXPECT_TRUE(out_of_order(cpu->compute_h_taken()));
  EXPECT_TRUE(out_of_order(cpu->proof_msms_taken(pk, bls12_381::Fr::one()).status()));
  EXPECT_TRUE(out_of_order(cpu->inputs_taken()));

  EXPECT_EQ(cpu->take_inputs({a, b, std::span(c).first(n / 2), w}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(cpu->take_inputs({a, b, c, {}}).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(out_of_order(cpu->inputs_taken())) << "a refused take leaves nothing taken";

  ASSERT_TRUE(cpu->take_inputs({a, b, c, w}));
  EXPECT_TRUE(out_of_order(cpu->compute_h_taken())) << "H before the inputs are taken";
  EXPECT_TRUE(out_of_order(cpu->inputs_taken())) << "a misstep starts the path over";

  // A record for another key: the sizes are checked where the key is known.
  ASSERT_TRUE(cpu->take_inputs({a, b, c, w.first(w.size() - 1)}));
  ASSERT_TRUE(cpu->inputs_taken());
  ASSERT_TRUE(cpu->compute_h_taken());
  EXPECT_EQ(cpu->proof_msms_taken(pk, bls12_381::Fr::one()).status().code(), ErrorCode::kInvalidArgument);

  RecordingBackend without;  // implements none of the path
  const Status st = without.take_inputs({a, b, c, w});
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable);
  EXPECT_NE(st.message().find("recording backend cannot take"), std::string::npos) << st.message();
  EXPECT_EQ(without.compute_h_taken().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(without.proof_msms_taken(pk, bls12_381::Fr::one()).status().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace proofpipe::test
