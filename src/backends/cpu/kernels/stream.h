// Stream kernel: C = A·B for a few rows of A against a B contiguous along n that is too large
// for the caches (x·W with W stored k × n).
//
// The rows kernel reads B one tile of columns at a time down the whole of k, a few hundred
// bytes from each row, rows ldb apart: for a B of many megabytes each of those reads is on a
// page of its own, and the prefetchers see thousands of short streams (1 × 4096 × 4096 took
// 2.4 ms on the development machine, where reading the 64 MiB takes 0.6). This kernel reads B
// in its storage order instead: a block of rows at a time, each row along all of
// the thread's columns before the block moves on. Within a block it is the rows
// kernel: an MR × NV-vector tile of C in registers over the block's rows, then parked in an
// accumulator buffer (L2) until the next block; the block's B under one tile of columns
// stays in L1 or L2 for every tile of rows, so B is read from memory once whatever m.
// An earlier version summed U rows of B at a time into rows of C kept in L1, which loaded and
// stored every sum each U rows: store-bound past 4 rows (8 × 4048 × 4008: 2.9 ms against
// oneDNN's 1.1).
//
// Where B's rows share an offset within a vector, the first tile of columns is that much
// narrower, so that every later load of B is aligned (aligned_head).
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// Rows of B per block (the config's block_k, kStreamBlockDepths): each visit of a C tile loads
// and stores it once, and the block's rows are streams read side by side. Up to
// kStreamHardwareStreams rows the hardware prefetchers follow them; a deeper block, which
// products of more rows need to keep the buffer's traffic down, prefetches itself, row by row,
// the columns kStreamPrefetchTiles tiles ahead. On the development machine (f32, two threads,
// W stored k × n, a probe alternating with oneDNN's sgemm): 1 × 4096 × 4096 0.57 ms with blocks
// of 8 rows and no prefetching, 1.06 ms with 256 and prefetching; 4 rows 1.14 ms and 1.39 ms;
// 8 × 4032 × 4008 2.1 ms and 1.0 ms (8 tiles ahead 1.25 ms, blocks of 1024 rows 1.6 ms);
// oneDNN 1.1-1.5 ms.
// The prefetches go to L2, not L1: a block of 256 rows prefetches 256 × 3 lines (48 KiB) per
// tile of 48 columns, as much as L1 holds beside the packed rows of A and the lines in use.
// Into L2 one tile ahead, 8 × 3 tiles alternated with the L1 version in one process read 1.14×
// as fast at 8 × 4096 × 4096 and 1.11-1.12× at 16 and at 32, and 4 × 4 tiles at 4 rows alike
// (1.02-1.03×); two tiles ahead 1.07-1.11× at 16, four 0.98-1.03×
// (bench/results/2026-11-24g-cpu-stream-prefetch/probe-output.txt).
constexpr std::int64_t kStreamHardwareStreams = 32;
constexpr int kStreamPrefetchTiles = 1;
// Whether a tile of MR rows prefetches the next block's first tile from the group's last
// visit (stream_range).
template <int MR>
inline constexpr bool kStreamNextBlock = MR >= 8;
// Rows of A per group (whole tiles), and bytes of accumulators per group of columns: the
// buffer of a group stays in L2 and does not grow with n or m.
constexpr int kStreamGroupRows = 16;
constexpr std::int64_t kStreamGroupBytes = 256 << 10;

// One visit of a tile: MR rows (A packed k-major, MR values per k) × `cols` columns from j
// (NV vectors, the last ones masked or empty; all NV whole when kWhole) over rows [p0, p1)
// of B. The sums start from zero (first) or from the buffer, and end in the buffer or, after
// the last block, in C's first `rows` rows.
template <DType In, DType Out, int MR, int NV, bool kWhole>
__attribute__((always_inline)) inline void stream_visit(const RowsJob<In>& job, const StorageT<In>* a,
                                                        AccVec<In>* buffer, StorageT<Out>* c, int rows, std::int64_t j,
                                                        int cols, std::int64_t p0, std::int64_t p1, bool first,
                                                        bool last, bool prefetch, std::int64_t ahead) {
  using Ops = RowsOps<In>;
  using Acc = AccVec<In>;
  Acc sums[MR][NV];
  Mask masks[NV];
  int lanes[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    lanes[v] = kWhole ? kLanes : lanes_left(cols, v * kLanes);
    masks[v] = first_lanes(lanes[v]);
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) sums[r][v] = first ? Acc{} : buffer[r * NV + v];
  }
  const StorageT<In>* bp = job.b + p0 * job.b_ks + j;
  const StorageT<In>* ap = a + p0 * MR;
  const std::int64_t b_ks = job.b_ks;
  // The tile's bytes of a row of B, and where the tile to prefetch starts, in elements of B
  // past each row's tile (past B's end it is a hint about an unmapped line, which a prefetch
  // ignores): kStreamPrefetchTiles to the right, or `ahead` where kStreamNextBlock.
  constexpr int kRowBytes = NV * kLanes * int(sizeof(StorageT<In>));
  const std::int64_t fetch_at = kStreamNextBlock<MR> ? ahead : std::int64_t(kStreamPrefetchTiles) * NV * kLanes;
  for (std::int64_t p = p0; p < p1; ++p) {
    Acc bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = Ops::load_b(bp + v * kLanes, masks[v], lanes[v]);
    if (prefetch) {
#pragma GCC unroll 8
      for (int offset = 0; offset < kRowBytes; offset += 64) {
        prefetch_l2(reinterpret_cast<const char*>(bp + fetch_at) + offset);
      }
    }
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      const Acc av = Ops::bcast_a(ap + r);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) sums[r][v] = Ops::madd(sums[r][v], av, bv[v]);
    }
    bp += b_ks;
    ap += MR;
  }
  if (!last) {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) buffer[r * NV + v] = sums[r][v];
    }
    return;
  }
  write_tile<Out, MR, NV>(job, sums, c, j, lanes, 0, rows);
}

