// Stream kernel: C = A·B for a few rows of A against a B contiguous along n that is too large
// for the caches (x·W with W stored k × n).
//
// The rows kernel reads B one tile of columns at a time down the whole of k, a few hundred
// bytes from each row, rows ldb apart: for a B of many megabytes each of those reads is on a
// page of its own, and the prefetchers see thousands of short streams (1 × 4096 × 4096 took
// 2.4 ms on the development machine, where reading the 64 MiB takes 0.6). This kernel reads B
// in its storage order instead: U rows at a time, each along a block of columns, adding
// U rows' products into MR rows of C held as accumulators in an L1 buffer, which each pass
// loads and stores once. Where B's rows share an offset within a vector, the first vector of
// a block is that much narrower, so that every later load of B is aligned (see dot_head).
#pragma once

#include "cpu_direct_gemm.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// Rows of B per pass over the accumulators: each pass loads and stores the buffer once, so more
// rows save L1 traffic, up to the registers that A's U × MR broadcasts take.
constexpr int kStreamRegisters = GEMMTUNE_VECTOR_BYTES >= 64 ? 32 : 16;
constexpr int stream_rows(int mr) { return stream_rows_per_pass(mr, kStreamRegisters) > 0 ? stream_rows_per_pass(mr, kStreamRegisters) : 1; }

// Columns of one block: MR rows of accumulators for them fill 16 KiB, a third of a 48 KiB L1.
template <class Acc>
constexpr std::int64_t stream_block_columns(int mr) {
  return std::int64_t(16 << 10) / (std::int64_t(mr) * std::int64_t(sizeof(Acc))) * kLanes;
}

// Lanes before B's rows, from column b_row, reach a vector boundary in storage; 0 when the
// rows lie at different offsets (ldb not a whole number of vectors) or there is no later vector.
template <DType In>
inline int stream_head(const StorageT<In>* b_row, std::int64_t b_ks, std::int64_t columns) {
  constexpr std::size_t kBytes = std::size_t(kLanes) * sizeof(StorageT<In>);
  const auto address = reinterpret_cast<std::uintptr_t>(b_row);
  if ((std::size_t(b_ks) * sizeof(StorageT<In>)) % kBytes != 0 || address % sizeof(StorageT<In>) != 0) return 0;
  const int head = int(((kBytes - address % kBytes) % kBytes) / sizeof(StorageT<In>));
  return head < columns ? head : 0;
}

// What one row tile shares: A packed k-major (MR values per k, rows past m zero), B and its
// row stride, k, and the accumulator buffer.
template <DType In>
struct StreamJob {
  const StorageT<In>* a;
  const StorageT<In>* b;
  std::int64_t b_ks, k;
  AccVec<In>* acc;
};

// One pass: rows [p, p + U) of B over the columns [j0, j1) of the block, whose vectors sit in
// the buffer one after the other (the first `head` lanes wide when head > 0), MR accumulators
// each.
template <DType In, int MR, int U>
__attribute__((always_inline)) inline void stream_pass(const StreamJob<In>& job, std::int64_t p, bool first,
                                                       std::int64_t j0, std::int64_t j1, int head) {
  using Ops = RowsOps<In>;
  using Acc = AccVec<In>;
  Acc av[U][MR];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) av[u][r] = Ops::bcast_a(job.a + (p + u) * MR + r);
  }
  const StorageT<In>* bp = job.b + p * job.b_ks;
  const std::int64_t b_ks = job.b_ks;
  Acc* acc = job.acc;
  auto vector = [&](std::int64_t j, Mask mask, int lanes) __attribute__((always_inline)) {
    Acc sums[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) sums[r] = first ? Acc{} : acc[r];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const Acc bv = Ops::load_b(bp + u * b_ks + j, mask, lanes);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) sums[r] = Ops::madd(sums[r], av[u][r], bv);
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) acc[r] = sums[r];
    acc += MR;
  };
  std::int64_t j = j0;
  if (head > 0) {
    vector(j, first_lanes(head), head);
    j += head;
  }
  const Mask full = first_lanes(kLanes);
  for (; j + kLanes <= j1; j += kLanes) vector(j, full, kLanes);
  if (j < j1) vector(j, first_lanes(int(j1 - j)), int(j1 - j));
}

