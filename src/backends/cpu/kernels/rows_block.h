// The register tile of the direct kernels (no packing, operands read where they lie): an
// MR × NV-vector tile of C in registers over a run of k, each step loading NV vectors of a row
// of B (B contiguous along n) and broadcasting MR elements of A; column tails are masked loads
// and stores. The rows and tile kernels (rows.h) are this tile over C; the stream, axpy,
// columns, pairs and rows-dots kernels reuse its operations (RowsOps) and job (RowsJob), and
// the dot kernel its halving tails.
//
// With AVX-512, one-row tiles and the tile kernel read B's rows off a vector boundary from the
// boundary before, which keeps their loads within lines, where B's lines stay in L1
// (window_shift). The last rows, fewer than MR, run as tiles of halving height when they are at
// most half a tile, and otherwise as a tile that overlaps the one before and writes only its
// own rows, so no shape needs scalar edge code.
//
// Every loop over a tile's rows or vectors is unrolled whole (32 covers the tallest tile, 24
// rows; 8 the widest, 8 vectors): one left rolled indexes the accumulators by a variable,
// which keeps them in memory, loaded and stored at every step of k. The 17-row tile kernel and
// the (1, 8) stream tile ran that way, the latter at half speed.
#pragma once

#include <algorithm>
#include <type_traits>

#include "../cpu_tile_io.h"
#include "../cpu_thread_pool.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// ---- rows ----

// One element of A broadcast, a vector of B converted, and their product accumulated.
template <DType In> struct RowsOps;
template <> struct RowsOps<DType::f32> {
  using Acc = VF;
  static VF load_b(const float* p, Mask m, int) { return load_f(p, m); }
  static VF bcast_a(const float* p) { return set1_f(*p); }
  static VF madd(VF acc, VF a, VF b) { return fma(a, b, acc); }
#if GEMMTUNE_ISA_LEVEL >= 2
  // For a tile that reads B from the vector boundary `shift` elements before its rows
  // (windowed_rows_block): vector v's lanes that hold B's columns [0, cols), and the lanes
  // [shift, shift + kLanes) of lo followed by hi, where the sums of C's columns lie.
  static constexpr bool kShiftsB = true;
  static Mask window(int shift, int cols, int v) {
    return Mask(first_lanes(shift + cols - v * kLanes) & ~first_lanes(shift - v * kLanes));
  }
  static VI shift_index(int shift) {
    return _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), set1_i(shift));
  }
  static VF shifted(VF lo, VF hi, VI index) { return _mm512_permutex2var_ps(lo, index, hi); }
#endif
};
template <> struct RowsOps<DType::f16> {
  using Acc = VF;
  static VF load_b(const std::uint16_t* p, Mask, int n) { return lanes_f16(p, n); }
  static VF bcast_a(const std::uint16_t* p) { return set1_f(scalar_f16(*p)); }
  static VF madd(VF acc, VF a, VF b) { return fma(a, b, acc); }
};
template <> struct RowsOps<DType::bf16> {
  using Acc = VF;
  static VF load_b(const std::uint16_t* p, Mask, int n) { return lanes_bf16(p, n); }
  static VF bcast_a(const std::uint16_t* p) { return set1_f(bf16_bits_to_float(*p)); }
  static VF madd(VF acc, VF a, VF b) { return fma(a, b, acc); }
};
template <> struct RowsOps<DType::s8> {
  using Acc = VI;
  static VI load_b(const std::int8_t* p, Mask, int n) { return lanes_s8(p, n); }
  static VI bcast_a(const std::int8_t* p) { return set1_i(*p); }
  static VI madd(VI acc, VI a, VI b) { return add_i(acc, mul_i(a, b)); }
};

// What every tile of one call shares, copied out of the parameters so the compiler keeps it
// in registers (through a reference it would reload it after every store to C).
template <DType In>
struct RowsJob {
  const StorageT<In>* b;
  std::int64_t k, b_ks, ldc;
  Scale scale;
  bool plain;  // alpha = 1, beta = 0: C is only stored
};

// Rows [first, last) of an MR × NV tile of sums into C at c + j (row 0 of the tile), each
// vector's first lanes[v] lanes: stored as they are, or as alpha·sum + beta·C.
template <DType Out, int MR, int NV, DType In, class Acc>
__attribute__((always_inline)) inline void write_tile(const RowsJob<In>& job, const Acc (&sums)[MR][NV],
                                                      StorageT<Out>* c, std::int64_t j, const int (&lanes)[NV],
                                                      int first, int last) {
  // C's rows by threes, as A's in rows_block (there: why).
  constexpr int kBases = (MR + 2) / 3;
  StorageT<Out>* base[kBases];
#pragma GCC unroll 16
  for (int g = 0; g < kBases; ++g) base[g] = c + 3 * g * job.ldc + j;
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
    if (r < first || r >= last) continue;
    StorageT<Out>* crow = base[r / 3] + (r % 3) * job.ldc;
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      if (lanes[v] == 0) break;
      if (job.plain) store_c<Out>(crow + v * kLanes, sums[r][v], lanes[v]);
      else write_c<Out>(crow + v * kLanes, sums[r][v], lanes[v], job.scale);
    }
  }
}

