// Direct kernels: no packing, operands read where they lie. For small problems, and for
// skinny ones (few rows of A against a large B), packing costs as much as the product itself.
//
// rows: B contiguous along n. An MR × NV-vector tile of C stays in registers over the whole of
// k; each step loads NV vectors of a row of B and broadcasts MR elements of A. Column tails
// are masked loads and stores. With AVX-512, one-row tiles and the tile kernel read B's rows
// off a vector boundary from the boundary before, which keeps their loads within lines, where
// B's lines stay in L1 (window_shift). The last rows, fewer than MR, run as tiles of halving
// height when they are at most half a tile, and otherwise as a tile that overlaps the one
// before and writes only its own rows, so no shape needs scalar edge code.
//
// dot: A and B contiguous along k (C = A·Wᵀ with W stored n × k). An MR × NC tile of dot
// products accumulates along k in vectors and is reduced at the end. Each row of W is read
// once per MR rows of A, so a skinny product streams W at memory speed.
//
// Every loop over a tile's rows or vectors is unrolled whole (32 covers the tallest tile, 24
// rows; 8 the widest, 8 vectors): one left rolled indexes the accumulators by a variable,
// which keeps them in memory, loaded and stored at every step of k. The 17-row tile kernel and
// the (1, 8) stream tile ran that way, the latter at half speed.
#pragma once

#include <algorithm>
#include <type_traits>

#include "cpu_tile_io.h"
#include "cpu_thread_pool.h"

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

// The work one hand-off to a pool worker costs, in multiply-adds of one core: starting it and
// seeing it finish take a cache-line transfer each way between cores (~0.3 µs apiece on the
// development machines, about 65k multiply-adds of AVX-512).
constexpr double kHandoffMacs = double(1 << 16);

// Splits rows [0, m) and columns [0, n) between `threads`, in whole tiles, along whichever
// has more tiles: each thread gets one contiguous range. The calling thread (t = 0) starts at
// once and learns of no one, so it takes a larger share the smaller the problem, to finish
// when the workers' results arrive.
struct Range2 {
  std::int64_t i0, i1, j0, j1;
};
inline Range2 thread_range(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_m, std::int64_t tile_n,
                           int t, int threads) {
  const double macs = double(m) * double(n) * double(k);
  const double lead = std::min(1.0, kHandoffMacs / macs) * (threads - 1) / threads;
  const bool by_columns = ceil_div(n, tile_n) >= ceil_div(m, tile_m);
  const std::int64_t tiles = by_columns ? ceil_div(n, tile_n) : ceil_div(m, tile_m);
  // Thread t's range of tiles is [edge(t), edge(t + 1)).
  auto edge = [&](int u) -> std::int64_t {
    if (u == 0) return 0;
    if (u >= threads) return tiles;
    const double first = 1.0 / threads + lead;  // the caller's fraction
    const double share = first + (1.0 - first) * double(u - 1) / double(threads - 1);
    return std::min<std::int64_t>(tiles, std::int64_t(double(tiles) * share + 0.5));
  };
  const std::int64_t begin = edge(t), end = edge(t + 1);
  if (by_columns) return {0, m, min64(n, begin * tile_n), min64(n, end * tile_n)};
  return {min64(m, begin * tile_m), min64(m, end * tile_m), 0, n};
}

// The entry of a direct kernel: empty problems, k = 0, and the split between threads around
// range(P, a, b, c, i0, i1, j0, j1), which computes one block of C on the calling thread.
template <DType In, DType Out, class Range>
inline void run_direct(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr, std::int64_t tile_m,
                       std::int64_t tile_n, Range range) {
  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  const auto* b = static_cast<const StorageT<In>*>(b_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.m == 0 || P.n == 0) return;
  if (P.k == 0) return scale_c_only<Out, AccVec<In>>(P, c);
  if (P.threads <= 1) return range(P, a, b, c, 0, P.m, 0, P.n);
  auto body = [&](int t, int threads) {
    const Range2 r = thread_range(P.m, P.n, P.k, tile_m, tile_n, t, threads);
    if (r.i0 < r.i1 && r.j0 < r.j1) range(P, a, b, c, r.i0, r.i1, r.j0, r.j1);
  };
  parallel_for_threads(P.threads, body);
}

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

// ---- dot ----

