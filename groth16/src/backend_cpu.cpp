// The CPU backend (the reference every other backend is tested against),
// the interface's default proof_msms, the backend factory, and the
// known-answer test that gates a device backend. NTT and MSM are core/'s
// multithreaded implementations.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/groth16/proving_key.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::groth16 {
namespace {

class CpuBackend final : public ProverBackend {
 public:
  std::string_view name() const override { return "cpu"; }

  Status compute_h(std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c) override {
    PP_RETURN_IF_ERROR(h_step_log_size(a.size(), b.size(), c.size()).status());
    ntt::compute_h_odd_coset(a, b, c);
    return Status::ok();
  }

  Result<ec::G1> msm_g1(std::span<const ec::G1Affine> points, std::span<const ff::Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g1: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g1(points, scalars);
  }

  Result<ec::G2> msm_g2(std::span<const ec::G2Affine> points, std::span<const ff::Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g2: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g2(points, scalars);
  }

  // The domain's table is built on first use, which must not happen inside
  // a parallel_for (ntt.hpp): here, at set-up, it cannot.
  Status prepare(const ProvingKey& pk) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, h_step_log_size(pk.domain_size, pk.domain_size, pk.domain_size));
    (void)ntt::Domain::get(log_n);
    return Status::ok();
  }
};

// A small key over the key's own points for the known-answer test's
// proof_msms: its first m = min(n_vars, 256) wires, at most m - 1 of them
// public (so a key with 10^5 public inputs still gives a 256-wire check),
// C over the key's first private-wire points (any G1 points serve when the
// key has fewer: the check compares two backends on the same points), and
// the first min(256, |H|) H points.
ProvingKey known_answer_key(const ProvingKey& pk) {
  const size_t m = std::min<size_t>(pk.n_vars, 256);
  ProvingKey sub = pk;
  sub.n_vars = uint32_t(m);
  sub.n_public = uint32_t(std::min<size_t>(pk.n_public, m - 1));
  const size_t priv = m - sub.n_public - 1;
  sub.a = pk.a.first(m);
  sub.b1 = pk.b1.first(m);
  sub.b2 = pk.b2.first(m);
  sub.c = pk.c.size() >= priv ? pk.c.first(priv) : pk.a.first(priv);
  sub.h = pk.h.first(std::min<size_t>(256, pk.h.size()));
  sub.domain_size = uint32_t(sub.h.size());
  return sub;
}

}  // namespace

Status check_proof_msm_inputs(const ProvingKey& pk, size_t w_size, size_t h_size) {
  const size_t n = pk.n_vars, priv = n > pk.n_public ? n - pk.n_public - 1 : 0;
  if (n <= pk.n_public || pk.a.size() != n || pk.b1.size() != n || pk.b2.size() != n || pk.c.size() != priv)
    return make_error(ErrorCode::kInvalidArgument,
                      "proof MSMs: key sections A/B1/B2/C have {}/{}/{}/{} points, expected {}/{}/{}/{}", pk.a.size(),
                      pk.b1.size(), pk.b2.size(), pk.c.size(), n, n, n, priv);
  if (w_size != n || h_size != pk.h.size())
    return make_error(ErrorCode::kInvalidArgument, "proof MSMs: {} witness and {} h values, the key expects {} and {}",
                      w_size, h_size, n, pk.h.size());
  return Status::ok();
}

// The reference order of the five MSMs; each call checks its own sizes too.
Result<ProofMsms> ProverBackend::proof_msms(const ProvingKey& pk, std::span<const ff::Fr> w,
                                            std::span<const ff::Fr> h) {
  PP_RETURN_IF_ERROR(check_proof_msm_inputs(pk, w.size(), h.size()));
  ProofMsms out;
  PP_ASSIGN_OR_RETURN(out.a, msm_g1(pk.a, w));
  PP_ASSIGN_OR_RETURN(out.b1, msm_g1(pk.b1, w));
  PP_ASSIGN_OR_RETURN(out.b2, msm_g2(pk.b2, w));
  PP_ASSIGN_OR_RETURN(out.c, msm_g1(pk.c, w.subspan(pk.n_public + 1)));
  PP_ASSIGN_OR_RETURN(out.h, msm_g1(pk.h, h));
  return out;
}

