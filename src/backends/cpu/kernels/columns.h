// The columns kernel: Cᵀ = Bᵀ·Aᵀ for a few rows of A against a B contiguous along k (C = X·Wᵀ
// with W stored n × k, a linear layer on a small batch).
//
// The dot kernel reads both operands along k and needs (MR + NC) vector loads per MR·NC
// multiply-adds; with 16 rows of A that is more than L2 can feed. Here A is packed once,
// transposed, into vectors of up to NV·kLanes of its rows (the whole batch in one or two
// vectors), and each element of W is broadcast against them: one vector load of Aᵀ per MJ
// multiply-adds, W streamed once at memory speed. Each MJ × NV-vector tile of Cᵀ is transposed
// in registers and written to C row by row.
//
// Float inputs only (f16 and bf16 are widened to f32 when A is packed and when W is read).
#pragma once

#include "rows_block.h"
#include "direct_entry.h"
#include "../cpu_pack.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// Writes columns [0, columns) of the Cᵀ tile t (t[jj][v]: rows v·kLanes … of C, column jj)
// to C at c (the tile's first row and column), rows [0, rows).
template <DType Out, int MJ, int NV>
inline void write_transposed(VF (&t)[MJ][NV], StorageT<Out>* c, std::int64_t ldc, int rows, int columns,
                             const Scale& s) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    // Up to kLanes columns at once: lane x of block[l] is C(v·kLanes + l, x).
    for (int j0 = 0; j0 < MJ; j0 += kLanes) {
      VI block[kLanes];
#pragma GCC unroll 16
      for (int x = 0; x < kLanes; ++x) block[x] = j0 + x < MJ ? as_i(t[j0 + x < MJ ? j0 + x : 0][v]) : zero_i();
      transpose(block);
      const int width = columns - j0 < kLanes ? columns - j0 : kLanes;
      if (width <= 0) break;
      for (int l = 0; l < kLanes; ++l) {
        const int row = v * kLanes + l;
        if (row >= rows) break;
        write_c<Out>(c + row * ldc + j0, as_f(block[l]), width, s);
      }
    }
  }
}

// Columns [0, columns) of C (rows j of W at w + j·b_cs) for the row panel of Aᵀ at at (k × NR
// f32, row p at at + p·NR), rows [0, rows) of C.
template <DType In, DType Out, int MJ, int NV>
void columns_block(const CpuGemmParams& P, const float* at, const StorageT<In>* w, StorageT<Out>* c, int rows,
                   int columns, const Scale& s) {
  constexpr int NR = NV * kLanes;
  VF acc[MJ][NV];
#pragma GCC unroll 16
  for (int jj = 0; jj < MJ; ++jj) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[jj][v] = zero_f();
  }
  const std::int64_t k = P.k, b_cs = P.b_cs;
  const StorageT<In>* wp = w;
#pragma GCC unroll 2
  for (std::int64_t p = 0; p < k; ++p) {
    VF av[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) av[v] = load_f(at + p * NR + v * kLanes);
#pragma GCC unroll 16
    for (int jj = 0; jj < MJ; ++jj) {
      const VF wv = RowsOps<In>::bcast_a(wp + jj * b_cs + p);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[jj][v] = fma(wv, av[v], acc[jj][v]);
    }
  }
  write_transposed<Out, MJ, NV>(acc, c, P.ldc, rows, columns, s);
}

template <DType In, DType Out, int MJ, int NV>
void columns_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
                   std::int64_t i_begin, std::int64_t i_end, std::int64_t j_begin, std::int64_t j_end) {
  constexpr int NR = NV * kLanes;
  const Scale s = scale_of(P);
  auto* at = static_cast<float*>(thread_scratch(0, std::size_t(NR * P.k) * sizeof(float)));
  for (std::int64_t i = i_begin; i < i_end; i += NR) {
    const int rows = int(min64(NR, i_end - i));
    // Aᵀ: word (p, x) = A(i + x, p) as f32, zero past the last row.
    pack_panel<FmaFormat, In, false>(a + i * P.a_rs, P.a_rs, P.a_ks, rows, P.k, NR,
                                     reinterpret_cast<std::int32_t*>(at));
    std::int64_t j = j_begin;
    for (; j + MJ <= j_end; j += MJ) columns_block<In, Out, MJ, NV>(P, at, b + j * P.b_cs, c + i * P.ldc + j, rows, MJ, s);
    for (; j < j_end; ++j) columns_block<In, Out, 1, NV>(P, at, b + j * P.b_cs, c + i * P.ldc + j, rows, 1, s);
  }
}

template <DType In, DType Out, int MJ, int NV>
void gemm_direct_columns(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  run_direct<In, Out>(P, a, b, c, NV * kLanes, MJ, &columns_range<In, Out, MJ, NV>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
