// The vector layer of the CPU kernels for AVX-512 (F, BW, VL, DQ; VNNI at level 3, BF16 at
// level 4). Included by cpu_simd.h inside the ISA's namespace; every function has internal
// linkage so that no copy compiled for this ISA can stand in for another's.
//
// Vectors hold kLanes 32-bit lanes (f32 or s32). Tails are masked: a masked load reads only
// the lanes asked for (no fault past the end of a buffer) and zeroes the rest.

constexpr int kLanes = 16;
using VF = __m512;
using VI = __m512i;
using Mask = __mmask16;

inline Mask first_lanes(int n) { return n >= 16 ? Mask(0xffff) : Mask((1u << (n < 0 ? 0 : n)) - 1u); }

inline VF zero_f() { return _mm512_setzero_ps(); }
inline VI zero_i() { return _mm512_setzero_si512(); }
inline VF set1_f(float x) { return _mm512_set1_ps(x); }
inline VI set1_i(std::int32_t x) { return _mm512_set1_epi32(x); }
inline VF as_f(VI v) { return _mm512_castsi512_ps(v); }
inline VI as_i(VF v) { return _mm512_castps_si512(v); }

inline VF load_f(const float* p) { return _mm512_loadu_ps(p); }
inline VF load_f(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
inline void store_f(float* p, VF v) { _mm512_storeu_ps(p, v); }
inline void store_f(float* p, VF v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
inline VI load_i(const void* p) { return _mm512_loadu_si512(p); }
inline VI load_i(const void* p, Mask m) { return _mm512_maskz_loadu_epi32(m, p); }
inline void store_i(void* p, VI v) { _mm512_storeu_si512(p, v); }
inline void store_i(void* p, VI v, Mask m) { _mm512_mask_storeu_epi32(p, m, v); }
// One 32-bit word broadcast to every lane.
inline VI bcast_word(const void* p) {
  std::int32_t w;
  __builtin_memcpy(&w, p, 4);
  return _mm512_set1_epi32(w);
}

inline VF fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
inline VF add_f(VF a, VF b) { return _mm512_add_ps(a, b); }
inline VF mul_f(VF a, VF b) { return _mm512_mul_ps(a, b); }
inline VI add_i(VI a, VI b) { return _mm512_add_epi32(a, b); }
inline VI sub_i(VI a, VI b) { return _mm512_sub_epi32(a, b); }
inline VI mul_i(VI a, VI b) { return _mm512_mullo_epi32(a, b); }
inline VI xor_i(VI a, VI b) { return _mm512_xor_si512(a, b); }
inline VI or_i(VI a, VI b) { return _mm512_or_si512(a, b); }
inline VI and_i(VI a, VI b) { return _mm512_and_si512(a, b); }
template <int N> inline VI shl_i(VI a) { return _mm512_slli_epi32(a, N); }
inline float reduce_f(VF v) { return _mm512_reduce_add_ps(v); }
// Lane r of the result is the sum of the lanes of v[r] (16 sums in 46 instructions, where 16
// separate reductions take over a hundred): halve the width twice across 128-bit chunks,
// twice within them, then put the sums in order.
inline VF reduce_lanes(const VF (&v)[16]) {
  VF w[8], x[4], y[2];
  for (int i = 0; i < 8; ++i) {
    w[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44), _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xee));
  }
  for (int i = 0; i < 4; ++i) {
    x[i] = _mm512_add_ps(_mm512_shuffle_f32x4(w[2 * i], w[2 * i + 1], 0x88), _mm512_shuffle_f32x4(w[2 * i], w[2 * i + 1], 0xdd));
  }
  for (int i = 0; i < 2; ++i) {
    y[i] = _mm512_add_ps(_mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]), _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]));
  }
  const VF z = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(y[0]), _mm512_castps_pd(y[1]))),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(y[0]), _mm512_castps_pd(y[1]))));
  // Lane 4c + j of z holds the sum of v[4j + c].
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), z);
}
inline std::int32_t reduce_i(VI v) { return _mm512_reduce_add_epi32(v); }