// Accumulator sets over alternate steps of k: a tile with fewer than 8 accumulators would
// wait on the FMA latency (4 cycles, 2 FMAs a cycle), so it keeps 2 or 4 sets and adds them.
constexpr int accumulator_sets(int accumulators) { return accumulators >= 8 ? 1 : accumulators >= 4 ? 2 : 4; }

// An MR × NV-vector tile of C at c (row 0 of the tile), columns [j0, j0 + cols) with
// cols ≤ NV·kLanes: A(r, p) at a[r·a_rs + p·a_ks] with a_ks = 1 (kAUnitK) or a_rs = 1. All MR
// rows are computed; rows [first, last) are written (a tail tile overlaps the tile before it
// and writes only its own rows). kShiftB: B's rows are read from `shift` elements before
// column j0, a vector boundary (RowsOps::window), and need shift + cols ≤ NV·kLanes.
template <DType In, DType Out, int MR, int NV, bool kAUnitK, bool kShiftB = false>
__attribute__((always_inline)) inline void rows_block(const RowsJob<In>& job, const StorageT<In>* a, std::int64_t a_rs,
                                                      std::int64_t a_ks, StorageT<Out>* c, std::int64_t j0, int first,
                                                      int last, int cols, int shift = 0) {
  using Ops = RowsOps<In>;
  using Acc = typename Ops::Acc;
  constexpr int kSets = accumulator_sets(MR * NV);
  const std::int64_t k = job.k, b_ks = job.b_ks;
  Acc acc[kSets][MR][NV];
  Mask masks[NV];
  int lanes[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    lanes[v] = lanes_left(cols, v * kLanes);
    if constexpr (kShiftB) masks[v] = Ops::window(shift, cols, v);
    else masks[v] = first_lanes(lanes[v]);
  }
#pragma GCC unroll 8
  for (int t = 0; t < kSets; ++t) {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[t][r][v] = Acc{};
    }
  }
  const StorageT<In>* bp = job.b + j0 - (kShiftB ? shift : 0);
  // A's rows, when they run along k (kAUnitK), by threes: a pointer to every third row, the
  // two after it one and two strides on (base + index·scale addressing). With a pointer per
  // row, GCC runs out of general registers beyond ~10 rows, parks the pointers in vector
  // registers and moves them back at every step of k. The 16 × 16 × 16 tile kernel took 1.31×
  // the time of libxsmm's JIT code (which has the strides as constants) that way, 1.13× this
  // way. Otherwise (A along m) the rows are constant offsets from one pointer.
  constexpr int kBases = kAUnitK ? (MR + 2) / 3 : 1;
  const StorageT<In>* ap[kBases];
#pragma GCC unroll 16
  for (int g = 0; g < kBases; ++g) ap[g] = a + 3 * g * a_rs;
  auto step = [&](int t) __attribute__((always_inline)) {
    Acc bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = Ops::load_b(bp + v * kLanes, masks[v], lanes[v]);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      const Acc av = Ops::bcast_a(kAUnitK ? ap[r / 3] + (r % 3) * a_rs : ap[0] + r);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[t][r][v] = Ops::madd(acc[t][r][v], av, bv[v]);
    }
    bp += b_ks;
#pragma GCC unroll 16
    for (int g = 0; g < kBases; ++g) ap[g] += kAUnitK ? 1 : a_ks;
  };
  std::int64_t p = 0;
#pragma GCC unroll 2
  for (; p + kSets <= k; p += kSets) {
#pragma GCC unroll 8
    for (int t = 0; t < kSets; ++t) step(t);
  }
  for (; p < k; ++p) step(0);
#pragma GCC unroll 8
  for (int t = 1; t < kSets; ++t) {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[0][r][v] = sum(acc[0][r][v], acc[t][r][v]);
    }
  }
  if constexpr (kShiftB) {
    const VI index = Ops::shift_index(shift);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        acc[0][r][v] = Ops::shifted(acc[0][r][v], v + 1 < NV ? acc[0][r][v + 1] : Acc{}, index);
      }
    }
  }
  write_tile<Out, MR, NV>(job, acc[0], c, j0, lanes, first, last);
}

