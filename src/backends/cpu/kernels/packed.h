// The packed kernel: GotoBLAS blocking around a register-tiled micro-kernel.
//
// For each nc-wide column block and kc-deep slice of k, B's slice is packed into NR-wide
// micro-panels (kept in L2), then for each mc-tall row block A is packed into MR-tall
// micro-panels (L2), and the micro-kernel runs every (B micro-panel, A micro-panel) pair with
// the B micro-panel in L1. An f32 A whose rows run along k is not packed: its tiles broadcast
// straight from A's rows (see block()). Rows past a block's whole MR-row tiles run in short
// tiles (cpu_row_tiles.h), not in a whole tile of padding. Threads each take a block of C
// (grid_m × grid_n of them) and pack their own panels: no barriers and no shared buffers, at
// the price of packing the shared operand once per thread, which is small next to the product
// on the sizes that use threads.
#pragma once

#include "../cpu_pack.h"
#include "../cpu_row_tiles.h"
#include "../cpu_thread_pool.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

inline std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

// MR × NR accumulators over groups [q_begin, q_end) of a packed A micro-panel (MR words per
// group) and B micro-panel (NR words per group), added to acc. They stay in registers for the
// whole slice: that is the point of the tile, and why its size is bounded by the register file.
// kDirectA: pa is A itself (f32 words along k), its rows a_rs words apart, not a packed panel.
// Four steps a turn: rolled, the loop's count, pointers and branch shared the FMA ports' cycles,
// and a 6 × 16 AVX2 tile ran 3-5 % slower (bench/results/2026-11-30d-cpu-packed-tiles.md).
template <class F, int MR, int NV, bool kDirectA>
inline void micro_steps(std::int64_t q_begin, std::int64_t q_end, const std::int32_t* __restrict pa, std::int64_t a_rs,
                        const std::int32_t* __restrict pb, typename F::Acc (&acc)[MR][NV]) {
  pa += kDirectA ? q_begin : q_begin * MR;
  pb += q_begin * NV * kLanes;
#pragma GCC unroll 4
  for (std::int64_t q = q_begin; q < q_end; ++q) {
    typename F::Operand bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = F::load_b(pb + v * kLanes);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const typename F::Operand av = F::bcast_a(kDirectA ? pa + r * a_rs : pa + r);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = F::madd(acc[r][v], av, bv[v]);
    }
    pa += kDirectA ? 1 : MR;
    pb += NV * kLanes;
  }
}

// How many k groups before a tile's end its rows of C are fetched into L1: short enough that
// the panels streaming through L1 meanwhile do not evict them again (the rows of a C whose
// leading dimension is a power of two share one L1 set), long enough for a line from L2.
constexpr std::int64_t kNearCGroups = 32;

// The whole slice of one tile. fetch_c(far) runs at its start (far: C's rows to L2, a whole
// k loop ahead, time enough for DRAM) and again kNearCGroups before its end (into L1).
template <class F, int MR, int NV, bool kDirectA, class FetchC>
__attribute__((always_inline)) inline void micro_tile(std::int64_t groups, const std::int32_t* __restrict pa, std::int64_t a_rs,
                                                      const std::int32_t* __restrict pb,
                                                      typename F::Acc (&acc)[MR][NV], FetchC fetch_c) {
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = typename F::Acc{};
  }
  fetch_c(true);
  const std::int64_t split = groups > kNearCGroups ? groups - kNearCGroups : 0;
  micro_steps<F, MR, NV, kDirectA>(0, split, pa, a_rs, pb, acc);
  fetch_c(false);
  micro_steps<F, MR, NV, kDirectA>(split, groups, pa, a_rs, pb, acc);
}

// Where one tile's results go, and which k slice produced them.
struct TileTarget {
  void* c;                    // C at the tile's first element
  std::int64_t ldc;
  void* sums;                 // f32 partial sums at the tile (narrow C over several slices)
  std::int64_t lds;
  const std::int32_t* comp;   // dpbusd compensation at the tile's first column, or null
  int rows, cols;             // the valid part of the tile
  bool first, last;           // first and last k slice
};

// Fetches the tile's rows of C (or of the narrow C's f32 sums) into L2 (far) or L1. A product
// whose C outgrows L2 reads and writes it once per k slice; unfetched, each tile waited for its
// rows at its end (a tenth of a 1024³ product on Zen 3: bench/results/2026-11-29b-cpu-zen3-pack.md).
// Always inlined, as prefetch_l1 is: GCC drops an out-of-line function that only prefetches.
template <DType Out, int MR, int NR>
__attribute__((always_inline)) inline void prefetch_tile(const TileTarget& t, bool far) {
  const bool to_sums = t.sums != nullptr && !(t.first && t.last);
  const std::size_t elem = to_sums ? 4 : sizeof(StorageT<Out>);
  const auto* base = static_cast<const unsigned char*>(to_sums ? t.sums : t.c);
  const std::int64_t ld = to_sums ? t.lds : t.ldc;
  const std::size_t span = std::size_t(t.cols) * elem;
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    if (r >= t.rows) break;
    const unsigned char* row = base + std::size_t(r * ld) * elem;
    // Every line the row's span touches: one per 64 bytes, and its last byte's line, which a
    // span that starts mid-line reaches into.
    for (std::size_t at = 0; at < span; at += 64) far ? prefetch_l2(row + at) : prefetch_l1(row + at);
    far ? prefetch_l2(row + span - 1) : prefetch_l1(row + span - 1);
  }
}

