// Internal to pp_core: the scalar fields the NTT is instantiated for
// (core/src/ntt*.cpp), so one list decides which fields have transforms.
#pragma once

#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"

// X(field type) once per field: BLS12-381's Fr, BN254's Fr.
#define PP_NTT_FOR_EACH_FIELD(X) \
  X(::proofpipe::bls12_381::Fr)  \
  X(::proofpipe::bn254::Fr)
