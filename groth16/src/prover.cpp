// Groth16 synthesis, H step and assembly (see prover.hpp). The formulas are
// snarkjs's (docs/design/formats.md §3): A, B1, B2 over all wires, C
// over the private wires only, H over the odd-coset evaluations.
#include "proofpipe/groth16/prover.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"

namespace proofpipe::groth16 {
namespace {

// Bytes from getrandom(2), retried on EINTR; fails only if the kernel refuses.
Status os_random(void* out, size_t len) {
  auto* p = static_cast<uint8_t*>(out);
  while (len > 0) {
    ssize_t got = ::getrandom(p, len, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorCode::kIo, "getrandom: {}", std::strerror(errno));
    }
    p += got;
    len -= static_cast<size_t>(got);
  }
  return Status::ok();
}

// Splits the coefficient list into ranges that never share a constraint row,
// so that threads can accumulate into a[] and b[] without atomics. snarkjs
// writes the section ordered by constraint; an unordered key gets one range.
// `known_sorted` spares the scan, which would touch every page of the
// section at once (240 MB at 2^20) before synthesis reads it chunk by chunk.
template <class Coef>
std::vector<size_t> row_aligned_chunks(std::span<const Coef> coefs, size_t want, std::optional<bool> known_sorted) {
  std::vector<size_t> cuts{0};
  const bool sorted =
      known_sorted ? *known_sorted : std::is_sorted(coefs.begin(), coefs.end(), [](const Coef& x, const Coef& y) {
        return x.constraint < y.constraint;
      });
  if (sorted && want > 1) {
    const size_t step = coefs.size() / want + 1;
    for (size_t pos = step; pos < coefs.size(); pos += step) {
      size_t q = pos;
      while (q < coefs.size() && coefs[q].constraint == coefs[q - 1].constraint) ++q;
      if (q < coefs.size() && q > cuts.back()) cuts.push_back(q);
    }
  }
  cuts.push_back(coefs.size());
  return cuts;
}

}  // namespace

template <class C>
ProvingKeyT<C> proving_key_of(const formats::ZkeyT<C>& zkey) {
  const auto& h = zkey.header();
  ProvingKeyT<C> pk;
  pk.n_vars = h.n_vars;
  pk.n_public = h.n_public;
  pk.domain_size = h.domain_size;
  pk.alpha1 = h.alpha1;
  pk.beta1 = h.beta1;
  pk.delta1 = h.delta1;
  pk.beta2 = h.beta2;
  pk.gamma2 = h.gamma2;
  pk.delta2 = h.delta2;
  pk.ic = zkey.ic();
  pk.a = zkey.a();
  pk.b1 = zkey.b1();
  pk.b2 = zkey.b2();
  pk.c = zkey.c();
  pk.h = zkey.h();
  pk.coefficients = zkey.coefs();
  pk.coefficients_sorted = zkey.coefs_sorted();
  return pk;
}

template <class C>
Result<typename C::Fr> random_fr() {
  struct OsRng {
    Status status;
    uint64_t operator()() {
      uint64_t v = 0;
      if (status.is_ok()) status = os_random(&v, sizeof v);
      return v;
    }
  } rng;
  typename C::Fr x = C::Fr::random(rng);
  if (!rng.status.is_ok()) return rng.status;
  return x;
}

