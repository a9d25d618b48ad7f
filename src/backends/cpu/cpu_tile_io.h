// What every kernel shares at the edges of its tiles: storage types, reading and writing n
// lanes of C in its dtype, and C = alpha·acc + beta·C in the accumulator's type.
#pragma once

#include <type_traits>

#include "cpu_simd.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

template <DType T> struct Storage;
template <> struct Storage<DType::f32> { using type = float; };
template <> struct Storage<DType::f16> { using type = std::uint16_t; };
template <> struct Storage<DType::bf16> { using type = std::uint16_t; };
template <> struct Storage<DType::s8> { using type = std::int8_t; };
template <> struct Storage<DType::s32> { using type = std::int32_t; };
template <DType T> using StorageT = typename Storage<T>::type;

// Accumulators: exact s32 for s8 products, f32 for the float types. (A specialization, not
// std::conditional: vector types lose their attributes as template arguments.)
template <DType In> struct AccOf { using type = VF; };
template <> struct AccOf<DType::s8> { using type = VI; };
template <DType In> using AccVec = typename AccOf<In>::type;

inline std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline int lanes_left(std::int64_t columns, std::int64_t from) {
  const std::int64_t n = columns - from;
  return n <= 0 ? 0 : n >= kLanes ? kLanes : int(n);
}

// The elements by which an operand's rows start past a boundary of kElements-element vectors,
// when they lie `stride` elements apart and so all start at one offset (0: on boundaries);
// -1 when they share none (stride not a whole number of vectors) or `row` is misaligned for
// its type, so that no head step can align the rows' loads.
template <class T, int kElements>
inline int rows_offset(const T* row, std::int64_t stride) {
  constexpr std::size_t kBytes = std::size_t(kElements) * sizeof(T);
  const auto address = reinterpret_cast<std::uintptr_t>(row);
  if ((std::size_t(stride) * sizeof(T)) % kBytes != 0 || address % sizeof(T) != 0) return -1;
  return int((address % kBytes) / sizeof(T));
}

// The elements before an operand's rows reach a boundary of kElements-element vectors, from
// `row` on (rows_offset); 0 when no vector follows (length <= head). An operand a std::vector
// holds sits 16 bytes past a 64-byte boundary, and a 64-byte load from it spans two cache
// lines: streaming it from memory that way took 1.4-1.6 times as long on the development
// machine (1 × 4096 × 4096). The kernels that stream an operand run this many elements as a
// first, masked step, and every later load is aligned.
template <class T, int kElements>
inline int aligned_head(const T* row, std::int64_t stride, std::int64_t length) {
  const int offset = rows_offset<T, kElements>(row, stride);
  const int head = offset > 0 ? kElements - offset : 0;
  return head < length ? head : 0;
}

// alpha and beta in the accumulator's arithmetic, with the common cases flagged so the
// epilogue skips the multiplies. s8 problems have integral scalars (Problem checks).
struct Scale {
  float alpha = 1, beta = 0;
  std::int32_t alpha_i = 1, beta_i = 0;
  bool alpha_one = true, beta_zero = true, beta_one = false;
};
inline Scale scale_of(const CpuGemmParams& P) {
  Scale s;
  s.alpha = float(P.alpha);
  s.beta = float(P.beta);
  s.alpha_i = std::int32_t(std::uint32_t(std::int64_t(P.alpha)));
  s.beta_i = std::int32_t(std::uint32_t(std::int64_t(P.beta)));
  s.alpha_one = P.alpha == 1;
  s.beta_zero = P.beta == 0;
  s.beta_one = P.beta == 1;
  return s;
}

// n lanes of C (the rest zero) as an accumulator vector, and back.
template <DType Out>
inline auto load_c(const StorageT<Out>* p, int n) {
  if constexpr (Out == DType::f32) return n >= kLanes ? load_f(p) : lanes_f32(p, n);
  else if constexpr (Out == DType::f16) return lanes_f16(p, n);
  else if constexpr (Out == DType::bf16) return lanes_bf16(p, n);
  else return n >= kLanes ? load_i(p) : load_i(p, first_lanes(n));
}
template <DType Out, class V>
inline void store_c(StorageT<Out>* p, V v, int n) {
  if constexpr (Out == DType::f32) {
    if (n >= kLanes) store_f(p, v);
    else store_lanes_f32(p, v, n);
  } else if constexpr (Out == DType::f16) {
    store_lanes_f16(p, v, n);
  } else if constexpr (Out == DType::bf16) {
    store_lanes_bf16(p, v, n);
  } else {
    if (n >= kLanes) store_i(p, v);
    else store_lanes_s32(p, v, n);
  }
}

inline VF times_alpha(VF v, const Scale& s) { return s.alpha_one ? v : mul_f(v, set1_f(s.alpha)); }
inline VI times_alpha(VI v, const Scale& s) { return s.alpha_one ? v : mul_i(v, set1_i(s.alpha_i)); }
inline VF plus_beta(VF v, VF old, const Scale& s) { return s.beta_one ? add_f(v, old) : fma(old, set1_f(s.beta), v); }
inline VI plus_beta(VI v, VI old, const Scale& s) {
  return s.beta_one ? add_i(v, old) : add_i(v, mul_i(old, set1_i(s.beta_i)));
}
inline VF sum(VF a, VF b) { return add_f(a, b); }
inline VI sum(VI a, VI b) { return add_i(a, b); }

// C = alpha·acc + beta·C on n lanes (C is not read when beta is 0).
template <DType Out, class V>
inline void write_c(StorageT<Out>* p, V acc, int n, const Scale& s) {
  V v = times_alpha(acc, s);
  if (!s.beta_zero) v = plus_beta(v, load_c<Out>(p, n), s);
  store_c<Out>(p, v, n);
}
// C += alpha·acc, for the k slices after the first when C holds the accumulator's type.
template <DType Out, class V>
inline void add_to_c(StorageT<Out>* p, V acc, int n, const Scale& s) {
  store_c<Out>(p, sum(load_c<Out>(p, n), times_alpha(acc, s)), n);
}

// k == 0: the product is empty and C = beta·C.
template <DType Out, class V>
void scale_c_only(const CpuGemmParams& P, StorageT<Out>* c) {
  const Scale s = scale_of(P);
  V zero{};
  for (std::int64_t i = 0; i < P.m; ++i) {
    for (std::int64_t j = 0; j < P.n; j += kLanes) write_c<Out>(c + i * P.ldc + j, zero, lanes_left(P.n, j), s);
  }
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
