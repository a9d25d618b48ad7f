// The rows and tile kernels: direct kernels (no packing; for small problems, and for skinny
// ones, packing costs as much as the product itself) that run the register tile of
// rows_block.h over C, B contiguous along n. The tile kernel takes C as one tile on the calling
// thread; the rows kernel splits C between threads in whole tiles.
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// The tile kernel: C (m = MR rows, n ≤ NV·kLanes columns) as one tile, on the calling thread,
// B read through the window where it pays (window_shift).
template <DType In, DType Out, int MR, int NV>
void gemm_direct_tile(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.k == 0) return scale_c_only<Out, AccVec<In>>(P, c);
  const RowsJob<In> job{static_cast<const StorageT<In>*>(b_ptr), P.k, P.b_ks, P.ldc, scale_of(P),
                        P.alpha == 1 && P.beta == 0};
  const int n = int(P.n), shift = window_shift<In>(job.b, job.b_ks, P.b_lines_in_l1, n);
  if (P.a_ks == 1) windowed_rows_block<In, Out, MR, NV, true>(job, a, P.a_rs, 1, c, 0, 0, MR, n, shift);
  else windowed_rows_block<In, Out, MR, NV, false>(job, a, 1, P.a_ks, c, 0, 0, MR, n, shift);
}

template <DType In, DType Out, int MR, int NV>
void gemm_direct_rows(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  if (P.a_ks == 1) run_direct<In, Out>(P, a, b, c, MR, NV * kLanes, &rows_range<In, Out, MR, NV, true>);
  else run_direct<In, Out>(P, a, b, c, MR, NV * kLanes, &rows_range<In, Out, MR, NV, false>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