template <class C>
Status synthesize(const ProvingKeyT<C>& pk, ConstFrSpan<C> witness, FrSpan<C> a, FrSpan<C> b, FrSpan<C> c) {
  using Fr = typename C::Fr;
  const size_t n = pk.domain_size;
  if (witness.size() != pk.n_vars)
    return make_error(ErrorCode::kInvalidArgument, "witness has {} values, the key expects {}", witness.size(),
                      pk.n_vars);
  if (a.size() != n || b.size() != n || c.size() != n)
    return make_error(ErrorCode::kInvalidArgument, "a/b/c buffers must hold {} values", n);

  // The coefficient values carry R^2: multiplying them by the standard-form
  // witness (as raw limbs) in Montgomery arithmetic gives coef*w in Montgomery
  // form with one multiplication per entry.
  std::vector<Fr> w_std(witness.size());
  parallel_for_range(witness.size(), [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) w_std[i] = Fr::from_mont(witness[i].to_canonical());
  });
  parallel_for_range(n, [&](size_t lo, size_t hi) {
    std::fill(a.begin() + lo, a.begin() + hi, Fr::zero());
    std::fill(b.begin() + lo, b.begin() + hi, Fr::zero());
  });

  const auto coefs = pk.coefficients;
  const std::vector<size_t> cuts = row_aligned_chunks(coefs, 8 * size_t(worker_count()), pk.coefficients_sorted);
  parallel_for(cuts.size() - 1, [&](size_t k) {
    for (size_t i = cuts[k]; i < cuts[k + 1]; ++i) {
      const formats::ZkeyCoefT<C>& e = coefs[i];
      PP_DEBUG_ASSERT(e.constraint < n && e.signal < w_std.size() && e.matrix < 2, "coefficient out of range");
      Fr t = e.value_mont() * w_std[e.signal];
      Fr& dst = e.matrix == 0 ? a[e.constraint] : b[e.constraint];
      dst += t;
    }
    // Read once: a one-shot prover lets each chunk's pages go at once, so
    // the section (240 MB at 2^20) is never resident whole.
    pk.done(formats::KeyPart::kCoefficients, cuts[k], cuts[k + 1] - cuts[k]);
  });
  pk.done(formats::KeyPart::kCoefficients);
  // C is never read from the key: for a satisfying witness C.w = (A.w) o (B.w).
  parallel_for_range(n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
  });
  return Status::ok();
}

template <class C>
Result<PreparedProofT<C>> prove_start(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk, ConstFrSpan<C> witness,
                                      FrSpan<C> a, FrSpan<C> b, FrSpan<C> c) {
  if (witness.size() != pk.n_vars)
    return make_error(ErrorCode::kInvalidArgument, "witness has {} values, the key expects {}", witness.size(),
                      pk.n_vars);
  PP_RETURN_IF_ERROR(backend.compute_h(a, b, c));
  return PreparedProofT<C>{a, witness};
}

