// Synthetic circuits and witnesses (synthetic.hpp).
#include "proofpipe/groth16/synthetic.hpp"

#include <random>
#include <set>

namespace proofpipe::groth16 {
namespace {

// A uniform-enough field element: kBits - 1 random bits are always below r
// (254 for BLS12-381's 255-bit r, 253 for BN254's 254-bit r).
template <class Fr>
Fr random_fr(std::mt19937_64& rng) {
  constexpr unsigned kTopBits = Fr::C::kBits - 1 - 192;
  ff::Limbs<4> v{rng(), rng(), rng(), rng() >> (64 - kTopBits)};
  return Fr::from_canonical(v);
}

template <class Fr>
Fr small_coef(std::mt19937_64& rng) {
  const uint64_t pick = rng() % 8;
  if (pick == 0) return Fr::zero() - Fr::one();  // -1, common in real circuits
  if (pick == 1) return random_fr<Fr>(rng);
  return Fr::from_u64(1 + rng() % 1000);
}

enum class Kind { kProduct, kSelect, kAnd, kLinear, kDense, kBoolean, kOutput };

Kind draw_kind(std::mt19937_64& rng) {
  const uint64_t x = rng() % 100;
  if (x < 47) return Kind::kProduct;
  if (x < 62) return Kind::kSelect;
  if (x < 70) return Kind::kAnd;
  if (x < 80) return Kind::kLinear;
  if (x < 85) return Kind::kDense;
  return Kind::kBoolean;
}

// Appends one linear combination as a CSR row.
template <class M, class Fr>
void push_row(M& m, const std::vector<std::pair<uint32_t, Fr>>& terms) {
  for (const auto& [w, c] : terms) {
    m.wires.push_back(w);
    m.coefs.push_back(c);
  }
  m.row_start.push_back(m.wires.size());
}

}  // namespace

template <class C>
Result<SyntheticCircuitT<C>> make_synthetic_circuit(const SyntheticSpec& spec) {
  using Fr = typename C::Fr;
  if (spec.constraints < 2 || spec.constraints > (1u << 26)) {
    return make_error(ErrorCode::kInvalidArgument, "--constraints {} must be in [2, 2^26]", spec.constraints);
  }
  if (spec.n_prv_in < 2) return make_error(ErrorCode::kInvalidArgument, "need at least 2 private inputs");
  std::mt19937_64 rng(spec.seed);
  std::vector<Kind> kinds(spec.constraints);
  uint32_t defined = 0;
  for (uint32_t c = 0; c + 1 < spec.constraints; ++c) {
    kinds[c] = draw_kind(rng);
    defined += kinds[c] != Kind::kBoolean;
  }
  kinds.back() = Kind::kOutput;

  const uint32_t first_in = 2;  // wire 0 = 1, wire 1 = the public output
  const uint32_t first_prv = first_in + spec.n_pub_in;
  const uint32_t n_bits = spec.n_prv_in / 2;
  const uint32_t first_internal = first_prv + spec.n_prv_in;

  SyntheticCircuitT<C> out;
  formats::R1csT<C>& r = out.r1cs;
  r.header.n_pub_out = 1;
  r.header.n_pub_in = spec.n_pub_in;
  r.header.n_prv_in = spec.n_prv_in;
  r.header.n_wires = first_internal + defined;
  r.header.n_labels = r.header.n_wires;
  r.header.n_constraints = spec.constraints;
  for (auto* m : {&r.a, &r.b, &r.c}) m->row_start.push_back(0);
  out.defines.resize(spec.constraints, -1);

  uint32_t next = first_internal;  // the next wire to define
  // Any wire with a value so far: the constant, the inputs, defined wires.
  auto any_wire = [&]() -> uint32_t {
    const uint32_t known = 1 + (next - first_in);
    const uint32_t k = uint32_t(rng() % known);
    return k == 0 ? 0 : first_in + k - 1;
  };
  auto bit_wire = [&]() { return first_prv + uint32_t(rng() % n_bits); };
  // A wire not yet in `used` (snarkjs reads a linear combination into a map
  // keyed by wire, so a repeated wire would silently lose a term there).
  auto fresh_wire = [&](std::set<uint32_t>& used) {
    for (;;) {
      const uint32_t w = any_wire();
      if (used.insert(w).second) return w;
    }
  };
  const Fr one = Fr::one();
  for (uint32_t c = 0; c < spec.constraints; ++c) {
    std::vector<std::pair<uint32_t, Fr>> a, b, cc;
    std::set<uint32_t> used;
    switch (kinds[c]) {
      case Kind::kProduct:
        a = {{fresh_wire(used), small_coef<Fr>(rng)}, {fresh_wire(used), small_coef<Fr>(rng)}};
        b = {{any_wire(), one}};
        break;
      case Kind::kSelect:
        a = {{any_wire(), one}};
        b = {{bit_wire(), one}};
        break;
      case Kind::kAnd:
        a = {{bit_wire(), one}};
        b = {{bit_wire(), one}};
        break;
      case Kind::kLinear:
        used.insert(0);
        a = {
            {fresh_wire(used), small_coef<Fr>(rng)}, {fresh_wire(used), small_coef<Fr>(rng)}, {0, small_coef<Fr>(rng)}};
        b = {{0, one}};
        break;
      case Kind::kDense: {
        const size_t want = 32 + rng() % 33;
        for (size_t t = 0; t < 4 * want && used.size() < want; ++t) used.insert(any_wire());
        for (uint32_t w : used) a.push_back({w, small_coef<Fr>(rng)});
        b = {{any_wire(), one}};
        break;
      }
      case Kind::kBoolean: {
        const uint32_t bit = bit_wire();
        a = {{bit, one}};
        b = {{bit, one}, {0, Fr::zero() - one}};
        break;
      }
      case Kind::kOutput:
        a = {{next - 1, one}};
        b = {{0, one}};
        break;
    }
    if (kinds[c] == Kind::kOutput) {
      cc = {{1, one}};
      out.defines[c] = 1;
    } else if (kinds[c] != Kind::kBoolean) {
      cc = {{next, one}};
      out.defines[c] = next++;
    }
    push_row(r.a, a);
    push_row(r.b, b);
    push_row(r.c, cc);
  }
  return out;
}

template <class C>
std::vector<typename C::Fr> synthetic_witness(const SyntheticCircuitT<C>& circuit, const SyntheticSpec& spec,
                                              uint32_t partition) {
  using Fr = typename C::Fr;
  const formats::R1csT<C>& r = circuit.r1cs;
  std::mt19937_64 rng(spec.seed ^ (0x9E3779B97F4A7C15ull * (uint64_t(partition) + 1)));
  std::vector<Fr> w(r.header.n_wires, Fr::zero());
  w[0] = Fr::one();
  const uint32_t first_prv = 2 + spec.n_pub_in;
  for (uint32_t i = 2; i < first_prv; ++i) w[i] = random_fr<Fr>(rng);
  for (uint32_t i = 0; i < spec.n_prv_in; ++i) {
    w[first_prv + i] = i < spec.n_prv_in / 2 ? Fr::from_u64(rng() & 1) : random_fr<Fr>(rng);
  }
  for (size_t c = 0; c < r.header.n_constraints; ++c) {
    if (circuit.defines[c] >= 0) w[size_t(circuit.defines[c])] = r.a.dot(c, w) * r.b.dot(c, w);
  }
  return w;
}

#define PP_SYNTHETIC(C)                                                                  \
  template Result<SyntheticCircuitT<C>> make_synthetic_circuit<C>(const SyntheticSpec&); \
  template std::vector<C::Fr> synthetic_witness(const SyntheticCircuitT<C>&, const SyntheticSpec&, uint32_t);
PP_SYNTHETIC(curves::Bls12_381)
PP_SYNTHETIC(curves::Bn254)
#undef PP_SYNTHETIC

}  // namespace proofpipe::groth16
