// Test-only Groth16 setup (see dev_setup.hpp): Lagrange values at tau by batch
// inversion, per-wire QAP sums over the sparse r1cs, then fixed-base
// multiplications of the generators with a signed-digit window table.
#include "proofpipe/groth16/dev_setup.hpp"

#include <algorithm>
#include <bit>
#include <chrono>

#include <spdlog/spdlog.h>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::groth16 {
namespace {

constexpr unsigned kScalarBits = 256;  // canonical Fr limbs (r < 2^255)

// ---------- fixed-base multiplication ----------

// w bits of k starting at bit `pos` (bits at or above 256 read as zero), w <= 16.
inline uint32_t window_bits(const ff::Limbs<4>& k, unsigned pos, unsigned w) {
  if (pos >= kScalarBits) return 0;
  const unsigned li = pos / 64, sh = pos % 64;
  uint64_t v = k[li] >> sh;
  if (sh + w > 64 && li + 1 < 4) v |= k[li + 1] << (64 - sh);
  return static_cast<uint32_t>(v & ((uint64_t(1) << w) - 1));
}

// Window width for `count` multiplications: minimises windows * (count +
// 2^w), the mixed additions per point plus the table (2^(w-1) entries per
// window at about twice the cost of a mixed addition). Capped at 14 bits
// (a G2 table of 19 windows x 8192 points = 30 MB).
unsigned choose_window(size_t count) {
  unsigned best_w = 2;
  double best = 1e300;
  for (unsigned w = 2; w <= 14; ++w) {
    const double windows = (kScalarBits + w - 1) / w;
    const double cost = windows * (double(count) + double(uint64_t(1) << w));
    if (cost < best) {
      best = cost;
      best_w = w;
    }
  }
  return best_w;
}

// Multiples d * 2^(w j) * P for windows j and digits d in [1, 2^(w-1)], affine.
// Scalars are recoded on the fly into signed digits in [-2^(w-1), 2^(w-1)]:
// a scalar below 2^255 needs ceil(256 / w) windows (the top window never
// carries out), one mixed addition per non-zero digit.
template <class Cfg, class Fr>
class FixedBase {
 public:
  using Aff = ec::Affine<Cfg>;
  using Jac = ec::Jacobian<Cfg>;

  FixedBase(const Aff& base, unsigned w)
      : w_(w), windows_((kScalarBits + w - 1) / w), half_(size_t(1) << (w - 1)), table_(windows_ * half_) {
    // B_j = 2^(w j) * P.
    std::vector<Jac> bases_j(windows_);
    Jac acc = Jac::from_affine(base);
    for (unsigned j = 0; j < windows_; ++j) {
      bases_j[j] = acc;
      for (unsigned i = 0; i < w_; ++i) acc = acc.dbl();
    }
    std::vector<Aff> bases(windows_);
    ec::batch_to_affine<Cfg>(bases_j, bases);
    parallel_for(windows_, [&](size_t j) {
      std::vector<Jac> row(half_);
      Jac m = Jac::from_affine(bases[j]);
      for (size_t d = 0; d < half_; ++d) {
        row[d] = m;
        m = m.add_affine(bases[j]);
      }
      ec::batch_to_affine<Cfg>(row, std::span<Aff>(table_).subspan(j * half_, half_));
    });
  }

  Jac mul(const Fr& scalar) const {
    const ff::Limbs<4> k = scalar.to_canonical();
    const uint32_t full = uint32_t(1) << w_;
    Jac acc = Jac::identity();
    uint32_t carry = 0;
    for (unsigned j = 0; j < windows_; ++j) {
      uint32_t d = window_bits(k, j * w_, w_) + carry;
      if (d == 0) continue;  // carry was 0
      if (d > half_) {
        // d - 2^w in (-2^(w-1), 0]; d == 2^w (all ones plus carry) is digit 0 with a carry.
        carry = 1;
        if (d == full) continue;
        acc = acc.add_affine(-table_[j * half_ + (full - d) - 1]);
      } else {
        carry = 0;
        acc = acc.add_affine(table_[j * half_ + d - 1]);
      }
    }
    PP_ASSERT(carry == 0, "fixed-base: scalar above 2^255");
    return acc;
  }