namespace {

// The proof from its five MSMs and the blinding r, s (snarkjs's assembly).
template <class C>
ProofT<C> assemble(const ProvingKeyT<C>& pk, const ProofMsmsT<C>& m, const typename C::Fr& r, const typename C::Fr& s) {
  using G1 = typename C::G1;
  using G2 = typename C::G2;
  const auto rk = r.to_canonical(), sk = s.to_canonical(), rsk = (r * s).to_canonical();
  const G1 delta1 = G1::from_affine(pk.delta1);
  const G1 pi_a = m.a.add_affine(pk.alpha1) + delta1.mul(rk);
  const G2 pi_b = m.b2.add_affine(pk.beta2) + G2::from_affine(pk.delta2).mul(sk);
  const G1 b1 = m.b1.add_affine(pk.beta1) + delta1.mul(sk);
  const G1 pi_c = m.c + m.h + pi_a.mul(sk) + b1.mul(rk) - delta1.mul(rsk);
  return ProofT<C>{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace

template <class C>
Result<ProofT<C>> prove_finish_with(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk,
                                    const PreparedProofT<C>& prepared, const std::type_identity_t<typename C::Fr>& r,
                                    const std::type_identity_t<typename C::Fr>& s) {
  if (prepared.witness.size() != pk.n_vars || prepared.h.size() != pk.domain_size)
    return make_error(ErrorCode::kInvalidArgument, "prepared proof does not match the key ({} wires, {} h values)",
                      prepared.witness.size(), prepared.h.size());
  PP_ASSIGN_OR_RETURN(const ProofMsmsT<C> m, backend.proof_msms(pk, prepared.witness, prepared.h, r));
  return assemble(pk, m, r, s);
}

template <class C>
Result<ProofT<C>> prove_taken_finish_with(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk,
                                          const std::type_identity_t<typename C::Fr>& r,
                                          const std::type_identity_t<typename C::Fr>& s) {
  PP_ASSIGN_OR_RETURN(const ProofMsmsT<C> m, backend.proof_msms_taken(pk, r));
  return assemble(pk, m, r, s);
}

template <class C>
Result<ProofT<C>> prove_taken_finish(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk) {
  PP_ASSIGN_OR_RETURN(typename C::Fr r, random_fr<C>());
  PP_ASSIGN_OR_RETURN(typename C::Fr s, random_fr<C>());
  return prove_taken_finish_with(backend, pk, r, s);
}

template <class C>
Result<ProofT<C>> prove_finish(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk,
                               const PreparedProofT<C>& prepared) {
  PP_ASSIGN_OR_RETURN(typename C::Fr r, random_fr<C>());
  PP_ASSIGN_OR_RETURN(typename C::Fr s, random_fr<C>());
  return prove_finish_with(backend, pk, prepared, r, s);
}

template <class C>
Result<ProofT<C>> prove(ProverBackendT<C>& backend, const ProvingKeyT<C>& pk, ConstFrSpan<C> witness) {
  using Fr = typename C::Fr;
  const size_t n = pk.domain_size;
  // Not zeroed here: synthesize() writes every element, and on the pool's
  // threads, so the first touch of the pages is parallel too (zeroing them
  // here took 1.4 ms of the main thread's time at 2^15).
  const auto a = std::make_unique_for_overwrite<Fr[]>(n);
  auto b = std::make_unique_for_overwrite<Fr[]>(n), c = std::make_unique_for_overwrite<Fr[]>(n);
  const FrSpan<C> as(a.get(), n), bs(b.get(), n), cs(c.get(), n);
  PP_RETURN_IF_ERROR(synthesize(pk, witness, as, bs, cs));
  PP_ASSIGN_OR_RETURN(PreparedProofT<C> prepared, prove_start(backend, pk, witness, as, bs, cs));
  // h lives in a; b and c are spent. Freed before the MSMs, whose key pages
  // and scratch make the peak: 2n Fr, 64 MiB at 2^20.
  b.reset();
  c.reset();
  return prove_finish(backend, pk, prepared);
}

#define PP_PROVER_CURVE(C)                                                                                             \
  template ProvingKeyT<C> proving_key_of(const formats::ZkeyT<C>&);                                                    \
  template Result<C::Fr> random_fr<C>();                                                                               \
  template Status synthesize(const ProvingKeyT<C>&, ConstFrSpan<C>, FrSpan<C>, FrSpan<C>, FrSpan<C>);                  \
  template Result<PreparedProofT<C>> prove_start(ProverBackendT<C>&, const ProvingKeyT<C>&, ConstFrSpan<C>, FrSpan<C>, \
                                                 FrSpan<C>, FrSpan<C>);                                                \
  template Result<ProofT<C>> prove_finish(ProverBackendT<C>&, const ProvingKeyT<C>&, const PreparedProofT<C>&);        \
  template Result<ProofT<C>> prove_finish_with(ProverBackendT<C>&, const ProvingKeyT<C>&, const PreparedProofT<C>&,    \
                                               const C::Fr&, const C::Fr&);                                            \
  template Result<ProofT<C>> prove_taken_finish(ProverBackendT<C>&, const ProvingKeyT<C>&);                            \
  template Result<ProofT<C>> prove_taken_finish_with(ProverBackendT<C>&, const ProvingKeyT<C>&, const C::Fr&,          \
                                                     const C::Fr&);                                                    \
  template Result<ProofT<C>> prove(ProverBackendT<C>&, const ProvingKeyT<C>&, ConstFrSpan<C>);
PP_PROVER_CURVE(curves::Bls12_381)
PP_PROVER_CURVE(curves::Bn254)
#undef PP_PROVER_CURVE

}  // namespace proofpipe::groth16