// MR rows of C (rows [first_row, last_row) of the tile written) over columns [j_begin, j_end).
template <DType In, DType Out, int MR>
void stream_tile(const CpuGemmParams& P, StreamJob<In> job, StorageT<Out>* c, int rows, std::int64_t j_begin,
                 std::int64_t j_end) {
  using Acc = AccVec<In>;
  constexpr int U = stream_rows(MR);
  const Scale scale = scale_of(P);
  const bool plain = P.alpha == 1 && P.beta == 0;
  const int head = stream_head<In>(job.b + j_begin, job.b_ks, j_end - j_begin);
  const std::int64_t block = stream_block_columns<Acc>(MR);
  for (std::int64_t j0 = j_begin; j0 < j_end;) {
    const int block_head = j0 == j_begin ? head : 0;
    const std::int64_t j1 = min64(j_end, j0 + block_head + block);
    std::int64_t p = 0;
    for (; p + U <= job.k; p += U) stream_pass<In, MR, U>(job, p, p == 0, j0, j1, block_head);
    for (; p < job.k; ++p) stream_pass<In, MR, 1>(job, p, p == 0, j0, j1, block_head);
    // The block's sums into C, vector by vector in the buffer's order.
    const Acc* acc = job.acc;
    auto write = [&](std::int64_t j, int lanes) {
      for (int r = 0; r < rows; ++r) {
        StorageT<Out>* cp = c + r * P.ldc + j;
        if (plain) store_c<Out>(cp, acc[r], lanes);
        else write_c<Out>(cp, acc[r], lanes, scale);
      }
      acc += MR;
    };
    std::int64_t j = j0;
    if (block_head > 0) {
      write(j, block_head);
      j += block_head;
    }
    for (; j < j1; j += kLanes) write(j, int(min64(kLanes, j1 - j)));
    j0 = j1;
  }
}

// Rows [i_begin, i_end) × columns [j_begin, j_end) on the calling thread, MR rows at a time.
template <DType In, DType Out, int MR>
void stream_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
                  std::int64_t i_begin, std::int64_t i_end, std::int64_t j_begin, std::int64_t j_end) {
  using S = StorageT<In>;
  using Acc = AccVec<In>;
  S* packed = static_cast<S*>(thread_scratch(0, std::size_t(MR * P.k) * sizeof(S)));
  const std::int64_t vectors = ceil_div(min64(stream_block_columns<Acc>(MR), j_end - j_begin) + kLanes, kLanes);
  Acc* acc = static_cast<Acc*>(thread_scratch(1, std::size_t(vectors * MR) * sizeof(Acc)));
  for (std::int64_t i = i_begin; i < i_end; i += MR) {
    const int rows = int(min64(MR, i_end - i));
    // A's rows of the tile k-major, zero past the last row: one broadcast per (k, row).
    for (std::int64_t p = 0; p < P.k; ++p) {
      for (int r = 0; r < MR; ++r) packed[p * MR + r] = r < rows ? a[(i + r) * P.a_rs + p * P.a_ks] : S{};
    }
    stream_tile<In, Out, MR>(P, StreamJob<In>{packed, b, P.b_ks, P.k, acc}, c + i * P.ldc, rows, j_begin, j_end);
  }
}

template <DType In, DType Out, int MR>
void gemm_direct_stream(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  // Threads split the columns (a tile of one vector makes them the longer side for any m
  // this kernel is offered for), so each streams its own part of every row of B.
  run_direct<In, Out>(P, a, b, c, MR, kLanes,
                      [&P](const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c, std::int64_t i0,
                           std::int64_t i1, std::int64_t j0, std::int64_t j1) {
                        stream_range<In, Out, MR>(P, a, b, c, i0, i1, j0, j1);
                      });
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