// Vectors along k of A and of W, and their dot product accumulated per lane. kStep: k values
// one vector covers.
template <DType In> struct DotOps;
template <> struct DotOps<DType::f32> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const float* p, int n) { return n >= kLanes ? load_f(p) : lanes_f32(p, n); }
  static VF load_w(const float* p, int n) { return load_a(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
template <> struct DotOps<DType::f16> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const std::uint16_t* p, int n) { return lanes_f16(p, n); }
  static VF load_w(const std::uint16_t* p, int n) { return lanes_f16(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
#if GEMMTUNE_ISA_LEVEL >= 4
template <> struct DotOps<DType::bf16> {
  static constexpr int kStep = 2 * kLanes;
  using Acc = VF;
  using Operand = VI;
  static VI load_a(const std::uint16_t* p, int n) { return raw_bytes(p, 2 * n); }
  static VI load_w(const std::uint16_t* p, int n) { return raw_bytes(p, 2 * n); }
  static VF madd(VF acc, VI a, VI w) { return dpbf16(acc, a, w); }
};
#else
template <> struct DotOps<DType::bf16> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const std::uint16_t* p, int n) { return lanes_bf16(p, n); }
  static VF load_w(const std::uint16_t* p, int n) { return lanes_bf16(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
#endif
#if GEMMTUNE_ISA_LEVEL >= 3
// VNNI multiplies u8 by s8: W's bytes are shifted to unsigned (an xor of the sign bit, so a
// zero-filled tail still contributes nothing against A's zeros), which adds 128·Σ_k A to every
// dot product; the tile subtracts it at the end.
template <> struct DotOps<DType::s8> {
  static constexpr int kStep = 4 * kLanes;
  static constexpr bool kShiftW = true;
  using Acc = VI;
  using Operand = VI;
  static VI load_a(const std::int8_t* p, int n) { return raw_bytes(p, n); }
  static VI load_w(const std::int8_t* p, int n) { return xor_i(raw_bytes(p, n), set1_i(std::int32_t(0x80808080u))); }
  static VI madd(VI acc, VI a, VI w) { return dpbusd(acc, w, a); }
};
#else
template <> struct DotOps<DType::s8> {
  static constexpr int kStep = 2 * kLanes;
  using Acc = VI;
  using Operand = VI;
  static VI load_a(const std::int8_t* p, int n) { return s8_pairs(p, n); }
  static VI load_w(const std::int8_t* p, int n) { return s8_pairs(p, n); }
  static VI madd(VI acc, VI a, VI w) { return madd16(acc, a, w); }
};
#endif

template <class Ops, class = void> struct ShiftsW : std::false_type {};
template <class Ops> struct ShiftsW<Ops, std::void_t<decltype(Ops::kShiftW)>> : std::bool_constant<Ops::kShiftW> {};

inline float reduce(VF v) { return reduce_f(v); }
inline std::int32_t reduce(VI v) { return reduce_i(v); }

// One element of C from a finished dot product, in C's dtype.
template <DType Out, class T>
inline void write_element(StorageT<Out>* p, T dot, const Scale& s) {
  if constexpr (Out == DType::s32) {
    std::int32_t v = s.alpha_one ? dot : std::int32_t(std::uint32_t(s.alpha_i) * std::uint32_t(dot));
    if (!s.beta_zero) v = std::int32_t(std::uint32_t(v) + std::uint32_t(s.beta_i) * std::uint32_t(*p));
    *p = v;
  } else {
    float v = s.alpha * float(dot);
    if constexpr (Out == DType::f32) {
      if (!s.beta_zero) v += s.beta * *p;
      *p = v;
    } else if constexpr (Out == DType::f16) {
      if (!s.beta_zero) v += s.beta * scalar_f16(*p);
      *p = f16_store(v);
    } else {
      if (!s.beta_zero) v += s.beta * bf16_bits_to_float(*p);
      *p = float_to_bf16_bits(v);
    }
  }
}

// What every tile of one call shares, as locals (see RowsJob). head: the k values before one
// operand's rows reach a vector boundary (dot_head), run as a first, masked step.
struct DotJob {
  std::int64_t k, a_rs, b_cs, ldc;
  Scale scale;
  int head;
};

// Where k step s of a dot tile begins: step 0 is the head when there is one, and every later
// step a whole vector of W.
template <int kStep>
inline std::int64_t dot_step_begin(std::int64_t s, int head) {
  return head == 0 ? s * kStep : s == 0 ? 0 : head + (s - 1) * kStep;
}
template <int kStep>
inline std::int64_t dot_steps(std::int64_t k, int head) {
  return head == 0 ? ceil_div(k, kStep) : 1 + ceil_div(k - head, kStep);
}

// The head of a dot kernel's k loop (aligned_head): the k values before one operand's rows
// reach a vector boundary, after which every load of that operand is aligned. A's, when a step
// loads more of its rows (MR, read where they lie) than of W's columns (NC) and its rows share
// one offset; W's otherwise, and always when A is packed (its steps lie on boundaries whatever
// the head). Where A's and W's rows share their offset, either head aligns both.
template <DType In, int MR, int NC>
inline int dot_head(const StorageT<In>* a, std::int64_t a_rs, const StorageT<In>* w, std::int64_t b_cs,
                    std::int64_t k, bool packed_a) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  if (!packed_a && MR > NC && rows_offset<S, kStep>(a, a_rs) >= 0) return aligned_head<S, kStep>(a, a_rs, k);
  return aligned_head<S, kStep>(w, b_cs, k);
}

// An MR × NC tile of C at c (row 0 of the tile, column 0 of W at w). A comes either as rows
// a_rs apart (kPackedA false) or packed: for each k step, the tile's MR vectors one after the
// other, zero past k (pack_dot_rows). Rows [first, last) of the tile are written.
template <DType In, DType Out, int MR, int NC, bool kPackedA>
void dot_block(const DotJob& job, const StorageT<In>* a, const StorageT<In>* w, StorageT<Out>* c, int first,
               int last) {
  using Ops = DotOps<In>;
  using Acc = typename Ops::Acc;
  constexpr bool kShift = ShiftsW<Ops>::value;
  constexpr int kStep = Ops::kStep;
  const std::int64_t k = job.k, a_rs = job.a_rs, b_cs = job.b_cs;
  Acc acc[MR][NC];
  VI a_sums[MR];  // Σ_k A per row, for the compensation of a shifted W
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
    a_sums[r] = zero_i();
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) acc[r][q] = Acc{};
  }
  // One step of n values of k: W's columns from w_at, A's rows from a_at, or packed A's
  // vectors for the step at a_step.
  auto step = [&](const StorageT<In>* w_at, const StorageT<In>* a_at, const StorageT<In>* a_step, int n)
                  __attribute__((always_inline)) {
    typename Ops::Operand wv[NC];
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) wv[q] = Ops::load_w(w_at + q * b_cs, n);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      const typename Ops::Operand x =
          kPackedA ? Ops::load_a(a_step + r * kStep, kStep) : Ops::load_a(a_at + r * a_rs, n);
#if GEMMTUNE_ISA_LEVEL >= 3
      if constexpr (kShift) a_sums[r] = dpbusd(a_sums[r], set1_i(0x01010101), x);
#endif
#pragma GCC unroll 8
      for (int q = 0; q < NC; ++q) acc[r][q] = Ops::madd(acc[r][q], x, wv[q]);
    }
  };
  const int head = job.head;
  if (head > 0) step(w, a, a, head);
  // The rest from offset 0 of rebased pointers: the loop's one index addresses every row of W
  // from a fixed base (GCC recomputed each row's address every step when the index began at
  // the head, and the stream of W slowed by 15 %).
  const StorageT<In>* w_rest = w + head;
  const StorageT<In>* a_rest = a + head;
  const StorageT<In>* packed_rest = a + (head > 0 ? MR * kStep : 0);
  const std::int64_t rest = k - head;
  std::int64_t p = 0;
  for (; p + kStep <= rest; p += kStep) step(w_rest + p, a_rest + p, packed_rest + p * MR, kStep);
  if (p < rest) step(w_rest + p, a_rest + p, packed_rest + p * MR, int(rest - p));
  if constexpr (In != DType::s8) {  // f32 accumulators
    // The MR dot products of a column reduced together, kLanes at a time.
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) {
#pragma GCC unroll 8
      for (int r0 = 0; r0 < MR; r0 += kLanes) {
        VF group[kLanes];
#pragma GCC unroll 32
        for (int l = 0; l < kLanes; ++l) group[l] = r0 + l < MR ? acc[r0 + l < MR ? r0 + l : 0][q] : zero_f();
        const VF sums = reduce_lanes(group);
        if (job.ldc == 1 && first == 0) {
          // A one-column C: the sums are consecutive elements of C.
          write_c<Out>(c + r0 + q, sums, std::min(kLanes, last - r0), job.scale);
          continue;
        }
        alignas(64) float lane[kLanes];
        store_f(lane, sums);
        for (int l = 0; l < kLanes && r0 + l < MR; ++l) {
          if (r0 + l >= first && r0 + l < last) write_element<Out>(c + (r0 + l) * job.ldc + q, lane[l], job.scale);
        }
      }
    }
  } else {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      if (r < first || r >= last) continue;
      const std::int32_t shift = kShift ? 128 * reduce_i(a_sums[r]) : 0;
#pragma GCC unroll 8
      for (int q = 0; q < NC; ++q) {
        std::int32_t dot = reduce(acc[r][q]);
        if constexpr (kShift) dot = std::int32_t(std::uint32_t(dot) - std::uint32_t(shift));
        write_element<Out>(c + r * job.ldc + q, dot, job.scale);
      }
    }
  }
}