// C = alpha·acc + beta·C on the first slice, C += alpha·acc after; a narrow C (f16, bf16) sums
// the slices in f32 and is written once, rounded once.
template <class F, DType Out, int MR, int NV>
inline void store_tile(typename F::Acc (&acc)[MR][NV], const TileTarget& t, const Scale& s) {
  using O = StorageT<Out>;
  constexpr bool kNarrow = Out == DType::f16 || Out == DType::bf16;
  if constexpr (F::kShiftA) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const VI comp = load_i(t.comp + v * kLanes);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) acc[r][v] = add_i(acc[r][v], comp);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    if (r >= t.rows) break;
    O* crow = static_cast<O*>(t.c) + r * t.ldc;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const int n = lanes_left(t.cols, v * kLanes);
      if (n == 0) break;
      if constexpr (!kNarrow) {
        if (t.first) write_c<Out>(crow + v * kLanes, acc[r][v], n, s);
        else add_to_c<Out>(crow + v * kLanes, acc[r][v], n, s);
      } else {
        float* srow = static_cast<float*>(t.sums) + r * t.lds + v * kLanes;
        if (t.first && t.last) write_c<Out>(crow + v * kLanes, acc[r][v], n, s);
        else if (t.first) store_f(srow, acc[r][v]);
        else if (!t.last) store_f(srow, add_f(load_f(srow), acc[r][v]));
        else write_c<Out>(crow + v * kLanes, add_f(load_f(srow), acc[r][v]), n, s);
      }
    }
  }
}

template <DType In, DType Out, int MR, int NV>
struct PackedGemm {
  using F = typename FormatOf<In>::type;
  using S = StorageT<In>;
  using O = StorageT<Out>;
  static constexpr int NR = NV * kLanes;
  static constexpr int SR = short_tile_rows(MR, NV);  // a short tile's rows (cpu_row_tiles.h)
  static constexpr int G = F::kGroup;
  static constexpr bool kNarrow = Out == DType::f16 || Out == DType::bf16;

