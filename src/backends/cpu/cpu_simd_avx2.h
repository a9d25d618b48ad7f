// The vector layer of the CPU kernels for AVX2 + FMA + F16C (see cpu_simd_avx512.h for the
// contract). AVX2 masks 32-bit lanes only (vmaskmov); narrower tails go through a small
// zeroed buffer, which only edges of a tile pay.

constexpr int kLanes = 8;
using VF = __m256;
using VI = __m256i;
using Mask = __m256i;  // lane i is all ones when it is selected

inline Mask first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline VF zero_f() { return _mm256_setzero_ps(); }
inline VI zero_i() { return _mm256_setzero_si256(); }
inline VF set1_f(float x) { return _mm256_set1_ps(x); }
inline VI set1_i(std::int32_t x) { return _mm256_set1_epi32(x); }
inline VF as_f(VI v) { return _mm256_castsi256_ps(v); }
inline VI as_i(VF v) { return _mm256_castps_si256(v); }

inline VF load_f(const float* p) { return _mm256_loadu_ps(p); }
inline VF load_f(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
inline void store_f(float* p, VF v) { _mm256_storeu_ps(p, v); }
inline void store_f(float* p, VF v, Mask m) { _mm256_maskstore_ps(p, m, v); }
inline VI load_i(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline VI load_i(const void* p, Mask m) { return _mm256_maskload_epi32(static_cast<const int*>(p), m); }
inline void store_i(void* p, VI v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
inline void store_i(void* p, VI v, Mask m) { _mm256_maskstore_epi32(static_cast<int*>(p), m, v); }
inline VI bcast_word(const void* p) {
  std::int32_t w;
  __builtin_memcpy(&w, p, 4);
  return _mm256_set1_epi32(w);
}

inline VF fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
inline VF add_f(VF a, VF b) { return _mm256_add_ps(a, b); }
inline VF mul_f(VF a, VF b) { return _mm256_mul_ps(a, b); }
inline VI add_i(VI a, VI b) { return _mm256_add_epi32(a, b); }
inline VI sub_i(VI a, VI b) { return _mm256_sub_epi32(a, b); }
inline VI mul_i(VI a, VI b) { return _mm256_mullo_epi32(a, b); }
inline VI xor_i(VI a, VI b) { return _mm256_xor_si256(a, b); }
inline VI or_i(VI a, VI b) { return _mm256_or_si256(a, b); }
inline VI and_i(VI a, VI b) { return _mm256_and_si256(a, b); }
template <int N> inline VI shl_i(VI a) { return _mm256_slli_epi32(a, N); }
inline float reduce_f(VF v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}
// Lane r of the result is the sum of the lanes of v[r].
inline VF reduce_lanes(const VF (&v)[kLanes]) {
  alignas(64) float sums[kLanes];
  for (int r = 0; r < kLanes; ++r) sums[r] = reduce_f(v[r]);
  return load_f(sums);
}
inline std::int32_t reduce_i(VI v) {
  const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  return _mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1)));
}
inline VI madd16(VI acc, VI a, VI b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }

// `bytes` bytes from p into a zeroed 32-byte block: the one way AVX2 reads a narrow tail.
inline __m256i tail_bytes(const void* p, int bytes) {
  if (bytes >= 32) return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  alignas(32) unsigned char buffer[32] = {};
  if (bytes > 0) __builtin_memcpy(buffer, p, std::size_t(bytes));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(buffer));
}
inline __m128i tail_bytes_128(const void* p, int bytes) {
  if (bytes >= 16) return _mm_loadu_si128(static_cast<const __m128i*>(p));
  alignas(16) unsigned char buffer[16] = {};
  if (bytes > 0) __builtin_memcpy(buffer, p, std::size_t(bytes));
  return _mm_load_si128(reinterpret_cast<const __m128i*>(buffer));
}