  // out[i] = scalars[i] * P, affine, chunked over the pool.
  void mul_into(std::span<const Fr> scalars, std::span<Aff> out) const {
    PP_ASSERT(scalars.size() == out.size(), "fixed_base_mul: size mismatch");
    if (scalars.empty()) return;
    constexpr size_t kChunk = 2048;
    const size_t chunks = (scalars.size() + kChunk - 1) / kChunk;
    parallel_for(chunks, [&](size_t ci) {
      const size_t b = ci * kChunk, e = std::min(scalars.size(), b + kChunk);
      std::vector<Jac> jac(e - b);
      for (size_t i = b; i < e; ++i) jac[i - b] = scalars[i].is_zero() ? Jac::identity() : mul(scalars[i]);
      ec::batch_to_affine<Cfg>(jac, out.subspan(b, e - b));
    });
  }

 private:
  unsigned w_, windows_;
  size_t half_;
  std::vector<Aff> table_;
};

// ---------- Lagrange values ----------

// out[i] = factor * x_i / (tau - x_i) with x_i = x0 * step^i: the Lagrange
// basis at tau of a multiplicative domain (factor = (tau^N - 1) / N), over
// chunks with one inversion each. tau must not be any x_i.
template <class Fr>
void lagrange_at(const Fr& tau, const Fr& x0, const Fr& step, const Fr& factor, std::span<Fr> out) {
  constexpr size_t kChunk = 1 << 14;
  const size_t chunks = (out.size() + kChunk - 1) / kChunk;
  parallel_for(chunks, [&](size_t ci) {
    const size_t b = ci * kChunk, e = std::min(out.size(), b + kChunk);
    std::vector<Fr> xs(e - b), prefix(e - b);
    Fr x = x0 * step.pow_u64(b);
    Fr acc = Fr::one();
    for (size_t i = b; i < e; ++i) {
      const Fr den = tau - x;
      xs[i - b] = x;
      prefix[i - b] = acc;
      out[i] = den;
      acc = acc * den;
      x = x * step;
    }
    Fr inv = acc.inverse();
    for (size_t i = e; i-- > b;) {
      const Fr den_inv = inv * prefix[i - b];
      inv = inv * out[i];
      out[i] = factor * xs[i - b] * den_inv;
    }
  });
}

template <class C>
typename C::G1Affine g1_times(const typename C::Fr& k) {
  return C::G1::from_affine(C::g1_generator()).mul(k.to_canonical()).to_affine();
}
template <class C>
typename C::G2Affine g2_times(const typename C::Fr& k) {
  return C::G2::from_affine(C::g2_generator()).mul(k.to_canonical()).to_affine();
}

}  // namespace

template <class C>
void ToxicWasteT<C>::wipe() {
  using Fr = typename C::Fr;
  for (Fr* f : {&tau, &alpha, &beta, &delta}) {
    volatile uint64_t* p = f->l;
    for (size_t i = 0; i < Fr::N; ++i) p[i] = 0;
  }
}

template <class C>
Result<ToxicWasteT<C>> random_toxic_waste(uint32_t domain_size) {
  using Fr = typename C::Fr;
  auto nonzero = []() -> Result<Fr> {
    for (;;) {
      PP_ASSIGN_OR_RETURN(Fr v, random_fr<C>());
      if (!v.is_zero()) return v;
    }
  };
  ToxicWasteT<C> t;
  PP_ASSIGN_OR_RETURN(t.alpha, nonzero());
  PP_ASSIGN_OR_RETURN(t.beta, nonzero());
  PP_ASSIGN_OR_RETURN(t.delta, nonzero());
  for (;;) {
    PP_ASSIGN_OR_RETURN(t.tau, nonzero());
    if (!t.tau.pow_u64(uint64_t(domain_size) * 2).is_one()) break;
  }
  return t;
}

Result<unsigned> dev_setup_log2_domain(const formats::R1csHeader& header) {
  const uint64_t rows = uint64_t(header.n_constraints) + header.n_public() + 1;
  // snarkjs: cirPower = floor(log2(nConstraints + nPublic)) + 1, the same as ceil(log2(rows)).
  const unsigned k = static_cast<unsigned>(std::bit_width(rows - 1));
  if (k > ntt::kMaxLogSize) {
    return make_error(ErrorCode::kInvalidArgument,
                      "r1cs has {} constraints and {} public signals: domain 2^{} is above the 2^{} limit",
                      header.n_constraints, header.n_public(), k, ntt::kMaxLogSize);
  }
  return k;
}