  // C rows [i_begin, i_end) × columns [j_begin, j_end) on the calling thread.
  static void block(const CpuGemmParams& P, const S* a, const S* b, O* c, std::int64_t i_begin, std::int64_t i_end,
                    std::int64_t j_begin, std::int64_t j_end) {
    const Scale s = scale_of(P);
    // f32 A with rows along k (nn, nt): a tile reads its rows in place, the A panels left
    // unpacked but the last one whose rows pass m. Packing cost a 6-row AVX2 panel an 8 × 8
    // transpose per 48 words, 4-6 % of a 256³ product, and bought nothing the tile's loads
    // need: each row is read along its length, one line per 16 steps, and stays in L1 across
    // the tile (bench/results/2026-11-30e-cpu-direct-a.md).
    constexpr bool kCanDirect = std::is_same_v<F, FmaFormat> && In == DType::f32;
    const bool direct = kCanDirect && P.a_ks == 1;
    const std::int64_t mc = P.block_m, nc = P.block_n, kc = round_up(P.block_k, G);
    const std::int64_t max_groups = kc / G;
    const std::int64_t a_width = round_up(min64(mc, i_end - i_begin), MR);
    const std::int64_t b_width = round_up(min64(nc, j_end - j_begin), NR);
    auto* pa = static_cast<std::int32_t*>(thread_scratch(0, std::size_t(a_width * max_groups) * 4));
    auto* pb = static_cast<std::int32_t*>(thread_scratch(1, std::size_t(b_width * max_groups) * 4));
    std::int32_t* comp = F::kShiftA ? static_cast<std::int32_t*>(thread_scratch(3, std::size_t(b_width) * 4)) : nullptr;
    // Partial sums of a narrow C: every row of the block × one column block.
    const std::int64_t lds = b_width;
    float* sums = kNarrow && P.k > kc
                      ? static_cast<float*>(thread_scratch(2, std::size_t(round_up(i_end - i_begin, MR) * lds) * 4))
                      : nullptr;

    for (std::int64_t jc = j_begin; jc < j_end; jc += nc) {
      const std::int64_t nb = min64(nc, j_end - jc);
      const std::int64_t b_panels = ceil_div(nb, NR);
      for (std::int64_t pc = 0; pc < P.k; pc += kc) {
        const std::int64_t kb = min64(kc, P.k - pc);
        const std::int64_t groups = ceil_div(kb, G);
        pack_panels<F, In>(b + pc * P.b_ks + jc * P.b_cs, P.b_cs, P.b_ks, nb, kb, NR, pb);
#if GEMMTUNE_ISA_LEVEL >= 3
        if constexpr (F::kShiftA) {
          for (std::int64_t jp = 0; jp < b_panels; ++jp) shift_compensation(pb + jp * NR * groups, groups, NR, comp + jp * NR);
        }
#endif
        TileTarget t{};
        t.ldc = P.ldc;
        t.lds = lds;
        t.first = pc == 0;
        t.last = pc + kb >= P.k;
        for (std::int64_t ic = i_begin; ic < i_end; ic += mc) {
          const std::int64_t mb = min64(mc, i_end - ic);
          // The block's A panels: plan.full whole ones of MR rows, then short ones of SR rows.
          // A panel's words start where its first row's would in panels of one row each.
          const RowTiles plan = row_tiles(mb, MR, SR);
          const std::int64_t a_panels = plan.full + plan.short_tiles;
          auto first_row = [&](std::int64_t ip) {
            return ip <= plan.full ? ip * MR : plan.full * MR + (ip - plan.full) * SR;
          };
          for (std::int64_t ip = 0; ip < a_panels; ++ip) {
            const std::int64_t r = first_row(ip);
            const int height = ip < plan.full ? MR : SR;
            if (direct && mb - r >= height) continue;
            pack_panel<F, In, F::kShiftA>(a + (ic + r) * P.a_rs + pc * P.a_ks, P.a_rs, P.a_ks,
                                          int(min64(height, mb - r)), kb, height, pa + r * groups);
          }
          for (std::int64_t jp = 0; jp < b_panels; ++jp) {
            t.cols = int(min64(NR, nb - jp * NR));
            t.comp = comp != nullptr ? comp + jp * NR : nullptr;
            const std::int32_t* b_panel = pb + jp * NR * groups;
            for (std::int64_t ip = 0; ip < a_panels; ++ip) {
              const std::int64_t r = first_row(ip), i = ic + r;
              t.c = c + i * P.ldc + jc + jp * NR;
              t.sums = sums != nullptr ? sums + (i - i_begin) * lds + jp * NR : nullptr;
              const int height = ip < plan.full ? MR : SR;
              if (direct && mb - r >= height) {
                if constexpr (kCanDirect) {
                  const auto* ad = reinterpret_cast<const std::int32_t*>(a + i * P.a_rs + pc);
                  if (ip < plan.full) tile<MR, true>(groups, ad, P.a_rs, b_panel, t, i_end - i, s);
                  else if constexpr (SR < MR) tile<SR, true>(groups, ad, P.a_rs, b_panel, t, i_end - i, s);
                }
              } else if (ip < plan.full) {
                tile<MR, false>(groups, pa + r * groups, 0, b_panel, t, i_end - i, s);
              } else if constexpr (SR < MR) {
                tile<SR, false>(groups, pa + r * groups, 0, b_panel, t, i_end - i, s);
              }
            }
          }
        }
      }
    }
  }

  // One R-row tile over a packed A panel of R rows (`rows_left` of C's rows from its first).
  template <int R, bool kDirectA>
  __attribute__((always_inline)) static void tile(std::int64_t groups, const std::int32_t* pa, std::int64_t a_rs, const std::int32_t* pb,
                                                  TileTarget& t, std::int64_t rows_left, const Scale& s) {
    t.rows = int(min64(R, rows_left));
    typename F::Acc acc[R][NV];
    micro_tile<F, R, NV, kDirectA>(groups, pa, a_rs, pb, acc,
                         [&t](bool far) __attribute__((always_inline)) { prefetch_tile<Out, R, NR>(t, far); });
    store_tile<F, Out, R, NV>(acc, t, s);
  }

  static void run(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
    const auto* a = static_cast<const S*>(a_ptr);
    const auto* b = static_cast<const S*>(b_ptr);
    auto* c = static_cast<O*>(c_ptr);
    if (P.m == 0 || P.n == 0) return;
    if (P.k == 0) return scale_c_only<Out, AccVec<In>>(P, c);
    if (P.threads <= 1) return block(P, a, b, c, 0, P.m, 0, P.n);
    auto body = [&](int t, int threads) {
      int gm = P.grid_m, gn = P.grid_n;
      if (gm * gn != threads) gm = threads, gn = 1;  // the pool gave fewer threads than planned
      // Rows in steps of a short tile: 256 rows on two threads run as 128 + 128 (20 whole 6-row
      // tiles and 2 short ones each), not 132 + 124 (22 whole tiles on the first).
      const std::int64_t rows = round_up(ceil_div(P.m, gm), SR), cols = round_up(ceil_div(P.n, gn), NR);
      const std::int64_t i0 = min64(P.m, (t % gm) * rows), j0 = min64(P.n, (t / gm) * cols);
      const std::int64_t i1 = min64(P.m, i0 + rows), j1 = min64(P.n, j0 + cols);
      if (i0 < i1 && j0 < j1) block(P, a, b, c, i0, i1, j0, j1);
    };
    parallel_for_threads(P.threads, body);
  }
};

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