// One-row tiles take one vector more to read B from its vector boundaries
// (windowed_rows_block). Two-row tiles gained nothing from it: at 2 × 64 × 64 and 2 × 48 × 64
// with B 16 bytes past a line the wider tile took 104-106 and 90 ns, the plain one 106 and
// 86-89 (bench/results/2026-11-24c-cpu-shift/probe-shift.txt).
inline constexpr int kMaxWidenedShiftRows = 1;

// The elements by which B's rows start past a vector boundary, where the kernels can read B
// from that boundary instead (f32 with AVX-512: RowsOps::kShiftsB); 0 otherwise.
template <DType In>
inline int b_shift(const StorageT<In>* b, std::int64_t b_ks) {
  if constexpr (requires { RowsOps<In>::kShiftsB; }) return std::max(0, rows_offset<StorageT<In>, kLanes>(b, b_ks));
  return 0;
}

// B's rows' offset within a vector (b_shift) where a tile of n columns over all k rows should
// read B through the window (windowed_rows_block), 0 where not: the window pays only while the
// tile's lines of B stay in L1 (`lines_in_l1`: CpuGemmParams::b_lines_in_l1). Streamed from
// L2, the window's aligned loads took 1.2-1.4 times as long as loads of B where it lies:
// 1 × 64 × 64 with rows 1 KiB apart, 192-195 ns against 156-157; 1 × 256 × 256 on one-row
// tiles, 2857-2917 against 2057-2061. In L1 they take 0.6 times as long (rows 256 bytes
// apart: 63-64 against 107-108; bench/results/2026-11-24d-cpu-rows-window/).
template <DType In>
inline int window_shift(const StorageT<In>* b, std::int64_t b_ks, int lines_in_l1, std::int64_t n) {
  const int shift = b_shift<In>(b, b_ks);
  return shift > 0 && ceil_div(shift + n, kLanes) <= lines_in_l1 ? shift : 0;
}

// rows_block's tile, B's rows starting `shift` elements (window_shift) past a vector boundary.
// Where a row of the tile then spans a boundary, every full vector of B it loads would span
// two cache lines (1 × 64 × 64 with B 16 bytes past a line took 1.8 times as long as with B
// on one). The tile reads B from the boundary before instead, as the window of columns
// [j0 - shift, j0 + cols), and moves the sums back by `shift` lanes before C. The window takes
// one vector more than cols does when shift + cols passes the tile's last vector: only
// one-row tiles, whose loads of B are most of their work, take it then.
template <DType In, DType Out, int MR, int NV, bool kAUnitK>
__attribute__((always_inline)) inline void windowed_rows_block(const RowsJob<In>& job, const StorageT<In>* a,
                                                               std::int64_t a_rs, std::int64_t a_ks, StorageT<Out>* c,
                                                               std::int64_t j0, int first, int last, int cols,
                                                               int shift) {
  if constexpr (requires { RowsOps<In>::kShiftsB; }) {
    if (shift > 0 && shift + cols > kLanes) {
      if (shift + cols <= NV * kLanes) {
        return rows_block<In, Out, MR, NV, kAUnitK, true>(job, a, a_rs, a_ks, c, j0, first, last, cols, shift);
      }
      if constexpr (MR <= kMaxWidenedShiftRows) {
        return rows_block<In, Out, MR, NV + 1, kAUnitK, true>(job, a, a_rs, a_ks, c, j0, first, last, cols, shift);
      }
    }
  }
  rows_block<In, Out, MR, NV, kAUnitK>(job, a, a_rs, a_ks, c, j0, first, last, cols);
}

constexpr int largest_power_of_2_below(int x) {
  int h = 1;
  while (h * 2 < x) h *= 2;
  return x <= 1 ? 0 : h;
}

// `rows` < 2·H rows as tiles of H, H/2, ..., 1 rows, each height run once if that many rows
// are left: block(height, first row) with the height a std::integral_constant, so that each
// tile is compiled for its height. The last rows of the rows and dot kernels.
template <int H, class Block>
__attribute__((always_inline)) inline void halving_tiles(int rows, Block&& block, int done = 0) {
  if constexpr (H >= 1) {
    if (rows - done >= H) {
      block(std::integral_constant<int, H>{}, done);
      done += H;
    }
    halving_tiles<H / 2>(rows, block, done);
  }
}

