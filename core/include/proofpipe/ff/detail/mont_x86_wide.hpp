// x86-64 kernels for lazy reduction in Fq2: the 6x6 -> 12-limb product, the
// separate Montgomery reduction 12 -> 6 limbs, and the Fq2 product built on
// them (Karatsuba with two reductions instead of three multiplications'
// three). Host only, BMI2 + ADX; Fq2::operator* calls fq2_mul_lazy there and
// its Karatsuba over Fq elsewhere (device code, constant evaluation), which
// is also the reference it is tested against (tests/property/fq2_lazy_test).
//
// Included by mont_x86.hpp, inside its namespace and before its #undefs: it
// uses that file's row and reduction macros (PPX_ROW0_6, PPX_ROW_6,
// PPX_RED_6, PPX_CSUB_6) and operand lists.
#pragma once

#if !defined(PPX_RED_6)
#error "mont_x86_wide.hpp is included by mont_x86.hpp only"
#endif

// r[0..12) = a * b for any 6-limb a, b (schoolbook, the product's rows of
// mont_mul_6 without the reduction steps). After row i the 7-register
// window holds limbs i..i+6 of a * (b mod 2^(64(i+1))) < 2^(64(i+7)): no
// carry leaves it; its lowest limb is final. Limbs 0..4 go to locals as
// memory operands (frame-relative, no register), not through r: a pointer
// for r would be a 13th general register, more than -O0 with a frame
// pointer can give (parking them in xmm registers instead cost ~10% of the
// lazy Fq2 product).
PPX_INLINE void mul_wide_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(a, 6), PPX_ASM_READS(b, 6);
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx, l0, l1, l2, l3, l4;
  __asm__(
      // clang-format off
      PPX_ROW0_6(t0, t1, t2, t3, t4, t5, t6)
      "movq %[t0], %[l0]\n\t"
      PPX_ROW_6("8", t1, t2, t3, t4, t5, t6, t0)
      "movq %[t1], %[l1]\n\t"
      PPX_ROW_6("16", t2, t3, t4, t5, t6, t0, t1)
      "movq %[t2], %[l2]\n\t"
      PPX_ROW_6("24", t3, t4, t5, t6, t0, t1, t2)
      "movq %[t3], %[l3]\n\t"
      PPX_ROW_6("32", t4, t5, t6, t0, t1, t2, t3)
      "movq %[t4], %[l4]\n\t"
      PPX_ROW_6("40", t5, t6, t0, t1, t2, t3, t4)
      // clang-format on
      : PPX_WINDOW_OUTPUTS_6, [l0] "=m"(l0), [l1] "=m"(l1), [l2] "=m"(l2), [l3] "=m"(l3), [l4] "=m"(l4)
      : [a] "r"(a), [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
      : "cc");
  store_6(r, l0, l1, l2, l3, l4, t5);
  store_6(r + 6, t6, t0, t1, t2, t3, t4);
}

// r = x / 2^384 mod p, fully reduced, for x < p * 2^384 (Montgomery
// reduction, Montgomery 1985). Reduces the low half alone, q = (x_lo + m p)
// / 2^384 <= p, by the six reduction steps of mont_mul_6 (window < 2^448 as
// there), then adds the high half x_hi < p: q + x_hi < 2p, and one
// conditional subtraction finishes.
template <class K>
PPX_INLINE void redc_6(uint64_t* r, const uint64_t* x) {
  PPX_ASM_READS(x, 12);
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx, s;
  const uint64_t* px = x;
  __asm__(
      // clang-format off
      "movq 0(%[x]), %[t0]\n\t"
      "movq 8(%[x]), %[t1]\n\t"
      "movq 16(%[x]), %[t2]\n\t"
      "movq 24(%[x]), %[t3]\n\t"
      "movq 32(%[x]), %[t4]\n\t"
      "movq 40(%[x]), %[t5]\n\t"
      "xorl %k[t6], %k[t6]\n\t"
      PPX_RED_6(t0, t1, t2, t3, t4, t5, t6)
      PPX_RED_6(t1, t2, t3, t4, t5, t6, t0)
      PPX_RED_6(t2, t3, t4, t5, t6, t0, t1)
      PPX_RED_6(t3, t4, t5, t6, t0, t1, t2)
      PPX_RED_6(t4, t5, t6, t0, t1, t2, t3)
      PPX_RED_6(t5, t6, t0, t1, t2, t3, t4)
      // q = (t6, t0, t1, t2, t3, t4) <= p; t5 = 0.
      "addq 48(%[x]), %[t6]\n\t"
      "adcq 56(%[x]), %[t0]\n\t"
      "adcq 64(%[x]), %[t1]\n\t"
      "adcq 72(%[x]), %[t2]\n\t"
      "adcq 80(%[x]), %[t3]\n\t"
      "adcq 88(%[x]), %[t4]\n\t"
      PPX_CSUB_6(t6, t0, t1, t2, t3, t4, lo, hi, dx, t5, x, s)
      // clang-format on
      : PPX_WINDOW_OUTPUTS_6, [s] "=&r"(s), [x] "+&r"(px)
      : "m"(*reinterpret_cast<const uint64_t(*)[12]>(x)), PPX_MOD_OPERANDS_6(K)
      : "cc");
  store_6(r, t6, t0, t1, t2, t3, t4);
}

