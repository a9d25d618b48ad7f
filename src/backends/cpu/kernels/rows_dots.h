// The rows-dots kernel: C a few columns wider than a whole number of vectors (n = 33 with 16
// lanes), A and B row-major. The rows kernel (rows.h) would give each row a last
// vector of one useful lane: at 17 × 33 × 65 a third of its multiply-adds are padding. Here
// the rows kernel takes the whole vectors of columns, and the last 1-4 columns of B are
// copied out contiguous along k and computed by the dot kernel, a vector of k at a time and
// reduced. Its figures against the rows kernel and libxsmm, each called through its pointer:
// bench/results/2026-11-24b-cpu-tails/.
//
// f32 only; every ISA (the tail is at most a quarter of a vector's lanes).
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// The last T columns of C (B's from b, C's from c): B's columns copied out as rows of W
// (T × k), each starting on a vector boundary so that the dot kernel's loads of it are aligned
// (no head step), then DR × T dot tiles. T is a constant so that the copy's inner loop
// unrolls: with T a variable, copying one column of 65 took 46 ns against 18.
template <int T, int DR>
void gemm_dots_tail(const CpuGemmParams& P, const void* a, const float* b, float* c) {
  const std::int64_t k = P.k, stride = ceil_div(k, kLanes) * kLanes;
  auto* w = static_cast<float*>(thread_scratch(2, std::size_t(T * stride) * sizeof(float)));
  for (std::int64_t p = 0; p < k; ++p, b += P.b_ks) {
#pragma GCC unroll 4
    for (int j = 0; j < T; ++j) w[j * stride + p] = b[j];
  }
  CpuGemmParams dots = P;
  dots.n = T;
  dots.b_ks = 1;
  dots.b_cs = stride;
  gemm_direct_dot<DType::f32, DType::f32, DR, T>(dots, a, w, c);
}

template <DType In, DType Out, int MR, int NV>
void gemm_direct_rows_dots(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  static_assert(In == DType::f32 && Out == DType::f32, "the rows-dots kernel is f32 only");
  const int tail = int(P.n % kLanes);  // 0 to max_dots_tail(kLanes) (can_implement)
  const std::int64_t whole = P.n - tail;
  CpuGemmParams rows = P;
  rows.n = whole;
  gemm_direct_rows<In, Out, MR, NV>(rows, a_ptr, b_ptr, c_ptr);
  if (P.m == 0) return;
  const float* b = static_cast<const float*>(b_ptr) + whole;
  float* c = static_cast<float*>(c_ptr) + whole;
  switch (tail) {
    case 0: return;
    case 1: return gemm_dots_tail<1, 8>(P, a_ptr, b, c);
    case 2: return gemm_dots_tail<2, 4>(P, a_ptr, b, c);
    case 3: return gemm_dots_tail<3, 8>(P, a_ptr, b, c);
    default: return gemm_dots_tail<4, 4>(P, a_ptr, b, c);
  }
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