template <class C>
formats::ZkeyPartsT<C> DevKeyT<C>::parts() const {
  formats::ZkeyPartsT<C> p;
  p.header = header;
  p.ic = ic;
  p.coefs = coefs;
  p.a = a;
  p.b1 = b1;
  p.b2 = b2;
  p.c = c;
  p.h = h;
  return p;
}

void fixed_base_mul(const bls12_381::G1Affine& base, std::span<const bls12_381::Fr> scalars,
                    std::span<bls12_381::G1Affine> out) {
  FixedBase<bls12_381::G1Cfg, bls12_381::Fr>(base, choose_window(scalars.size())).mul_into(scalars, out);
}
void fixed_base_mul(const bls12_381::G2Affine& base, std::span<const bls12_381::Fr> scalars,
                    std::span<bls12_381::G2Affine> out) {
  FixedBase<bls12_381::G2Cfg, bls12_381::Fr>(base, choose_window(scalars.size())).mul_into(scalars, out);
}

template <class C>
Result<DevKeyT<C>> dev_setup(const formats::R1csT<C>& r1cs, const ToxicWasteT<C>& s) {
  using Fr = typename C::Fr;
  const auto t0 = std::chrono::steady_clock::now();
  const formats::R1csHeader& rh = r1cs.header;
  const uint32_t n_vars = rh.n_wires, n_pub = rh.n_public(), m = rh.n_constraints;
  if (uint64_t(n_pub) + 1 > n_vars) {
    return make_error(ErrorCode::kInvalidArgument, "r1cs '{}': nPublic {} leaves no room for wire 0 among nWires {}",
                      r1cs.path.string(), n_pub, n_vars);
  }
  if (r1cs.a.rows() != m || r1cs.b.rows() != m || r1cs.c.rows() != m) {
    return make_error(ErrorCode::kInvalidArgument, "r1cs '{}': matrices do not have nConstraints = {} rows",
                      r1cs.path.string(), m);
  }
  PP_ASSIGN_OR_RETURN(const unsigned k, dev_setup_log2_domain(rh));
  const uint32_t n = uint32_t(1) << k;
  if (s.alpha.is_zero() || s.beta.is_zero() || s.delta.is_zero() || s.tau.pow_u64(uint64_t(n) * 2).is_one()) {
    return make_error(ErrorCode::kInvalidArgument,
                      "dev setup: unusable secrets (alpha, beta, delta must be non-zero, tau off the 2n-domain)");
  }
  const size_t rows = size_t(m) + n_pub + 1;  // used rows of the n-domain

  // Lagrange basis of the n-domain at tau, rows in use only.
  const Fr omega_n = ntt::root_of_unity<Fr>(k);
  const Fr omega_2n = ntt::root_of_unity<Fr>(k + 1);
  std::vector<Fr> lag(rows);
  {
    const Fr factor = (s.tau.pow_u64(n) - Fr::one()) * Fr::from_u64(n).inverse();
    lagrange_at<Fr>(s.tau, Fr::one(), omega_n, factor, lag);
  }

  // Per-wire QAP values at tau; the public rows add A[m+s][s] = 1.
  std::vector<Fr> qa(n_vars, Fr::zero()), qb(n_vars, Fr::zero()), qc(n_vars, Fr::zero());
  parallel_for(3, [&](size_t which) {
    const formats::SparseMatrixT<C>& mat = which == 0 ? r1cs.a : which == 1 ? r1cs.b : r1cs.c;
    std::vector<Fr>& out = which == 0 ? qa : which == 1 ? qb : qc;
    for (size_t c = 0; c < m; ++c) {
      const auto wires = mat.row_wires(c);
      const auto coefs = mat.row_coefs(c);
      for (size_t t = 0; t < wires.size(); ++t) out[wires[t]] = out[wires[t]] + coefs[t] * lag[c];
    }
  });
  for (uint32_t w = 0; w <= n_pub; ++w) qa[w] = qa[w] + lag[m + w];
  lag.clear();
  lag.shrink_to_fit();

  // G1 scalars for IC / C: beta A + alpha B + C, divided by delta for private wires.
  const Fr delta_inv = s.delta.inverse();
  std::vector<Fr> kvals(n_vars);
  parallel_for_range(n_vars, [&](size_t b, size_t e) {
    for (size_t w = b; w < e; ++w) {
      const Fr v = s.beta * qa[w] + s.alpha * qb[w] + qc[w];
      kvals[w] = w <= n_pub ? v : v * delta_inv;
    }
  });
  qc.clear();
  qc.shrink_to_fit();

  // H: L^{(2n)}_{2i+1}(tau) / delta at x_i = w_2n * w_n^i.
  std::vector<Fr> hvals(n);
  {
    const uint64_t n2 = uint64_t(n) * 2;
    const Fr factor = (s.tau.pow_u64(n2) - Fr::one()) * Fr::from_u64(n2).inverse() * delta_inv;
    lagrange_at<Fr>(s.tau, omega_2n, omega_n, factor, hvals);
  }
  const double t_scalars = seconds_since(t0);

  DevKeyT<C> key;
  formats::ZkeyHeaderT<C>& h = key.header;
  h.n_vars = n_vars;
  h.n_public = n_pub;
  h.domain_size = n;
  h.log2_domain_size = k;
  h.alpha1 = g1_times<C>(s.alpha);
  h.beta1 = g1_times<C>(s.beta);
  h.delta1 = g1_times<C>(s.delta);
  h.beta2 = g2_times<C>(s.beta);
  h.gamma2 = C::g2_generator();
  h.delta2 = g2_times<C>(s.delta);

  // Section 4: per constraint its A terms then its B terms, then the public rows.
  key.coefs.reserve(r1cs.a.nnz() + r1cs.b.nnz() + n_pub + 1);
  for (uint32_t c = 0; c < m; ++c) {
    for (uint32_t which = 0; which < 2; ++which) {
      const formats::SparseMatrixT<C>& mat = which == 0 ? r1cs.a : r1cs.b;
      const auto wires = mat.row_wires(c);
      const auto coefs = mat.row_coefs(c);
      for (size_t t = 0; t < wires.size(); ++t)
        key.coefs.push_back(formats::make_zkey_coef<C>(which, c, wires[t], coefs[t]));
    }
  }
  for (uint32_t w = 0; w <= n_pub; ++w) key.coefs.push_back(formats::make_zkey_coef<C>(0, m + w, w, Fr::one()));

  // Points. One G1 table for all five G1 sections.
  const auto t1 = std::chrono::steady_clock::now();
  const size_t g1_count = 3 * size_t(n_vars) + n;
  const FixedBase<typename C::G1Cfg, Fr> g1(C::g1_generator(), choose_window(g1_count));
  key.a.resize(n_vars);
  key.b1.resize(n_vars);
  key.ic.resize(size_t(n_pub) + 1);
  key.c.resize(size_t(n_vars) - n_pub - 1);
  key.h.resize(n);
  g1.mul_into(qa, key.a);
  g1.mul_into(qb, key.b1);
  g1.mul_into(std::span<const Fr>(kvals).first(size_t(n_pub) + 1), key.ic);
  g1.mul_into(std::span<const Fr>(kvals).subspan(size_t(n_pub) + 1), key.c);
  g1.mul_into(hvals, key.h);
  const double t_g1 = seconds_since(t1);

  const auto t2 = std::chrono::steady_clock::now();
  key.b2.resize(n_vars);
  FixedBase<typename C::G2Cfg, Fr>(C::g2_generator(), choose_window(n_vars)).mul_into(qb, key.b2);
  const double t_g2 = seconds_since(t2);

  spdlog::debug("dev setup: n=2^{} vars={} coefs={} scalars {:.2f}s G1 {} points {:.2f}s G2 {} points {:.2f}s", k,
                n_vars, key.coefs.size(), t_scalars, g1_count, t_g1, n_vars, t_g2);
  return key;
}

#define PP_DEV_SETUP(C)                                            \
  template struct ToxicWasteT<C>;                                  \
  template struct DevKeyT<C>;                                      \
  template Result<ToxicWasteT<C>> random_toxic_waste<C>(uint32_t); \
  template Result<DevKeyT<C>> dev_setup(const formats::R1csT<C>&, const ToxicWasteT<C>&);
PP_DEV_SETUP(curves::Bls12_381)
PP_DEV_SETUP(curves::Bn254)
#undef PP_DEV_SETUP

}  // namespace proofpipe::groth16