// Rows [i_begin, i_end) of A, contiguous along k, packed for dot_block: tile t of MR rows,
// step s of at most kStep values (dot_step_begin): MR vectors at out[(t·steps + s)·MR·kStep],
// zero past the step's end and past the last row. The rows of A sit k elements apart, often a
// multiple of 4 KiB: read side by side they would all fall in one L1 set; packed, a tile's
// rows are one stream.
template <DType In, int MR>
void pack_dot_rows(const StorageT<In>* a, std::int64_t a_rs, std::int64_t k, int head, std::int64_t rows,
                   StorageT<In>* out) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  const std::int64_t steps = dot_steps<kStep>(k, head);
  for (std::int64_t t = 0; t < ceil_div(rows, MR); ++t) {
    for (int r = 0; r < MR; ++r) {
      const std::int64_t row = t * MR + r;
      S* dst = out + t * steps * MR * kStep + r * kStep;
      for (std::int64_t q = 0; q < steps; ++q) {
        S* step = dst + q * MR * kStep;
        const std::int64_t begin = dot_step_begin<kStep>(q, head);
        const std::int64_t count = row >= rows ? 0 : min64(q == 0 && head > 0 ? head : kStep, k - begin);
        if (count < kStep) __builtin_memset(step, 0, sizeof(S) * kStep);
        if (count > 0) __builtin_memcpy(step, a + row * a_rs + begin, std::size_t(count) * sizeof(S));
      }
    }
  }
}

