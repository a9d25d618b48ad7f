// Axpy kernel: C = A·B for one to four rows of A against a B contiguous along n that lies in
// memory, not in the caches (x·W with W stored k × n: a matrix-vector product at m = 1).
//
// Row i of C is a sum of B's rows, row p scaled by A(i, p). The kernel keeps the MR rows of C
// it computes as accumulators in L1 and adds U rows of B into them at a time, each along all of
// the thread's columns: per vector of C, one vector from each of the U rows, MR·U multiply-adds
// and one load and one store of each accumulator. B is read once, in its storage order, as U
// long runs that the hardware prefetchers follow.
//
// The stream kernel (stream.h) reads B in storage order too, but a tile of columns
// at a time down a block of rows, its sums in registers: the better loop from 4 rows of A up,
// where it reuses them. At 1 × 4096 × 4096 on the development machine's two cores, in the
// tuner's final round, this kernel took 632 µs and the stream kernel's best 931 µs
// (bench/results/2026-11-23g-cpu-axpy/skinny-nn-first.json).
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// Bytes of accumulators per chunk of columns (with the head's vector): they stay in L1
// (32-48 KiB on the machines we target) beside the lines of B in flight.
constexpr std::int64_t kAxpyChunkBytes = 24 << 10;

// The columns of one chunk as its vectors of accumulators: `head` lanes first when B's rows
// reach a vector boundary only that far in (aligned_head), then `whole` vectors, then `tail`
// lanes; every vector but the head and the tail loads B aligned.
struct AxpyChunk {
  int head;
  std::int64_t whole;
  int tail;
  std::int64_t vectors() const { return (head > 0) + whole + (tail > 0); }
  // Lanes of vector v.
  int lanes(std::int64_t v) const {
    if (head > 0 && v == 0) return head;
    return v == vectors() - 1 && tail > 0 ? tail : kLanes;
  }
};

// B's rows [p, p + UU) (from bp, the chunk's first column) added into the MR rows of
// accumulators (acc, `chunk.vectors()` vectors a row), times A's elements av[r][u].
template <DType In, int MR, int UU>
__attribute__((always_inline)) inline void axpy_pass(const StorageT<In>* bp, std::int64_t b_ks,
                                                     const AccVec<In> (&av)[MR][UU], AccVec<In>* acc,
                                                     const AxpyChunk& chunk) {
  using Ops = RowsOps<In>;
  using Acc = AccVec<In>;
  const std::int64_t stride = chunk.vectors();
  const StorageT<In>* rows[UU];
#pragma GCC unroll 8
  for (int u = 0; u < UU; ++u) rows[u] = bp + u * b_ks;
  // Vector v of the accumulators against rows[u] + v·kLanes (the head rebases both).
  auto step = [&](std::int64_t v, Mask mask, int lanes) __attribute__((always_inline)) {
    Acc s[MR];
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) s[r] = acc[r * stride + v];
#pragma GCC unroll 8
    for (int u = 0; u < UU; ++u) {
      const Acc bv = Ops::load_b(rows[u] + v * kLanes, mask, lanes);
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) s[r] = Ops::madd(s[r], av[r][u], bv);
    }
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) acc[r * stride + v] = s[r];
  };
  if (chunk.head > 0) {
    step(0, first_lanes(chunk.head), chunk.head);
#pragma GCC unroll 8
    for (int u = 0; u < UU; ++u) rows[u] += chunk.head - kLanes;  // vector 1 then starts at head
  }
  const std::int64_t first = chunk.head > 0, end = first + chunk.whole;
  const Mask whole = first_lanes(kLanes);
  for (std::int64_t v = first; v < end; ++v) step(v, whole, kLanes);
  if (chunk.tail > 0) step(end, first_lanes(chunk.tail), chunk.tail);
}

// A(i0 + r, p + u) broadcast for the pass at p; zero for rows past the problem's (`rows`).
template <DType In, int MR, int UU>
__attribute__((always_inline)) inline void axpy_broadcasts(const StorageT<In>* a, std::int64_t a_rs,
                                                           std::int64_t a_ks, std::int64_t p, int rows,
                                                           AccVec<In> (&av)[MR][UU]) {
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int u = 0; u < UU; ++u) av[r][u] = r < rows ? RowsOps<In>::bcast_a(a + r * a_rs + (p + u) * a_ks) : AccVec<In>{};
  }
}