inline VF lanes_f32(const float* p, int n) { return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, first_lanes(n)); }
inline VF lanes_f16(const std::uint16_t* p, int n) { return _mm256_cvtph_ps(tail_bytes_128(p, 2 * (n > 8 ? 8 : n))); }
inline VI lanes_u16(const std::uint16_t* p, int n) { return _mm256_cvtepu16_epi32(tail_bytes_128(p, 2 * (n > 8 ? 8 : n))); }
inline VF lanes_bf16(const std::uint16_t* p, int n) { return as_f(_mm256_slli_epi32(lanes_u16(p, n), 16)); }
inline __m128i low_8_bytes(const std::int8_t* p, int n) {
  std::int64_t w = 0;
  __builtin_memcpy(&w, p, std::size_t(n >= 8 ? 8 : (n < 0 ? 0 : n)));
  return _mm_cvtsi64_si128(w);
}
inline VI lanes_s8(const std::int8_t* p, int n) { return _mm256_cvtepi8_epi32(low_8_bytes(p, n)); }
inline VI lanes_u8(const std::int8_t* p, int n) { return _mm256_cvtepu8_epi32(low_8_bytes(p, n)); }
inline VI raw_bytes(const void* p, int bytes) { return tail_bytes(p, bytes); }
inline VI s8_pairs(const std::int8_t* p, int n) { return _mm256_cvtepi8_epi16(tail_bytes_128(p, n > 16 ? 16 : n)); }

// The first n 32-bit lanes of v to p, as plain 16-, 8- and 4-byte stores. Not vmaskmov: AMD's
// Zen 2 and 3 run a masked store as microcode, and packing 6-row A panels with one per k step
// was a tenth of a 256³ product on Zen 3 (bench/results/2026-11-29b-cpu-zen3-pack.md).
inline void store_low_lanes(void* p, VI v, int n) {
  auto* out = static_cast<unsigned char*>(p);
  __m128i half = _mm256_castsi256_si128(v);
  if (n >= 4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), half);
    half = _mm256_extracti128_si256(v, 1);
    out += 16;
    n -= 4;
  }
  if (n >= 2) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), half);
    half = _mm_unpackhi_epi64(half, half);
    out += 8;
    n -= 2;
  }
  if (n >= 1) _mm_storeu_si32(out, half);
}
inline void store_lanes_f32(float* p, VF v, int n) {
  if (n >= 8) _mm256_storeu_ps(p, v);
  else store_low_lanes(p, as_i(v), n);
}
inline void store_lanes_s32(std::int32_t* p, VI v, int n) {
  if (n >= 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  else store_low_lanes(p, v, n);
}
inline void store_halves(std::uint16_t* p, __m128i halves, int n) {
  if (n >= 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), halves);
  } else {
    alignas(16) std::uint16_t buffer[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(buffer), halves);
    for (int i = 0; i < n; ++i) p[i] = buffer[i];
  }
}
inline void store_lanes_f16(std::uint16_t* p, VF v, int n) {
  store_halves(p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), n);
}
inline void store_lanes_bf16(std::uint16_t* p, VF v, int n) {
  const VI bits = as_i(v);
  const VI lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const VI rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
  // Signed compare is right here: both sides are below 2^31 after masking the sign.
  const VI nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  const VI quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  const VI words = _mm256_blendv_epi8(rounded, quiet, nan);
  // Pack the low halves of the eight lanes (values < 2^16, so unsigned saturation is exact).
  const __m128i halves = _mm_packus_epi32(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
  store_halves(p, halves, n);
}

// 8 × 8 words: 32-bit interleave, 64-bit interleave, then 128-bit lane exchange.
inline void transpose(VI (&r)[kLanes]) {
  VI t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int j = 0; j < 2; ++j) {
    u[4 * j + 0] = _mm256_unpacklo_epi64(t[4 * j], t[4 * j + 2]);
    u[4 * j + 1] = _mm256_unpackhi_epi64(t[4 * j], t[4 * j + 2]);
    u[4 * j + 2] = _mm256_unpacklo_epi64(t[4 * j + 1], t[4 * j + 3]);
    u[4 * j + 3] = _mm256_unpackhi_epi64(t[4 * j + 1], t[4 * j + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x20);
    r[4 + c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x31);
  }
}

inline float scalar_f16(std::uint16_t h) { return _cvtsh_ss(h); }
// Always inlined: __builtin_prefetch has no side effects GCC must keep, so an out-of-line wrapper is
// judged a const function and its calls removed as dead code.
__attribute__((always_inline)) inline void prefetch_l1(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
// Into L2 only: for lines needed a few thousand cycles later, which L1 would evict first.
__attribute__((always_inline)) inline void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