// acc + (a.lo·b.lo + a.hi·b.hi) over the s16 halves of each lane: exact for s8-derived values.
inline VI madd16(VI acc, VI a, VI b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
// The two dot-product instructions are written as inline assembly with the accumulator as a
// read-write operand: GCC 12 compiles their intrinsics with a copy of the accumulator per
// instruction (and spills the copies), which halves the throughput of a register tile.
#if GEMMTUNE_ISA_LEVEL >= 3
// acc + Σ of the four u8(a)·s8(b) byte products of each lane (VNNI), wrapping like s32.
inline VI dpbusd(VI acc, VI a_u8, VI b_s8) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a_u8), "vm"(b_s8));
  return acc;
}
#endif
#if GEMMTUNE_ISA_LEVEL >= 4
// acc + a.lo·b.lo + a.hi·b.hi over the bf16 halves of each lane (AVX512_BF16).
inline VF dpbf16(VF acc, VI a, VI b) {
  asm("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
  return acc;
}
#endif

// ---- n elements (n ≤ kLanes) of a storage type into 32-bit lanes; lanes ≥ n are zero. ----
inline VF lanes_f32(const float* p, int n) { return _mm512_maskz_loadu_ps(first_lanes(n), p); }
inline VF lanes_f16(const std::uint16_t* p, int n) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first_lanes(n), p));
}
inline VI lanes_u16(const std::uint16_t* p, int n) {
  return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first_lanes(n), p));
}
inline VF lanes_bf16(const std::uint16_t* p, int n) { return as_f(_mm512_slli_epi32(lanes_u16(p, n), 16)); }
inline VI lanes_s8(const std::int8_t* p, int n) {
  return _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(first_lanes(n), p));
}
inline VI lanes_u8(const std::int8_t* p, int n) {
  return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(first_lanes(n), p));
}
// `bytes` (≤ 4·kLanes) raw bytes; the rest zero.
inline VI raw_bytes(const void* p, int bytes) {
  const __mmask64 m = bytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << bytes) - 1;
  return _mm512_maskz_loadu_epi8(m, p);
}
// n (≤ 2·kLanes) s8 values widened to s16, two per lane.
inline VI s8_pairs(const std::int8_t* p, int n) {
  const __mmask32 m = n >= 32 ? ~__mmask32(0) : (__mmask32(1) << n) - 1;
  return _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, p));
}

// ---- stores of the first n lanes, converting from f32 / s32 ----
inline void store_lanes_f32(float* p, VF v, int n) { _mm512_mask_storeu_ps(p, first_lanes(n), v); }
inline void store_lanes_s32(std::int32_t* p, VI v, int n) { _mm512_mask_storeu_epi32(p, first_lanes(n), v); }
inline void store_lanes_f16(std::uint16_t* p, VF v, int n) {
  _mm256_mask_storeu_epi16(p, first_lanes(n), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
// Round to nearest even like the scalar float_to_bf16_bits; NaN stays a (quiet) NaN.
inline void store_lanes_bf16(std::uint16_t* p, VF v, int n) {
  const VI bits = as_i(v);
  const VI lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  const VI rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)),
                                                _mm512_set1_epi32(0x7f800000));
  const VI quiet = _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40));
  _mm256_mask_storeu_epi16(p, first_lanes(n), _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet)));
}

// rows[i] lane j ↔ rows[j] lane i, for the 16 × 16 words of 32 bits: 32-bit interleave, 64-bit
// interleave, then two rounds of 128-bit lane shuffles.
inline void transpose(VI (&r)[kLanes]) {
  VI t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // u[4j + c], 128-bit lane L: column 4L + c of rows 4j .. 4j+3.
  for (int j = 0; j < 4; ++j) {
    u[4 * j + 0] = _mm512_unpacklo_epi64(t[4 * j], t[4 * j + 2]);
    u[4 * j + 1] = _mm512_unpackhi_epi64(t[4 * j], t[4 * j + 2]);
    u[4 * j + 2] = _mm512_unpacklo_epi64(t[4 * j + 1], t[4 * j + 3]);
    u[4 * j + 3] = _mm512_unpackhi_epi64(t[4 * j + 1], t[4 * j + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const VI v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88), v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
    const VI w0 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88), w1 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
    r[c] = _mm512_shuffle_i32x4(v0, w0, 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(v0, w0, 0xdd);
    r[4 + c] = _mm512_shuffle_i32x4(v1, w1, 0x88);
    r[12 + c] = _mm512_shuffle_i32x4(v1, w1, 0xdd);
  }
}

inline float scalar_f16(std::uint16_t h) { return _cvtsh_ss(h); }
// Always inlined: __builtin_prefetch has no side effects GCC must keep, so an out-of-line wrapper is
// judged a const function and its calls removed as dead code.
__attribute__((always_inline)) inline void prefetch_l1(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
// Into L2 only: for lines needed a few thousand cycles later, which L1 would evict first.
__attribute__((always_inline)) inline void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
