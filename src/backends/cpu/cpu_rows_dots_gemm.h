// The rows-dots kernel: C a few columns wider than a whole number of vectors (n = 33 with 16
// lanes), A and B row-major. The rows kernel (cpu_direct_gemm.h) would give each row a last
// vector of one useful lane: at 17 × 33 × 65 a third of its multiply-adds are padding. Here
// the rows kernel takes the whole vectors of columns, and the last 1-4 columns of B are
// copied out contiguous along k (k elements each, the copy costs what one row of the tile's
// multiply-adds does) and computed by the dot kernel, a vector of k at a time and reduced.
// On the development machine, each called through its pointer: 32 × 33 × 32 1.17× and
// 64 × 18 × 64 1.12× faster than the rows kernel, but 17 × 33 × 65 0.89-0.94×, where the rows
// tiles that take two vectors (8 or 12 rows) recompute 7 of the 17 rows in their overlapping
// last tile (bench/results/2026-11-24a-cpu-pairs/probe-rows-dots.txt).
//
// f32 only; every ISA (the tail is at most a quarter of a vector's lanes).
#pragma once

#include "cpu_direct_gemm.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

template <DType In, DType Out, int MR, int NV>
void gemm_direct_rows_dots(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  static_assert(In == DType::f32 && Out == DType::f32, "the rows-dots kernel is f32 only");
  const auto* b = static_cast<const float*>(b_ptr);
  auto* c = static_cast<float*>(c_ptr);
  const int tail = int(P.n % kLanes);  // 0 to max_dots_tail(kLanes) (can_implement)
  const std::int64_t whole = P.n - tail;
  CpuGemmParams rows = P;
  rows.n = whole;
  gemm_direct_rows<In, Out, MR, NV>(rows, a_ptr, b_ptr, c_ptr);
  if (P.m == 0 || tail == 0) return;
  // The tail columns of B as rows of W (tail × k), each starting on a vector boundary so that
  // the dot kernel's loads of it are aligned (no head step).
  const std::int64_t k = P.k, stride = ceil_div(k, kLanes) * kLanes;
  auto* w = static_cast<float*>(thread_scratch(2, std::size_t(tail * stride) * sizeof(float)));
  for (std::int64_t p = 0; p < k; ++p) {
    const float* row = b + p * P.b_ks + whole;
    for (int j = 0; j < tail; ++j) w[j * stride + p] = row[j];
  }
  CpuGemmParams dots = P;
  dots.n = tail;
  dots.b_ks = 1;
  dots.b_cs = stride;
  switch (tail) {
    case 1: return gemm_direct_dot<In, Out, 8, 1>(dots, a_ptr, w, c + whole);
    case 2: return gemm_direct_dot<In, Out, 4, 2>(dots, a_ptr, w, c + whole);
    case 3: return gemm_direct_dot<In, Out, 8, 3>(dots, a_ptr, w, c + whole);
    default: return gemm_direct_dot<In, Out, 4, 4>(dots, a_ptr, w, c + whole);
  }
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