template <DType In, DType Out, int MR, int NC>
void dot_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
               std::int64_t i_begin, std::int64_t i_end, std::int64_t j_begin, std::int64_t j_end) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  const std::int64_t rows = i_end - i_begin;
  a += i_begin * P.a_rs;
  c += i_begin * P.ldc;
  // A is packed when it is reused over enough tiles of columns to repay the copy.
  const bool pack_a = j_end - j_begin >= 8 * NC;
  const DotJob job{P.k, P.a_rs, P.b_cs, P.ldc, scale_of(P), dot_head<In, MR, NC>(a, P.a_rs, b, P.b_cs, P.k, pack_a)};
  if (pack_a) {
    const std::int64_t tile = dot_steps<kStep>(P.k, job.head) * MR * kStep;
    S* packed = static_cast<S*>(thread_scratch(0, std::size_t(ceil_div(rows, MR) * tile) * sizeof(S)));
    pack_dot_rows<In, MR>(a, P.a_rs, P.k, job.head, rows, packed);
    auto columns = [&](auto nc, std::int64_t j) {
      for (std::int64_t i = 0; i < rows; i += MR) {
        dot_block<In, Out, MR, decltype(nc)::value, true>(job, packed + (i / MR) * tile, b + j * P.b_cs, c + i * P.ldc + j,
                                                         0, int(min64(MR, rows - i)));
      }
    };
    // Columns outermost: NC rows of W stay in L1 while every row tile of A passes them.
    std::int64_t j = j_begin;
    for (; j + NC <= j_end; j += NC) columns(std::integral_constant<int, NC>{}, j);
    for (; j < j_end; ++j) columns(std::integral_constant<int, 1>{}, j);
    return;
  }
  auto columns = [&](auto nc, std::int64_t j) {
    constexpr int kColumns = decltype(nc)::value;
    std::int64_t i = 0;
    for (; i + MR <= rows; i += MR) {
      dot_block<In, Out, MR, kColumns, false>(job, a + i * P.a_rs, b + j * P.b_cs, c + i * P.ldc + j, 0, MR);
    }
    halving_tiles<largest_power_of_2_below(MR)>(int(rows - i), [&](auto height, int r) __attribute__((always_inline)) {
      dot_block<In, Out, decltype(height)::value, kColumns, false>(job, a + (i + r) * P.a_rs, b + j * P.b_cs,
                                                                   c + (i + r) * P.ldc + j, 0, height);
    });
  };
  std::int64_t j = j_begin;
  for (; j + NC <= j_end; j += NC) columns(std::integral_constant<int, NC>{}, j);
  for (; j < j_end; ++j) columns(std::integral_constant<int, 1>{}, j);
}

template <DType In, DType Out, int MR, int NC>
void gemm_direct_dot(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  run_direct<In, Out>(P, a, b, c, MR, NC, &dot_range<In, Out, MR, NC>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
