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

template <class C>
class CpuBackend final : public ProverBackendT<C> {
 public:
  using Base = ProverBackendT<C>;
  using typename Base::Fr;
  using typename Base::G1;
  using typename Base::G1Affine;
  using typename Base::G2;
  using typename Base::G2Affine;
  using typename Base::ProofInputs;
  using typename Base::ProofMsms;
  using typename Base::ProvingKey;

  std::string_view name() const override { return "cpu"; }

  Status compute_h(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) override {
    PP_RETURN_IF_ERROR(h_step_log_size(a.size(), b.size(), c.size()).status());
    ntt::compute_h_odd_coset<Fr>(a, b, c);
    return Status::ok();
  }

  Result<G1> msm_g1(std::span<const G1Affine> points, std::span<const Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g1: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g1(points, scalars);
  }

  Result<G2> msm_g2(std::span<const G2Affine> points, std::span<const Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g2: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g2(points, scalars);
  }

  // A and B2 as the default does; C, H and B1 (with scalars r w) as one MSM
  // of their summed size (msm_g1_sum), which backend.hpp allows in c: at
  // 2^16 three separate G1 MSMs cost ~18% more (3 x 113 against 287 ms).
  // The B1 part carries r as its scale (msm.hpp, MsmPart): the products are
  // formed inside, and the wires that are 0 or +-1 stay cheap.
  Result<ProofMsms> proof_msms(const ProvingKey& pk, std::span<const Fr> w, std::span<const Fr> h,
                               const Fr& r) override {
    PP_RETURN_IF_ERROR(check_proof_msm_inputs(pk, w.size(), h.size()));
    ProofMsms out;
    out.a = msm::msm_g1(pk.a, w);
    pk.done(formats::KeyPart::kA);
    out.b2 = msm::msm_g2(pk.b2, w);
    pk.done(formats::KeyPart::kB2);
    using Part = msm::MsmPart<typename C::G1Cfg, Fr>;
    const Part parts[3] = {{pk.c, w.subspan(pk.n_public + 1)}, {pk.h, h}, {pk.b1, w, &r}};
    out.c = msm::msm_g1_sum(parts);
    out.b1 = out.h = G1::identity();
    return out;
  }

  // The taken-inputs path on host copies (see backend.hpp for why the GPU
  // worker does not choose it for this backend unless told to).
  Status take_inputs(const ProofInputs& in) override {
    PP_RETURN_IF_ERROR(taken_.start(in).status());
    ta_.assign(in.a.begin(), in.a.end());
    tb_.assign(in.b.begin(), in.b.end());
    tc_.assign(in.c.begin(), in.c.end());
    tw_.assign(in.w.begin(), in.w.end());
    return Status::ok();
  }
  Status inputs_taken() override {
    return taken_.advance(TakenInputs::Step::kCopying, TakenInputs::Step::kTaken, "inputs_taken");
  }
  Status compute_h_taken() override {
    PP_RETURN_IF_ERROR(taken_.advance(TakenInputs::Step::kTaken, TakenInputs::Step::kHDone, "compute_h_taken"));
    ntt::compute_h_odd_coset<Fr>(ta_, tb_, tc_);
    return Status::ok();
  }
  Result<ProofMsms> proof_msms_taken(const ProvingKey& pk, const Fr& r) override {
    PP_RETURN_IF_ERROR(taken_.advance(TakenInputs::Step::kHDone, TakenInputs::Step::kNone, "proof_msms_taken"));
    return this->proof_msms(pk, tw_, ta_, r);
  }

  // The domain's table is built on first use, which must not happen inside
  // a parallel_for (ntt.hpp): here, at set-up, it cannot.
  Status prepare(const ProvingKey& pk) override {
    PP_ASSIGN_OR_RETURN(const unsigned log_n, h_step_log_size(pk.domain_size, pk.domain_size, pk.domain_size));
    (void)ntt::DomainT<Fr>::get(log_n);
    return Status::ok();
  }

 private:
  TakenInputs taken_;
  std::vector<Fr> ta_, tb_, tc_, tw_;  // the taken inputs; h ends in ta_
};

