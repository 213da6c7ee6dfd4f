// The two curves as types: everything a curve-generic layer (formats,
// groth16) needs from one name, each aliasing its curve's namespace
// (bls12_381::, bn254::). Code written once takes `class C` and is
// instantiated for Bls12_381 and Bn254; no file is copied with constants
// swapped, and no template picks a curve by default: callers name it.
#pragma once

#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"
#include "proofpipe/pairing/bls12_381.hpp"
#include "proofpipe/pairing/bn254.hpp"

namespace proofpipe::curves {

struct Bls12_381 {
  // snarkjs's name (the "curve" field of its JSON files).
  static constexpr std::string_view kName = "bls12381";
  using FqParams = bls12_381::FqParams;
  using FrParams = bls12_381::FrParams;
  using Fq = bls12_381::Fq;
  using Fr = bls12_381::Fr;
  using Fq2 = bls12_381::Fq2;
  using Fq12 = bls12_381::Fq12;
  using G1Cfg = bls12_381::G1Cfg;
  using G2Cfg = bls12_381::G2Cfg;
  using G1Affine = bls12_381::G1Affine;
  using G1 = bls12_381::G1;
  using G2Affine = bls12_381::G2Affine;
  using G2 = bls12_381::G2;
  using G1G2Pair = bls12_381::G1G2Pair;
  template <class Cfg>
  static bool in_subgroup(const ec::Affine<Cfg>& a) {
    return bls12_381::in_subgroup(a);
  }
  static G1Affine g1_generator() { return bls12_381::g1_generator(); }
  static G2Affine g2_generator() { return bls12_381::g2_generator(); }
  static Fq12 pairing(const G1Affine& p, const G2Affine& q) { return bls12_381::pairing(p, q); }
  static bool pairing_product_is_one(std::span<const G1G2Pair> pairs) {
    return bls12_381::pairing_product_is_one(pairs);
  }
};

struct Bn254 {
  static constexpr std::string_view kName = "bn128";
  using FqParams = bn254::FqParams;
  using FrParams = bn254::FrParams;
  using Fq = bn254::Fq;
  using Fr = bn254::Fr;
  using Fq2 = bn254::Fq2;
  using Fq12 = bn254::Fq12;
  using G1Cfg = bn254::G1Cfg;
  using G2Cfg = bn254::G2Cfg;
  using G1Affine = bn254::G1Affine;
  using G1 = bn254::G1;
  using G2Affine = bn254::G2Affine;
  using G2 = bn254::G2;
  using G1G2Pair = bn254::G1G2Pair;
  template <class Cfg>
  static bool in_subgroup(const ec::Affine<Cfg>& a) {
    return bn254::in_subgroup(a);
  }
  static G1Affine g1_generator() { return bn254::g1_generator(); }
  static G2Affine g2_generator() { return bn254::g2_generator(); }
  static Fq12 pairing(const G1Affine& p, const G2Affine& q) { return bn254::pairing(p, q); }
  static bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return bn254::pairing_product_is_one(pairs); }
};

// Which curve a file or request names, at run time.
enum class CurveId : uint8_t { kBls12_381, kBn254 };
inline std::string_view curve_name(CurveId c) { return c == CurveId::kBn254 ? Bn254::kName : Bls12_381::kName; }

// Calls f(C{}) with the curve type for `id`: the one switch from a run-time
// curve to the templates.
template <class F>
decltype(auto) with_curve(CurveId id, F&& f) {
  if (id == CurveId::kBn254) return f(Bn254{});
  return f(Bls12_381{});
}

// with_curve's inverse: the id of curve type C.
template <class C>
constexpr CurveId curve_id() {
  static_assert(std::is_same_v<C, Bls12_381> || std::is_same_v<C, Bn254>, "curve_id: not a curve type");
  return std::is_same_v<C, Bn254> ? CurveId::kBn254 : CurveId::kBls12_381;
}

}  // namespace proofpipe::curves
