// x86-64 kernels for lazy reduction in Fq2: the NxN -> 2N-limb product, the
// separate Montgomery reduction 2N -> N limbs (N = 6 for BLS12-381, 4 for
// BN254), and the Fq2 product built on them (Karatsuba with two reductions
// instead of three multiplications' three). Host only, BMI2 + ADX; Fq2::operator* calls fq2_mul_lazy there and
// its Karatsuba over Fq elsewhere (device code, constant evaluation), which
// is also the reference it is tested against (tests/core/fq2_mul_test.cpp).
//
// Included by mont_x86.hpp, inside its namespace and before its #undefs: it
// uses that file's row and reduction macros (PPX_ROW0_N, PPX_ROW_N,
// PPX_RED_N, PPX_CSUB_N) and operand lists.
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

// r[0..8) = a * b for any 4-limb a, b: the rows of mont_mul_4 without its
// reduction steps, the window as in mul_wide_6 (5 registers: after row i it
// holds limbs i..i+4 of a * (b mod 2^(64(i+1))) < 2^(64(i+5))).
PPX_INLINE void mul_wide_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(a, 4), PPX_ASM_READS(b, 4);
  uint64_t t0, t1, t2, t3, t4, lo, hi, dx, l0, l1, l2;
  __asm__(
      // clang-format off
      PPX_ROW0_4(t0, t1, t2, t3, t4)
      "movq %[t0], %[l0]\n\t"
      PPX_ROW_4("8", t1, t2, t3, t4, t0)
      "movq %[t1], %[l1]\n\t"
      PPX_ROW_4("16", t2, t3, t4, t0, t1)
      "movq %[t2], %[l2]\n\t"
      PPX_ROW_4("24", t3, t4, t0, t1, t2)
      // clang-format on
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [dx] "=&d"(dx), [l0] "=m"(l0), [l1] "=m"(l1), [l2] "=m"(l2)
      : [a] "r"(a), [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[4]>(b))
      : "cc");
  r[0] = l0;
  r[1] = l1;
  r[2] = l2;
  r[3] = t3;
  r[4] = t4;
  r[5] = t0;
  r[6] = t1;
  r[7] = t2;
}

// r = x / 2^256 mod p for x < p * 2^256, as redc_6: q = (x_lo + m p) / 2^256
// <= p, plus x_hi < p, below 2p < 2^256; one conditional subtraction.
template <class K>
PPX_INLINE void redc_4(uint64_t* r, const uint64_t* x) {
  PPX_ASM_READS(x, 8);
  uint64_t t0, t1, t2, t3, t4, lo, hi, dx;
  __asm__(
      // clang-format off
      "movq 0(%[x]), %[t0]\n\t"
      "movq 8(%[x]), %[t1]\n\t"
      "movq 16(%[x]), %[t2]\n\t"
      "movq 24(%[x]), %[t3]\n\t"
      "xorl %k[t4], %k[t4]\n\t"
      PPX_RED_4(t0, t1, t2, t3, t4)
      PPX_RED_4(t1, t2, t3, t4, t0)
      PPX_RED_4(t2, t3, t4, t0, t1)
      PPX_RED_4(t3, t4, t0, t1, t2)
      // q = (t4, t0, t1, t2) <= p; t3 = 0.
      "addq 32(%[x]), %[t4]\n\t"
      "adcq 40(%[x]), %[t0]\n\t"
      "adcq 48(%[x]), %[t1]\n\t"
      "adcq 56(%[x]), %[t2]\n\t"
      PPX_CSUB_4(t4, t0, t1, t2, lo, hi, dx, t3)
      // clang-format on
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [dx] "=&d"(dx)
      : [x] "r"(x), "m"(*reinterpret_cast<const uint64_t(*)[8]>(x)), PPX_MOD_OPERANDS_4(K)
      : "cc");
  r[0] = t4;
  r[1] = t0;
  r[2] = t1;
  r[3] = t2;
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
// limbs in and out, the same limbs as the Karatsuba over Fq products, for
// N = 6 or 4 limbs and 2p < 2^(64N) (p < 2^381, BN254's p < 2^254):
//   v0 = a0 b0, v1 = a1 b1 (each < p^2), s = (a0 + a1)(b0 + b1) < 4p^2,
//   c1 = s - v0 - v1 = a0 b1 + a1 b0 in [0, 2p^2), and 2p^2 < p 2^(64N);
//   c0 = v0 - v1 in (-p^2, p^2): when it borrows, p 2^(64N) (p on the high
//        half) is added, which REDC maps to 0 mod p; the sum lies in
//        [0, p 2^(64N)) because p^2 < p 2^(64N).
// Three N^2-product multiplications and two N^2-product reductions, against
// three 2N^2-product Montgomery multiplications. Outputs may alias inputs.
// Not inlined: inlined into the G2 bucket flush (5 Fq2 products per add) its
// 288 bytes of stack temporaries made the batch add slower than Karatsuba
// (714 vs 685 ns per add, 2^17 adds into 2^12 buckets); as a call, 593 vs
// 697 ns. In one field_bench run: 84 vs 93 ns per Fq2 product with 8 in
// flight (fq2_mul, fq2_mul_karatsuba), equal in one dependent chain; G2 MSM
// at 2^16 (msm_bench, 2 threads) 12.4 vs 14.7 us of CPU per point.
template <class K>
inline constexpr bool kFq2LazyApplies = (K::kP.size() == 6 || K::kP.size() == 4) && (K::kP.back() >> 63) == 0;

template <class K>
__attribute__((noinline)) inline void fq2_mul_lazy(uint64_t* c0, uint64_t* c1, const uint64_t* a0, const uint64_t* a1,
                                                   const uint64_t* b0, const uint64_t* b1) {
  static_assert(kFq2LazyApplies<K>, "fq2_mul_lazy: 4 or 6 limbs and 2p < 2^(64N)");
  constexpr size_t N = K::kP.size();
  const auto mul_wide = [](uint64_t* r, const uint64_t* a, const uint64_t* b) {
    if constexpr (N == 6) {
      mul_wide_6(r, a, b);
    } else {
      mul_wide_4(r, a, b);
    }
  };
  const auto redc = [](uint64_t* r, const uint64_t* x) {
    if constexpr (N == 6) {
      redc_6<K>(r, x);
    } else {
      redc_4<K>(r, x);
    }
  };
  uint64_t v0[2 * N], v1[2 * N], s[2 * N], sa[N], sb[N];
  for (size_t i = 0; i < N; ++i) {
    sa[i] = a0[i];
    sb[i] = b0[i];
  }
  wide_sub<N, true>(sa, a1);  // < 2p < 2^(64N): no carry out
  wide_sub<N, true>(sb, b1);
  mul_wide(v0, a0, b0);
  mul_wide(v1, a1, b1);
  mul_wide(s, sa, sb);
  wide_sub<2 * N>(s, v0);
  wide_sub<2 * N>(s, v1);
  const uint64_t mask = uint64_t(0) - wide_sub<2 * N>(v0, v1);
  uint64_t pm[N];
  for (size_t i = 0; i < N; ++i) pm[i] = K::kP[i] & mask;
  wide_sub<N, true>(v0 + N, pm);
  redc(c0, v0);
  redc(c1, s);
}