Result<unsigned> h_step_log_size(size_t a, size_t b, size_t c) {
  const bool pow2 = a != 0 && (a & (a - 1)) == 0;
  if (b != a || c != a || !pow2 || a > (size_t(1) << ntt::kMaxLogSize))
    return make_error(ErrorCode::kInvalidArgument, "compute_h: sizes {}, {}, {} (need equal powers of two <= 2^{})", a,
                      b, c, ntt::kMaxLogSize);
  unsigned k = 0;
  while ((size_t(1) << k) < a) ++k;
  return k;
}

Status known_answer_test(ProverBackend& backend, const ProvingKey& pk) {
  const auto failed = [&](const char* what) {
    return make_error(ErrorCode::kInternal, "known-answer test of the {} backend: {} differs from the CPU's; not taking work",
                      backend.name(), what);
  };
  std::mt19937_64 rng(0x6b61'7400);  // fixed: the same test on every start
  constexpr size_t kH = size_t(1) << 10;
  std::vector<ff::Fr> a(kH), b(kH), c(kH);
  for (auto* v : {&a, &b, &c})
    for (ff::Fr& x : *v) x = ff::Fr::random(rng);
  std::vector<ff::Fr> ra = a, rb = b, rc = c;
  PP_RETURN_IF_ERROR(backend.compute_h(a, b, c));
  ntt::compute_h_odd_coset(ra, rb, rc);
  if (a != ra) return failed("the H step at 2^10");

  std::vector<ff::Fr> k(std::min<size_t>(256, pk.a.size()));
  for (ff::Fr& x : k) x = ff::Fr::random(rng);
  if (!k.empty()) {
    const auto pts = pk.a.first(k.size());
    PP_ASSIGN_OR_RETURN(const ec::G1 got, backend.msm_g1(pts, k));
    if (!(got == msm::msm_g1(pts, k))) return failed("a G1 MSM over the key's A points");
  }
  const size_t n2 = std::min(k.size(), pk.b2.size());
  if (n2 != 0) {
    const auto pts = pk.b2.first(n2);
    const auto ks = std::span<const ff::Fr>(k).first(n2);
    PP_ASSIGN_OR_RETURN(const ec::G2 got, backend.msm_g2(pts, ks));
    if (!(got == msm::msm_g2(pts, ks))) return failed("a G2 MSM over the key's B2 points");
  }

  // The five MSMs as the worker runs them (proof_msms, which a device
  // backend overrides to share one witness upload and offset it for C).
  PP_RETURN_IF_ERROR(check_proof_msm_inputs(pk, pk.n_vars, pk.h.size()));
  const ProvingKey sub = known_answer_key(pk);
  std::vector<ff::Fr> w(sub.n_vars), h(sub.h.size());
  for (auto* v : {&w, &h})
    for (ff::Fr& x : *v) x = ff::Fr::random(rng);
  PP_ASSIGN_OR_RETURN(const ProofMsms got, backend.proof_msms(sub, w, h));
  const std::span<const ff::Fr> priv = std::span<const ff::Fr>(w).subspan(sub.n_public + 1);
  if (!(got.a == msm::msm_g1(sub.a, w))) return failed("the proof's A MSM (proof_msms)");
  if (!(got.b1 == msm::msm_g1(sub.b1, w))) return failed("the proof's B1 MSM (proof_msms)");
  if (!(got.b2 == msm::msm_g2(sub.b2, w))) return failed("the proof's B2 MSM (proof_msms)");
  if (!(got.c == msm::msm_g1(sub.c, priv))) return failed("the proof's C MSM (proof_msms)");
  if (!(got.h == msm::msm_g1(sub.h, h))) return failed("the proof's H MSM (proof_msms)");
  return Status::ok();
}

Result<BackendKind> parse_backend_kind(std::string_view text) {
  if (text == "auto") return BackendKind::kAuto;
  if (text == "cpu") return BackendKind::kCpu;
  if (text == "cuda") return BackendKind::kCuda;
  return make_error(ErrorCode::kInvalidArgument, "backend '{}': expected auto, cpu or cuda", text);
}

std::unique_ptr<ProverBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

Result<std::unique_ptr<ProverBackend>> make_backend(BackendKind kind) {
  // The CUDA backend is linked into the GPU worker only (cuda/); in this
  // library kAuto means the CPU and kCuda is unavailable.
  if (kind == BackendKind::kCuda)
    return make_error(ErrorCode::kUnavailable,
                      "the CUDA backend is not linked into this program: it runs in the GPU worker of "
                      "`proofpipe run --backend cuda`");
  return make_cpu_backend();
}

}  // namespace proofpipe::groth16
