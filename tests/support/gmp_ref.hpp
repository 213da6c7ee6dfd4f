// Conversions between limb arrays / field elements and GMP integers: the
// independent reference the field and curve tests compare against.
#pragma once

#include <gmpxx.h>

#include "proofpipe/ff/field.hpp"

namespace proofpipe::test {

template <size_t N>
mpz_class to_mpz(const ff::Limbs<N>& l) {
  mpz_class z;
  mpz_import(z.get_mpz_t(), N, -1, sizeof(uint64_t), 0, 0, l.data());
  return z;
}

template <size_t N>
ff::Limbs<N> from_mpz(const mpz_class& z) {
  ff::Limbs<N> l{};
  size_t count = 0;
  mpz_export(l.data(), &count, -1, sizeof(uint64_t), 0, 0, z.get_mpz_t());
  return l;
}

// Canonical value of a field element as a GMP integer.
template <class F>
mpz_class value_of(const F& f) {
  return to_mpz<F::N>(f.to_canonical());
}

template <class F>
F field_of(const mpz_class& z) {
  return F::from_canonical(from_mpz<F::N>(z));
}

template <class F>
mpz_class modulus_of() {
  return to_mpz<F::N>(F::C::kP);
}

}  // namespace proofpipe::test