// A small key over the key's own points for the known-answer test's
// proof_msms: its first m = min(n_vars, 256) wires, at most m - 1 of them
// public (so a key with 10^5 public inputs still gives a 256-wire check),
// C over the key's first private-wire points (any G1 points serve when the
// key has fewer: the check compares two backends on the same points), and
// the first min(256, |H|) H points.
template <class C>
ProvingKeyT<C> known_answer_key(const ProvingKeyT<C>& pk) {
  const size_t m = std::min<size_t>(pk.n_vars, 256);
  ProvingKeyT<C> sub = pk;
  sub.done_with = nullptr;  // the subset's MSMs must not give the real key's sections back
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

template <class C>
Status check_proof_msm_inputs(const ProvingKeyT<C>& pk, size_t w_size, size_t h_size) {
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
template <class C>
Result<ProofMsmsT<C>> ProverBackendT<C>::proof_msms(const ProvingKey& pk, std::span<const Fr> w, std::span<const Fr> h,
                                                    const Fr&) {
  PP_RETURN_IF_ERROR(check_proof_msm_inputs(pk, w.size(), h.size()));
  ProofMsms out;
  PP_ASSIGN_OR_RETURN(out.a, msm_g1(pk.a, w));
  PP_ASSIGN_OR_RETURN(out.b1, msm_g1(pk.b1, w));
  PP_ASSIGN_OR_RETURN(out.b2, msm_g2(pk.b2, w));
  PP_ASSIGN_OR_RETURN(out.c, msm_g1(pk.c, w.subspan(pk.n_public + 1)));
  PP_ASSIGN_OR_RETURN(out.h, msm_g1(pk.h, h));
  return out;
}

template <class C>
Status ProverBackendT<C>::take_inputs(const ProofInputs&) {
  return make_error(ErrorCode::kUnavailable, "the {} backend cannot take a proof's inputs", name());
}
template <class C>
Status ProverBackendT<C>::inputs_taken() {
  return take_inputs({});
}
template <class C>
Status ProverBackendT<C>::compute_h_taken() {
  return take_inputs({});
}
template <class C>
Result<ProofMsmsT<C>> ProverBackendT<C>::proof_msms_taken(const ProvingKey&, const Fr&) {
  return take_inputs({});
}

template <class C>
Result<unsigned> TakenInputs::start(const ProofInputsT<C>& in) {
  step_ = Step::kNone;
  PP_ASSIGN_OR_RETURN(const unsigned log_n, h_step_log_size(in.a.size(), in.b.size(), in.c.size()));
  if (in.w.empty()) return make_error(ErrorCode::kInvalidArgument, "take_inputs: empty witness");
  n_ = in.a.size();
  n_vars_ = in.w.size();
  step_ = Step::kCopying;
  return log_n;
}

Status TakenInputs::advance(Step from, Step to, const char* op) {
  if (step_ != from) {
    step_ = Step::kNone;
    return make_error(ErrorCode::kInternal,
                      "{} called out of order (take_inputs, inputs_taken, compute_h_taken, "
                      "proof_msms_taken)",
                      op);
  }
  step_ = to;
  return Status::ok();
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

template <class C>
Status known_answer_test(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk) {
  using Fr = typename C::Fr;
  const auto failed = [&](const char* what) {
    return make_error(ErrorCode::kInternal,
                      "known-answer test of the {} backend: {} differs from the CPU's; not taking work", backend.name(),
                      what);
  };
  std::mt19937_64 rng(0x6b61'7400);  // fixed: the same test on every start
  constexpr size_t kH = size_t(1) << 10;
  std::vector<Fr> a(kH), b(kH), c(kH);
  for (auto* v : {&a, &b, &c})
    for (Fr& x : *v) x = Fr::random(rng);
  std::vector<Fr> ra = a, rb = b, rc = c;
  PP_RETURN_IF_ERROR(backend.compute_h(a, b, c));
  ntt::compute_h_odd_coset<Fr>(ra, rb, rc);
  if (a != ra) return failed("the H step at 2^10");

  std::vector<Fr> k(std::min<size_t>(256, pk.a.size()));
  for (Fr& x : k) x = Fr::random(rng);
  if (!k.empty()) {
    const auto pts = pk.a.first(k.size());
    PP_ASSIGN_OR_RETURN(const typename C::G1 got, backend.msm_g1(pts, k));
    if (!(got == msm::msm_g1(pts, k))) return failed("a G1 MSM over the key's A points");
  }
  const size_t n2 = std::min(k.size(), pk.b2.size());
  if (n2 != 0) {
    const auto pts = pk.b2.first(n2);
    const auto ks = std::span<const Fr>(k).first(n2);
    PP_ASSIGN_OR_RETURN(const typename C::G2 got, backend.msm_g2(pts, ks));
    if (!(got == msm::msm_g2(pts, ks))) return failed("a G2 MSM over the key's B2 points");
  }

  // The five MSMs as the worker runs them (proof_msms, which a device
  // backend overrides to share one witness upload and offset it for C).
  PP_RETURN_IF_ERROR(check_proof_msm_inputs(pk, pk.n_vars, pk.h.size()));
  const ProvingKeyT<C> sub = known_answer_key(pk);
  std::vector<Fr> w(sub.n_vars), h(sub.h.size());
  for (auto* v : {&w, &h})
    for (Fr& x : *v) x = Fr::random(rng);
  const Fr r = Fr::random(rng);
  const auto rk = r.to_canonical();
  PP_ASSIGN_OR_RETURN(const ProofMsmsT<C> got, backend.proof_msms(sub, w, h, r));
  const auto compare = [&](const ProofMsmsT<C>& m, std::span<const Fr> hv, const char* path) {
    const std::span<const Fr> priv = std::span<const Fr>(w).subspan(sub.n_public + 1);
    // C, H and B1 only as c + h + r b1, which is all the proof uses
    // (backend.hpp).
    const auto folded = [&](const ProofMsmsT<C>& x) { return x.c + x.h + x.b1.mul(rk); };
    const typename C::G1 want = msm::msm_g1(sub.c, priv) + msm::msm_g1(sub.h, hv) + msm::msm_g1(sub.b1, w).mul(rk);
    const char* wrong = !(m.a == msm::msm_g1(sub.a, w))     ? "A MSM"
                        : !(m.b2 == msm::msm_g2(sub.b2, w)) ? "B2 MSM"
                        : !(folded(m) == want)              ? "C + H + r B1 MSMs"
                                                            : nullptr;
    return wrong == nullptr ? Status::ok() : failed(fmt::format("the proof's {} ({})", wrong, path).c_str());
  };
  PP_RETURN_IF_ERROR(compare(got, h, "proof_msms"));
  if (!backend.prefers_taking_inputs()) return Status::ok();

  // The path the GPU worker takes with such a backend: the inputs taken,
  // the H step and the MSMs on the backend's copies; h never leaves it, so
  // the MSMs are what show a wrong H step here.
  std::vector<Fr> ta(h.size()), tb(h.size()), tc(h.size());
  for (auto* v : {&ta, &tb, &tc})
    for (Fr& x : *v) x = Fr::random(rng);
  PP_RETURN_IF_ERROR(backend.take_inputs({ta, tb, tc, w}));
  PP_RETURN_IF_ERROR(backend.inputs_taken());
  PP_RETURN_IF_ERROR(backend.compute_h_taken());
  PP_ASSIGN_OR_RETURN(const ProofMsmsT<C> taken, backend.proof_msms_taken(sub, r));
  ntt::compute_h_odd_coset<Fr>(ta, tb, tc);  // the reference h, in ta
  return compare(taken, ta, "taken inputs");
}

Result<BackendKind> parse_backend_kind(std::string_view text) {
  if (text == "auto") return BackendKind::kAuto;
  if (text == "cpu") return BackendKind::kCpu;
  if (text == "cuda") return BackendKind::kCuda;
  return make_error(ErrorCode::kInvalidArgument, "backend '{}': expected auto, cpu or cuda", text);
}

template <class C>
std::unique_ptr<ProverBackendT<C>> make_cpu_backend() {
  return std::make_unique<CpuBackend<C>>();
}

#define PP_BACKEND_CURVE(C)                                                      \
  template class ProverBackendT<C>;                                              \
  template Status check_proof_msm_inputs(const ProvingKeyT<C>&, size_t, size_t); \
  template Result<unsigned> TakenInputs::start(const ProofInputsT<C>&);          \
  template Status known_answer_test(ProverBackendT<C>&, const ProvingKeyT<C>&);  \
  template std::unique_ptr<ProverBackendT<C>> make_cpu_backend<C>();
PP_BACKEND_CURVE(curves::Bls12_381)
PP_BACKEND_CURVE(curves::Bn254)
#undef PP_BACKEND_CURVE

}  // namespace proofpipe::groth16