// Rows [i_begin, i_end) × columns [j_begin, j_end) on the calling thread.
template <DType In, DType Out, int MR, int NV, bool kAUnitK>
__attribute__((noinline)) void rows_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b,
                                          StorageT<Out>* c, std::int64_t i_begin, std::int64_t i_end,
                                          std::int64_t j_begin, std::int64_t j_end) {
  using S = StorageT<In>;
  constexpr int NR = NV * kLanes;
  const RowsJob<In> job{b, P.k, P.b_ks, P.ldc, scale_of(P), P.alpha == 1 && P.beta == 0};
  const std::int64_t a_rs = P.a_rs, a_ks = P.a_ks;
  const std::int64_t full_end = i_begin + (i_end - i_begin) / MR * MR;
  const int tail_rows = int(i_end - full_end);
  // The last rows, fewer than MR. At most half a tile of them run as tiles of halving height
  // (17 rows on an 8-row tile: 8, 8, then 1), whose multiply-adds are the rows' own. More run
  // as the MR rows that end at i_end, recomputing rows of the tile before (which only that
  // tile writes): fewer than half a tile's, and in one tile at full speed rather than two or
  // three short ones, whose few rows share each load of B among fewer multiply-adds. A problem
  // of fewer than MR rows in all is copied into a zero-padded block instead.
  constexpr int kHalving = largest_power_of_2_below(MR / 2 + 1);  // tail_rows ≤ MR / 2 < 2·kHalving
  const bool halving = tail_rows > 0 && tail_rows <= MR / 2;
  const S* tail = nullptr;
  StorageT<Out>* tail_c = nullptr;
  std::int64_t tail_rs = a_rs, tail_ks = a_ks;
  int tail_first = 0;
  if (halving) {
    tail = a + full_end * a_rs;
    tail_c = c + full_end * P.ldc;
  } else if (tail_rows > 0 && i_end >= MR) {
    tail = a + (i_end - MR) * a_rs;
    tail_c = c + (i_end - MR) * P.ldc;
    tail_first = MR - tail_rows;
  } else if (tail_rows > 0) {
    S* pad = static_cast<S*>(thread_scratch(0, std::size_t(MR * P.k) * sizeof(S)));
    tail_rs = kAUnitK ? P.k : 1;
    tail_ks = kAUnitK ? 1 : MR;
    for (int r = 0; r < MR; ++r) {
      for (std::int64_t p = 0; p < P.k; ++p) {
        pad[r * tail_rs + p * tail_ks] = r < tail_rows ? a[(full_end + r) * a_rs + p * a_ks] : S{};
      }
    }
    tail = pad;
    tail_c = c + full_end * P.ldc;
  }
  // Kernels of one-row tiles read B through the window (windowed_rows_block) where it stays
  // in L1; every column tile starts at one offset within a vector, as they are whole vectors
  // apart. Taller kernels read B where it lies: with the window's tiles in the same function
  // (for their one-row last tiles), GCC kept an accumulator of the 8 × 2 tile on the stack,
  // and 32 × 32 × 32 took 476-519 ns against 298-304 with B on a line, where no tile takes it
  // (bench/results/2026-11-24d-cpu-rows-window/probe-rows-all-kernels.txt).
  constexpr bool kWindow = MR <= kMaxWidenedShiftRows;
  const int shift = kWindow ? window_shift<In>(b + j_begin, P.b_ks, P.b_lines_in_l1, NR) : 0;
  auto block = [&](auto height, const S* rows, std::int64_t rs, std::int64_t ks, StorageT<Out>* crows, std::int64_t j0,
                   int first, int last, int cols) __attribute__((always_inline)) {
    constexpr int kHeight = decltype(height)::value;
    if constexpr (kWindow) {
      windowed_rows_block<In, Out, kHeight, NV, kAUnitK>(job, rows, rs, ks, crows, j0, first, last, cols, shift);
    } else {
      rows_block<In, Out, kHeight, NV, kAUnitK>(job, rows, rs, ks, crows, j0, first, last, cols);
    }
  };
  constexpr std::integral_constant<int, MR> kTile;
  // Columns outermost: a column panel of B (k × NR) stays in L1 across the row tiles.
  for (std::int64_t j0 = j_begin; j0 < j_end; j0 += NR) {
    const int cols = int(min64(NR, j_end - j0));
    for (std::int64_t i = i_begin; i < full_end; i += MR) {
      block(kTile, a + i * a_rs, a_rs, a_ks, c + i * P.ldc, j0, 0, MR, cols);
    }
    if (halving) {
      halving_tiles<kHalving>(tail_rows, [&](auto height, int r) __attribute__((always_inline)) {
        block(height, tail + r * tail_rs, tail_rs, tail_ks, tail_c + r * P.ldc, j0, 0, height, cols);
      });
    } else if (tail_rows > 0) {
      block(kTile, tail, tail_rs, tail_ks, tail_c, j0, tail_first, tail_first + tail_rows, cols);
    }
  }
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