// Rows [i_begin, i_end) × columns [j_begin, j_end) on the calling thread.
template <DType In, DType Out, int MR, int U>
__attribute__((noinline)) void axpy_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b,
                                          StorageT<Out>* c, std::int64_t i_begin, std::int64_t i_end,
                                          std::int64_t j_begin, std::int64_t j_end) {
  using Acc = AccVec<In>;
  const Scale scale = scale_of(P);
  const bool plain = P.alpha == 1 && P.beta == 0;
  const int head = aligned_head<StorageT<In>, kLanes>(b + j_begin, P.b_ks, j_end - j_begin);
  // Chunks of whole vectors after the head, as few as the L1 budget allows and as even as
  // they can be: each chunk reads B anew, in runs of its width along each row, which the
  // prefetchers need long (chunks of 384 columns, from a budget counted in vectors where
  // columns were meant, read 1 × 4096 × 4096 at two thirds of the speed).
  const std::int64_t columns = j_end - j_begin - head;
  const std::int64_t most_vectors = std::max<std::int64_t>(1, kAxpyChunkBytes / (MR * std::int64_t(sizeof(Acc))) - 1);
  const std::int64_t chunks = std::max<std::int64_t>(1, ceil_div(columns, most_vectors * kLanes));
  const std::int64_t width = ceil_div(ceil_div(columns, chunks), kLanes) * kLanes;
  Acc* acc = static_cast<Acc*>(thread_scratch(0, std::size_t(MR * (width / kLanes + 1)) * sizeof(Acc)));
  for (std::int64_t i0 = i_begin; i0 < i_end; i0 += MR) {
    const int rows = int(min64(MR, i_end - i0));
    const StorageT<In>* ai = a + i0 * P.a_rs;
    // The first chunk takes the head besides its width.
    for (std::int64_t j0 = j_begin; j0 < j_end;) {
      const int chunk_head = j0 == j_begin ? head : 0;
      const std::int64_t cols = min64(j_end - j0 - chunk_head, width);
      const AxpyChunk chunk{chunk_head, cols / kLanes, int(cols % kLanes)};
      const std::int64_t vectors = chunk.vectors();
      for (std::int64_t v = 0; v < MR * vectors; ++v) acc[v] = Acc{};
      const StorageT<In>* bj = b + j0;
      std::int64_t p = 0;
      for (; p + U <= P.k; p += U) {
        Acc av[MR][U];
        axpy_broadcasts<In, MR, U>(ai, P.a_rs, P.a_ks, p, rows, av);
        axpy_pass<In, MR, U>(bj + p * P.b_ks, P.b_ks, av, acc, chunk);
      }
      for (; p < P.k; ++p) {
        Acc av[MR][1];
        axpy_broadcasts<In, MR, 1>(ai, P.a_rs, P.a_ks, p, rows, av);
        axpy_pass<In, MR, 1>(bj + p * P.b_ks, P.b_ks, av, acc, chunk);
      }
      for (int r = 0; r < rows; ++r) {
        StorageT<Out>* crow = c + (i0 + r) * P.ldc + j0;
        for (std::int64_t v = 0; v < vectors; ++v) {
          const int lanes = chunk.lanes(v);
          if (plain) store_c<Out>(crow, acc[r * vectors + v], lanes);
          else write_c<Out>(crow, acc[r * vectors + v], lanes, scale);
          crow += lanes;
        }
      }
      j0 += chunk_head + cols;
    }
  }
}

// Columns per thread come in whole runs of this many lanes: a thread's share of every row of B
// starts on a cache line of its own (for 4-byte elements).
constexpr std::int64_t kAxpyThreadColumns = 4 * kLanes;

template <DType In, DType Out, int MR, int U>
void gemm_direct_axpy(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  run_direct<In, Out>(P, a, b, c, MR, kAxpyThreadColumns, &axpy_range<In, Out, MR, U>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