// Rows [i_begin, i_end) × columns [j_begin, j_end) on the calling thread.
template <DType In, DType Out, int MR, int NV>
__attribute__((noinline)) void stream_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b,
                                            StorageT<Out>* c, std::int64_t i_begin, std::int64_t i_end,
                                            std::int64_t j_begin, std::int64_t j_end) {
  using S = StorageT<In>;
  using Acc = AccVec<In>;
  constexpr int NR = NV * kLanes;
  constexpr int kGroupTiles = kStreamGroupRows / MR > 0 ? kStreamGroupRows / MR : 1;
  const RowsJob<In> job{b, P.k, P.b_ks, P.ldc, scale_of(P), P.alpha == 1 && P.beta == 0};
  const std::int64_t k = P.k;
  const std::int64_t depth = P.block_k > 0 ? P.block_k : k;
  const bool prefetch = depth > kStreamHardwareStreams;
  const int head = aligned_head<StorageT<In>, kLanes>(b + j_begin, P.b_ks, j_end - j_begin);
  // Columns per group: whole tiles whose accumulators for the group's rows fill the buffer.
  const std::int64_t group_columns =
      std::max<std::int64_t>(NR, kStreamGroupBytes / (std::int64_t(kGroupTiles * MR * NV) * std::int64_t(sizeof(Acc))) * NR);
  S* packed = static_cast<S*>(thread_scratch(0, std::size_t(kGroupTiles * MR * k) * sizeof(S)));
  Acc* buffer = nullptr;
  if (k > depth) {
    const std::int64_t tiles = ceil_div(min64(group_columns, j_end - j_begin), NR) + 1;
    buffer = static_cast<Acc*>(thread_scratch(1, std::size_t(tiles * kGroupTiles * MR * NV) * sizeof(Acc)));
  }
  for (std::int64_t i0 = i_begin; i0 < i_end; i0 += kGroupTiles * MR) {
    const std::int64_t i1 = min64(i_end, i0 + kGroupTiles * MR);
    const int tiles_m = int(ceil_div(i1 - i0, MR));
    // The group's rows of A, tile by tile, k-major, zero past the last row: one broadcast per
    // (k, row) from a line the tile's steps walk in order.
    for (int t = 0; t < tiles_m; ++t) {
      S* tile = packed + std::int64_t(t) * MR * k;
      for (std::int64_t p = 0; p < k; ++p) {
        for (int r = 0; r < MR; ++r) {
          const std::int64_t i = i0 + std::int64_t(t) * MR + r;
          tile[p * MR + r] = i < i1 ? a[i * P.a_rs + p * P.a_ks] : S{};
        }
      }
    }
    for (std::int64_t g0 = j_begin; g0 < j_end;) {
      const std::int64_t g1 = min64(j_end, g0 + (g0 == j_begin ? head : 0) + group_columns);
      for (std::int64_t p0 = 0; p0 < k; p0 += depth) {
        const std::int64_t p1 = min64(k, p0 + depth);
        const bool first = p0 == 0, last = p1 == k;
        Acc* tile_buffer = buffer;
        auto columns = [&](std::int64_t j, int cols) __attribute__((always_inline)) {
          for (int t = 0; t < tiles_m; ++t) {
            const std::int64_t row = i0 + std::int64_t(t) * MR;
            // Whole tiles with masks known at compile time: a shallow block's visit is a few
            // dozen multiply-adds, which per-visit mask arithmetic would double.
            const int rows = int(min64(MR, i1 - row));
            const StorageT<In>* tile = packed + std::int64_t(t) * MR * k;
            const bool fetch = prefetch && t == 0;
            // Each tile prefetches the tile kStreamPrefetchTiles to its right. With tiles of 8
            // rows or more, the group's last one prefetches the first tile of the group's next
            // block of rows of B instead, which would otherwise start cold: about 1.02x at 16
            // and 32 rows. At 4 rows (4 × 4 tiles, bound by memory alone) the probe could not
            // tell it from noise and leaned the other way, so shorter tiles keep the plain
            // rule (bench/results/2026-11-25a-cpu-stream-next-block.md).
            const std::int64_t ahead = kStreamNextBlock<MR> && j + NR >= g1 && p1 < k
                                           ? (p1 - p0) * P.b_ks + (g0 - j)
                                           : std::int64_t(kStreamPrefetchTiles) * NR;
            if (cols == NR) {
              stream_visit<In, Out, MR, NV, true>(job, tile, tile_buffer, c + row * P.ldc, rows, j, cols, p0, p1, first,
                                                  last, fetch, ahead);
            } else {
              stream_visit<In, Out, MR, NV, false>(job, tile, tile_buffer, c + row * P.ldc, rows, j, cols, p0, p1,
                                                   first, last, fetch, ahead);
            }
            tile_buffer += MR * NV;
          }
        };
        std::int64_t j = g0;
        if (g0 == j_begin && head > 0) {
          columns(j, head);
          j += head;
        }
        for (; j < g1; j += NR) columns(j, int(min64(NR, g1 - j)));
      }
      g0 = g1;
    }
  }
}

template <DType In, DType Out, int MR, int NV>
void gemm_direct_stream(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  // Threads split the columns (the kernel is offered for few rows), so each streams its own
  // part of every row of B.
  run_direct<In, Out>(P, a, b, c, MR, NV * kLanes, &stream_range<In, Out, MR, NV>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