// a -= b over N limbs (a += b when kAdd); returns the borrow (carry) out.
template <size_t N, bool kAdd = false>
PPX_INLINE unsigned char wide_sub(uint64_t* a, const uint64_t* b) {
  unsigned char c = 0;
  for (size_t i = 0; i < N; ++i) {
    unsigned long long t;
    c = kAdd ? _addcarry_u64(c, a[i], b[i], &t) : _subborrow_u64(c, a[i], b[i], &t);
    a[i] = t;
  }
  return c;
}

// (c0, c1) = (a0 + a1 u)(b0 + b1 u) in Fq2 = Fq[u]/(u^2 + 1), Montgomery
// limbs in and out, the same limbs as the Karatsuba over Fq products:
//   v0 = a0 b0, v1 = a1 b1 (each < p^2), s = (a0 + a1)(b0 + b1) < 4p^2,
//   c1 = s - v0 - v1 = a0 b1 + a1 b0 in [0, 2p^2), and 2p^2 < p 2^384
//        since p < 2^381;
//   c0 = v0 - v1 in (-p^2, p^2): when it borrows, p 2^384 (p on the high
//        half) is added, which REDC maps to 0 mod p; the sum lies in
//        [0, p 2^384) because p^2 < p 2^384.
// Three 36-product multiplications and two 36-product reductions, against
// three 72-product Montgomery multiplications. Outputs may alias inputs.
// Not inlined: inlined into the G2 bucket flush (5 Fq2 products per add) its
// 288 bytes of stack temporaries made the batch add slower than Karatsuba
// (714 vs 685 ns per add, 2^17 adds into 2^12 buckets); as a call, 593 vs
// 697 ns. In one field_bench run: 84 vs 93 ns per Fq2 product with 8 in
// flight (fq2_mul, fq2_mul_karatsuba), equal in one dependent chain; G2 MSM
// at 2^16 (msm_bench, 2 threads) 12.4 vs 14.7 us of CPU per point.
template <class K>
__attribute__((noinline)) inline void fq2_mul_lazy(uint64_t* c0, uint64_t* c1, const uint64_t* a0, const uint64_t* a1,
                                                   const uint64_t* b0, const uint64_t* b1) {
  uint64_t v0[12], v1[12], s[12], sa[6], sb[6];
  for (size_t i = 0; i < 6; ++i) {
    sa[i] = a0[i];
    sb[i] = b0[i];
  }
  wide_sub<6, true>(sa, a1);  // < 2p < 2^382: no carry out
  wide_sub<6, true>(sb, b1);
  mul_wide_6(v0, a0, b0);
  mul_wide_6(v1, a1, b1);
  mul_wide_6(s, sa, sb);
  wide_sub<12>(s, v0);
  wide_sub<12>(s, v1);
  const uint64_t mask = uint64_t(0) - wide_sub<12>(v0, v1);
  uint64_t pm[6];
  for (size_t i = 0; i < 6; ++i) pm[i] = K::kP[i] & mask;
  wide_sub<6, true>(v0 + 6, pm);
  redc_6<K>(c0, v0);
  redc_6<K>(c1, s);
}
