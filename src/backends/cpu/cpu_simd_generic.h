// The vector layer of the CPU kernels without ISA flags: GCC vector extensions of 16 bytes
// (SSE2 on x86-64, whatever the target has elsewhere) and plain loops for masks, conversions
// and shuffles. It is the correctness fallback, not a fast path (see cpu_simd_avx512.h for
// the contract).

constexpr int kLanes = 4;
typedef float VF __attribute__((vector_size(16)));
typedef std::int32_t VI __attribute__((vector_size(16)));
using Mask = int;  // the number of leading lanes selected

inline Mask first_lanes(int n) { return n < 0 ? 0 : (n > kLanes ? kLanes : n); }

inline VF zero_f() { return VF{}; }
inline VI zero_i() { return VI{}; }
inline VF set1_f(float x) { return VF{} + x; }
inline VI set1_i(std::int32_t x) { return VI{} + x; }
inline VF as_f(VI v) {
  VF f;
  __builtin_memcpy(&f, &v, sizeof f);
  return f;
}
inline VI as_i(VF v) {
  VI i;
  __builtin_memcpy(&i, &v, sizeof i);
  return i;
}

inline VF load_f(const float* p) {
  VF v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline VF load_f(const float* p, Mask m) {
  VF v{};
  for (int l = 0; l < m; ++l) v[l] = p[l];
  return v;
}
inline void store_f(float* p, VF v) { __builtin_memcpy(p, &v, sizeof v); }
inline void store_f(float* p, VF v, Mask m) {
  for (int l = 0; l < m; ++l) p[l] = v[l];
}
inline VI load_i(const void* p) {
  VI v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline VI load_i(const void* p, Mask m) {
  VI v{};
  __builtin_memcpy(&v, p, std::size_t(m) * 4);
  return v;
}
inline void store_i(void* p, VI v) { __builtin_memcpy(p, &v, sizeof v); }
inline void store_i(void* p, VI v, Mask m) { __builtin_memcpy(p, &v, std::size_t(m) * 4); }
inline VI bcast_word(const void* p) {
  std::int32_t w;
  __builtin_memcpy(&w, p, 4);
  return VI{} + w;
}

inline VF fma(VF a, VF b, VF c) { return a * b + c; }
inline VF add_f(VF a, VF b) { return a + b; }
inline VF mul_f(VF a, VF b) { return a * b; }
// Integer arithmetic wraps: the kernels are compiled with -fwrapv.
inline VI add_i(VI a, VI b) { return a + b; }
inline VI sub_i(VI a, VI b) { return a - b; }
inline VI mul_i(VI a, VI b) { return a * b; }
inline VI xor_i(VI a, VI b) { return a ^ b; }
inline VI or_i(VI a, VI b) { return a | b; }
inline VI and_i(VI a, VI b) { return a & b; }
template <int N> inline VI shl_i(VI a) { return a << N; }
inline float reduce_f(VF v) { return (v[0] + v[1]) + (v[2] + v[3]); }
// Lane r of the result is the sum of the lanes of v[r].
inline VF reduce_lanes(const VF (&v)[kLanes]) {
  alignas(64) float sums[kLanes];
  for (int r = 0; r < kLanes; ++r) sums[r] = reduce_f(v[r]);
  return load_f(sums);
}
inline std::int32_t reduce_i(VI v) { return (v[0] + v[1]) + (v[2] + v[3]); }
inline VI madd16(VI acc, VI a, VI b) {
  // Sign-extended low and high halves of each lane.
  const VI a_lo = (a << 16) >> 16, b_lo = (b << 16) >> 16;
  const VI a_hi = a >> 16, b_hi = b >> 16;
  return acc + a_lo * b_lo + a_hi * b_hi;
}

inline VF lanes_f32(const float* p, int n) { return load_f(p, first_lanes(n)); }
inline VF lanes_f16(const std::uint16_t* p, int n) {
  VF v{};
  for (int l = 0; l < first_lanes(n); ++l) v[l] = f16_load(p[l]);
  return v;
}
inline VI lanes_u16(const std::uint16_t* p, int n) {
  VI v{};
  for (int l = 0; l < first_lanes(n); ++l) v[l] = p[l];
  return v;
}
inline VF lanes_bf16(const std::uint16_t* p, int n) { return as_f(lanes_u16(p, n) << 16); }
inline VI lanes_s8(const std::int8_t* p, int n) {
  VI v{};
  for (int l = 0; l < first_lanes(n); ++l) v[l] = p[l];
  return v;
}
inline VI lanes_u8(const std::int8_t* p, int n) {
  VI v{};
  for (int l = 0; l < first_lanes(n); ++l) v[l] = std::uint8_t(p[l]);
  return v;
}
inline VI raw_bytes(const void* p, int bytes) {
  VI v{};
  __builtin_memcpy(&v, p, std::size_t(bytes < 0 ? 0 : (bytes > 16 ? 16 : bytes)));
  return v;
}
inline VI s8_pairs(const std::int8_t* p, int n) {
  std::int16_t halves[2 * kLanes] = {};
  for (int i = 0; i < n && i < 2 * kLanes; ++i) halves[i] = p[i];
  VI v;
  __builtin_memcpy(&v, halves, sizeof v);
  return v;
}

inline void store_lanes_f32(float* p, VF v, int n) { store_f(p, v, first_lanes(n)); }
inline void store_lanes_s32(std::int32_t* p, VI v, int n) { store_i(p, v, first_lanes(n)); }
inline void store_lanes_f16(std::uint16_t* p, VF v, int n) {
  for (int l = 0; l < first_lanes(n); ++l) p[l] = f16_store(v[l]);
}
inline void store_lanes_bf16(std::uint16_t* p, VF v, int n) {
  for (int l = 0; l < first_lanes(n); ++l) p[l] = float_to_bf16_bits(v[l]);
}

inline void transpose(VI (&r)[kLanes]) {
  for (int i = 0; i < kLanes; ++i) {
    for (int j = i + 1; j < kLanes; ++j) {
      const std::int32_t t = r[i][j];
      r[i][j] = r[j][i];
      r[j][i] = t;
    }
  }
}

inline float scalar_f16(std::uint16_t h) { return f16_load(h); }
// Always inlined: __builtin_prefetch has no side effects GCC must keep, so an out-of-line wrapper is
// judged a const function and its calls removed as dead code.
__attribute__((always_inline)) inline void prefetch_l1(const void* p) { __builtin_prefetch(p, 0, 3); }
// Into L2 only: for lines needed a few thousand cycles later, which L1 would evict first.
__attribute__((always_inline)) inline void prefetch_l2(const void* p) { __builtin_prefetch(p, 0, 2); }
