// The pairs kernel: C no wider than half a 512-bit vector (n ≤ 8 f32 columns) as one register
// tile, with two steps of k side by side in each vector.
//
// The tile kernel (rows.h) holds a row of such a C in one vector whose upper half
// multiplies zeros: half its multiply-adds are padding. Here lane 2j of row r's vector sums
// column j over even steps of k and lane 2j + 1 over odd ones. Each step takes a pair of A's
// elements (A(r, p), A(r, p + 1): adjacent when A is row-major, one 64-bit broadcast) against
// rows p and p + 1 of B interleaved (one permute, shared by every row), and the two halves of
// each sum are added once at the end. Half the multiply-adds of the tile kernel, and no more
// loads: 13 × 7 × 29 took 47.7 ns against the tile kernel's 76.1 and libxsmm's 69.6, 8 × 8 × 8
// 11.9 ns against 16.3 and 13.5 (the development machine, each called through its pointer:
// bench/results/2026-11-24a-cpu-pairs/probe-pairs.txt).
//
// AVX-512 only (the level-2 f32 kernels): the AVX2 tile already fills its 8 lanes at n = 8.
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

#if GEMMTUNE_VECTOR_BYTES == 64

constexpr int kPairColumns = kLanes / 2;

// Rows p and p + 1 of B (n ≤ 8 columns each, masked by m) interleaved: lane 2j = B(p, j),
// lane 2j + 1 = B(p + 1, j). With `last` the odd lanes are zero (no row p + 1 is read).
template <bool kLast>
__attribute__((always_inline)) inline VF interleaved_b_rows(const float* row, std::int64_t ldb, __mmask8 m) {
  const __m512i order = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const VF even = _mm512_castps256_ps512(_mm256_maskz_loadu_ps(m, row));
  const VF odd = kLast ? zero_f() : _mm512_castps256_ps512(_mm256_maskz_loadu_ps(m, row + ldb));
  return _mm512_permutex2var_ps(even, order, odd);
}

// A(r, p) in the even lanes and A(r, p + 1) in the odd ones: one 64-bit broadcast. With
// `last`, A(r, p) alone, zero in the odd lanes (nothing past the row is read).
template <bool kLast>
__attribute__((always_inline)) inline VF a_pair(const float* p) {
  if constexpr (kLast) return _mm512_maskz_broadcastss_ps(0x5555, _mm_load_ss(p));
  double pair;
  __builtin_memcpy(&pair, p, sizeof pair);
  return _mm512_castpd_ps(_mm512_set1_pd(pair));
}

// x and y with their lane pairs added: lanes 0-7 row x's sums, lanes 8-15 row y's.
inline VF fold_pairs(VF x, VF y) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return add_f(_mm512_permutex2var_ps(x, even, y), _mm512_permutex2var_ps(x, odd, y));
}

// C (MR rows, n ≤ 8 columns), A row-major (a_ks = 1) and B row-major, on the calling thread.
template <DType In, DType Out, int MR>
void gemm_direct_pairs(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  static_assert(In == DType::f32 && Out == DType::f32, "the pairs kernel is f32 only");
  const auto* a = static_cast<const float*>(a_ptr);
  const auto* b = static_cast<const float*>(b_ptr);
  auto* c = static_cast<float*>(c_ptr);
  if (P.k == 0) return scale_c_only<Out, VF>(P, c);
  const int n = int(P.n);
  const __mmask8 columns = __mmask8((1u << n) - 1u);
  const std::int64_t k = P.k, a_rs = P.a_rs, ldb = P.b_ks, ldc = P.ldc;
  // Accumulator sets over alternate pairs of steps, as in rows_block (there: why).
  constexpr int kSets = accumulator_sets(MR);
  VF acc[kSets][MR];
#pragma GCC unroll 8
  for (int t = 0; t < kSets; ++t) {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[t][r] = zero_f();
  }
  // A's rows by threes, as in rows_block (there: why).
  constexpr int kBases = (MR + 2) / 3;
  const float* ap[kBases];
#pragma GCC unroll 16
  for (int g = 0; g < kBases; ++g) ap[g] = a + 3 * g * a_rs;
  const float* bp = b;
  auto step = [&]<bool kLast>(int t) __attribute__((always_inline)) {
    const VF bv = interleaved_b_rows<kLast>(bp, ldb, columns);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[t][r] = fma(a_pair<kLast>(ap[r / 3] + (r % 3) * a_rs), bv, acc[t][r]);
    bp += 2 * ldb;
#pragma GCC unroll 16
    for (int g = 0; g < kBases; ++g) ap[g] += 2;
  };
  std::int64_t p = 0;
#pragma GCC unroll 2
  for (; p + 2 * kSets <= k; p += 2 * kSets) {
#pragma GCC unroll 8
    for (int t = 0; t < kSets; ++t) step.template operator()<false>(t);
  }
  for (; p + 2 <= k; p += 2) step.template operator()<false>(0);
  if (p < k) step.template operator()<true>(0);
#pragma GCC unroll 8
  for (int t = 1; t < kSets; ++t) {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[0][r] = add_f(acc[0][r], acc[t][r]);
  }
  const Scale s = scale_of(P);
  const bool plain = s.alpha_one && s.beta_zero;
  auto write = [&](float* row, VF v) __attribute__((always_inline)) {
    if (plain) store_lanes_f32(row, v, n);
    else write_c<Out>(row, v, n, s);
  };
#pragma GCC unroll 16
  for (int r = 0; r < MR; r += 2) {
    const VF both = fold_pairs(acc[0][r], acc[0][r + 1 < MR ? r + 1 : r]);
    write(c + r * ldc, both);
    if (r + 1 < MR) write(c + (r + 1) * ldc, _mm512_castps256_ps512(_mm512_extractf32x8_ps(both, 1)));
  }
}

#endif  // GEMMTUNE_VECTOR_BYTES == 64

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
