// The AMX kernel (amx_kernels.h). This file alone is compiled with the AMX and AVX-512 flags
// (src/CMakeLists.txt); the amx backend calls into it only where amx_unavailable_reason() is
// empty, so nothing here runs on a CPU without them.
//
// Blocking, per thread (each takes a range of P's columns, or of R's rows where R has more than
// twice P's columns; run_share and amx_gemm):
//   for each block of block_n columns of P:
//     for each block_k-deep slice of k:
//       pack P's slice of the block into VNNI panels (kept in L2);
//       for each 16- or 32-row block of R (its slice read in place, kept in L1):
//         for each 16- or 32-column tile of the block: C tiles += R tiles · P tiles, step by step
//         of 64 bytes of k; partial sums wait in a buffer between slices, and the last slice
//         writes C (alpha, beta, the output dtype; transposed with swap).
// So R streams from memory once per column block and P once per call: for C = X·Wᵀ with swap,
// the weights W are R and are read once for each block_n columns of X (once up to 256 rows).
#include "amx_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "../../core/scalar_convert.h"
#include "cpu_kernels.h"
#include "cpu_thread_pool.h"

namespace gemmtune::cpu {
namespace {

// Tile instructions as inline assembly with a memory clobber on the loads and stores: GCC's
// intrinsics declare no memory operand, so a store into a packed buffer could be moved past the
// tile load that reads it. Register numbers are literals (the mnemonics take no variable).
#define GT_AMX_LOAD(t, base, stride) \
  asm volatile("tileloadd (%0,%1,1), %%tmm" #t ::"r"(base), "r"(std::int64_t(stride)) : "memory")
#define GT_AMX_STORE(t, base, stride) \
  asm volatile("tilestored %%tmm" #t ", (%0,%1,1)" ::"r"(base), "r"(std::int64_t(stride)) : "memory")
#define GT_AMX_ZERO(t) asm volatile("tilezero %%tmm" #t ::)
#define GT_AMX_DP_BF16(c, r, p) asm volatile("tdpbf16ps %%tmm" #p ", %%tmm" #r ", %%tmm" #c ::)
#define GT_AMX_DP_S8(c, r, p) asm volatile("tdpbssd %%tmm" #p ", %%tmm" #r ", %%tmm" #c ::)

constexpr std::int64_t kTileBytes = 1024;  // 16 rows of 64 bytes
constexpr std::int64_t kRowBytes = 64;

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Palette 1, every register 16 rows of 64 bytes: C tiles of 16 × 16 accumulators, R tiles of 16
// rows × 64 bytes of k, P tiles of 16 groups of k × 16 columns. Edges are padded, not shrunk,
// so one configuration serves the whole call.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);

void configure_tiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = kRowBytes;
    config.rows[t] = 16;
  }
  // The whole 64 bytes as the operand: GCC 12's _tile_loadconfig names only the first 8 as read,
  // so the compiler may drop the stores of the rows and widths as dead, and ldtilecfg then
  // faults on palette 1 with no tiles. It did so in bench/probes/cpu_bounds/amx_peak.cc at -O2;
  // here the stores happened to stay.
  asm volatile("ldtilecfg %0" ::"m"(config));
}

// The call's operands seen as R (rows along k, in place) and P (packed), in bytes.
struct Operands {
  const std::uint8_t* r = nullptr;
  std::int64_t r_rows = 0, r_stride = 0;  // bytes between R's rows
  const std::uint8_t* p = nullptr;
  std::int64_t p_cols = 0, p_ks = 0, p_cs = 0;  // elements
  std::int64_t k = 0;
  int element = 2;  // bytes: 2 bf16, 1 s8
  int group = 2;    // elements of k per 4-byte VNNI group
  std::int64_t k_step = 32;
};

// One 64-byte row of a panel: the group of k at `kk` of P's columns [jq, jq + cq), zeros past
// them and past k_end.
inline void pack_group(const Operands& o, std::int64_t jq, std::int64_t cq, std::int64_t kk, std::int64_t k_end,
                       std::uint8_t* row) {
  const int e = o.element, g = o.group;
  const bool whole = cq == 16 && kk + g <= k_end;
  if (whole && o.p_cs == 1) {
    // P's rows lie along its columns (an nn B): interleave g rows of 16 elements.
    const std::uint8_t* src = o.p + kk * o.p_ks * e + jq * e;
    if (e == 2) {
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
      const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + o.p_ks * 2));
      const __m256i lo = _mm256_unpacklo_epi16(x0, x1), hi = _mm256_unpackhi_epi16(x0, x1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row), _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
    } else {
      const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
      const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + o.p_ks));
      const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * o.p_ks));
      const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * o.p_ks));
      const __m128i t0 = _mm_unpacklo_epi8(x0, x1), t1 = _mm_unpackhi_epi8(x0, x1);
      const __m128i t2 = _mm_unpacklo_epi8(x2, x3), t3 = _mm_unpackhi_epi8(x2, x3);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row), _mm_unpacklo_epi16(t0, t2));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row + 16), _mm_unpackhi_epi16(t0, t2));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row + 32), _mm_unpacklo_epi16(t1, t3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row + 48), _mm_unpackhi_epi16(t1, t3));
    }
  } else if (whole && o.p_ks == 1) {
    // P's columns lie along k (A with swap, or an nt B): each column's group is 4 bytes.
    for (int c = 0; c < 16; ++c) std::memcpy(row + 4 * c, o.p + ((jq + c) * o.p_cs + kk) * e, 4);
  } else {
    std::memset(row, 0, kRowBytes);
    for (int c = 0; c < cq; ++c) {
      for (int x = 0; x < g && kk + x < k_end; ++x) {
        std::memcpy(row + 4 * c + x * e, o.p + ((kk + x) * o.p_ks + (jq + c) * o.p_cs) * e, std::size_t(e));
      }
    }
  }
}

// Packs P's columns [j0, j0 + cols) over k [k0, k0 + depth) into panels of 16 columns: panel q,
// step s (64 bytes of k) at dst + (q·steps + s)·1 KB, one 64-byte row per group of k holding
// the 16 columns' groups. Columns past P and k past `k` are zeros. Panel by panel down k: for an
// nn B, row by row across the panels read B's lines whole but ran 2-5 % slower at 256-512
// rows on one thread (and 0.76-0.84 of oneDNN against 0.91-0.93 at 512³ on two).
void pack_p(const Operands& o, std::int64_t j0, std::int64_t cols, std::int64_t k0, std::int64_t depth, std::uint8_t* dst) {
  const std::int64_t steps = ceil_div(depth, o.k_step), groups = steps * 16, panels = ceil_div(cols, 16);
  const std::int64_t k_end = std::min(o.k, k0 + depth);
  for (std::int64_t q = 0; q < panels; ++q) {
    for (std::int64_t gi = 0; gi < groups; ++gi) {
      pack_group(o, j0 + q * 16, std::min<std::int64_t>(16, cols - q * 16), k0 + gi * o.group, k_end,
                 dst + q * steps * kTileBytes + gi * kRowBytes);
    }
  }
}

// Where one R tile's 16 rows come from for the steps of a slice: in place, or (past R's last
// row, or at k's ragged end) from a zero-padded copy.
struct RSource {
  const std::uint8_t* base = nullptr;  // step 0 of the slice
  std::int64_t stride = 0;
  const std::uint8_t* tail = nullptr;  // the slice's last step from a copy (stride 64), or null
};

// Copies rows [row0, row0 + 16) of R (those before r_rows) over k [k0, k0 + steps·k_step)
// into dst, 16 rows of steps·64 bytes, zeros past R's rows and past k.
void copy_r(const Operands& o, std::int64_t row0, std::int64_t k0, std::int64_t steps, std::uint8_t* dst) {
  const std::int64_t row_bytes = steps * kRowBytes;
  const std::int64_t bytes = std::min(o.k - k0, steps * o.k_step) * o.element;
  for (std::int64_t r = 0; r < 16; ++r) {
    std::uint8_t* row = dst + r * row_bytes;
    const std::int64_t copied = row0 + r < o.r_rows ? bytes : 0;
    if (copied > 0) std::memcpy(row, o.r + (row0 + r) * o.r_stride + k0 * o.element, std::size_t(copied));
    if (copied < row_bytes) std::memset(row + copied, 0, std::size_t(row_bytes - copied));
  }
}

struct Epilogue {
  void* c = nullptr;
  std::int64_t ldc = 0;
  DType out = DType::f32;
  bool swap = false;
  float alpha = 1, beta = 0;
  std::uint32_t alpha_i = 1, beta_i = 0;
  bool beta_zero = true;
  // No swap, f32 or s32 out, alpha 1, beta 0 or 1: whole tiles go straight to C (run_block).
  bool plain = false;
  std::int64_t rows = 0, cols = 0;  // R's rows, P's columns
};

// 16 × 16 32-bit elements transposed, in registers: pairs of rows interleaved, then 2 × 2
// blocks, then 128-bit lanes twice.
void transpose_16x16(const float* in, std::int64_t ld, float* out) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(in + i * ld);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int h = 0; h < 16; h += 8) {
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xdd);
    }
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(out + i * 16, r[i]);
}

// Rows [0, rows) and columns [0, cols) of a tile of sums (rows `ld` elements apart) into C at
// (row0, col0): C = alpha·sums + beta·C in the output dtype, one masked vector a row.
void write_rows(const Epilogue& e, const void* sums, std::int64_t ld, std::int64_t row0, std::int64_t col0,
                std::int64_t rows, std::int64_t cols) {
  const __mmask16 mask = __mmask16((1u << cols) - 1u);
  if (e.out == DType::s32) {
    const auto* s = static_cast<const std::int32_t*>(sums);
    auto* c = static_cast<std::int32_t*>(e.c) + row0 * e.ldc + col0;
    const __m512i alpha = _mm512_set1_epi32(std::int32_t(e.alpha_i)), beta = _mm512_set1_epi32(std::int32_t(e.beta_i));
    for (std::int64_t r = 0; r < rows; ++r) {
      __m512i v = _mm512_mullo_epi32(_mm512_loadu_si512(s + r * ld), alpha);
      if (!e.beta_zero) v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(mask, c + r * e.ldc), beta));
      _mm512_mask_storeu_epi32(c + r * e.ldc, mask, v);
    }
    return;
  }
  const auto* s = static_cast<const float*>(sums);
  const __m512 alpha = _mm512_set1_ps(e.alpha), beta = _mm512_set1_ps(e.beta);
  if (e.out == DType::f32) {
    float* c = static_cast<float*>(e.c) + row0 * e.ldc + col0;
    for (std::int64_t r = 0; r < rows; ++r) {
      __m512 v = _mm512_mul_ps(_mm512_loadu_ps(s + r * ld), alpha);
      if (!e.beta_zero) v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, c + r * e.ldc), beta, v);
      _mm512_mask_storeu_ps(c + r * e.ldc, mask, v);
    }
    return;
  }
  std::uint16_t* c = static_cast<std::uint16_t*>(e.c) + row0 * e.ldc + col0;
  for (std::int64_t r = 0; r < rows; ++r) {
    __m512 v = _mm512_mul_ps(_mm512_loadu_ps(s + r * ld), alpha);
    if (!e.beta_zero) {
      const __m256i old = _mm256_maskz_loadu_epi16(mask, c + r * e.ldc);
      v = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(old), 16)), beta, v);
    }
    _mm256_mask_storeu_epi16(c + r * e.ldc, mask, reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v)));
  }
}

// Writes a 16 × 16 tile of sums (row-major, rows `ld` elements apart) whose first element is
// R row `row0`, P column `col0` into C: C(row0 + r, col0 + j), or with swap, transposed first,
// C(col0 + j, row0 + r).
void write_tile(const Epilogue& e, const void* sums, std::int64_t ld, std::int64_t row0, std::int64_t col0) {
  const std::int64_t rows = std::min<std::int64_t>(16, e.rows - row0), cols = std::min<std::int64_t>(16, e.cols - col0);
  if (!e.swap) return write_rows(e, sums, ld, row0, col0, rows, cols);
  alignas(64) float transposed[256];
  transpose_16x16(static_cast<const float*>(sums), ld, transposed);
  write_rows(e, transposed, 16, col0, row0, cols, rows);
}

// One block of RT × PT C tiles over `steps` steps: R tile i from r[i] (advancing 64 bytes a
// step, rows r_stride[i] apart), P tile j from p[j] (1 KB a step). Registers: C 0-3 (row-major
// over the 2 × 2 block), R 4-5, P 6-7.
template <bool kS8, int RT, int PT>
inline void run_steps(std::int64_t steps, const std::uint8_t* r0, std::int64_t rs0, const std::uint8_t* r1,
                      std::int64_t rs1, const std::uint8_t* p0, const std::uint8_t* p1) {
  // Both P tiles and the first R tile load before the first product. Each load placed just
  // before the first product that reads it ran 5-15 % slower on the Granite Rapids VM (one
  // thread, 512³ bf16 and s8, 1024³ bf16 nt, against oneDNN in the same process).
  for (std::int64_t s = 0; s < steps; ++s) {
    GT_AMX_LOAD(6, p0, kRowBytes);
    if constexpr (PT > 1) GT_AMX_LOAD(7, p1, kRowBytes);
    GT_AMX_LOAD(4, r0, rs0);
    if constexpr (kS8) {
      GT_AMX_DP_S8(0, 4, 6);
      if constexpr (PT > 1) GT_AMX_DP_S8(1, 4, 7);
    } else {
      GT_AMX_DP_BF16(0, 4, 6);
      if constexpr (PT > 1) GT_AMX_DP_BF16(1, 4, 7);
    }
    if constexpr (RT > 1) {
      GT_AMX_LOAD(5, r1, rs1);
      if constexpr (kS8) {
        GT_AMX_DP_S8(2, 5, 6);
        if constexpr (PT > 1) GT_AMX_DP_S8(3, 5, 7);
      } else {
        GT_AMX_DP_BF16(2, 5, 6);
        if constexpr (PT > 1) GT_AMX_DP_BF16(3, 5, 7);
      }
      r1 += kRowBytes;
    }
    r0 += kRowBytes;
    p0 += kTileBytes;
    if constexpr (PT > 1) p1 += kTileBytes;
  }
}

// The block's C tiles: zeroed, loaded from or stored to the partial sums (tile (i, j) at
// sums + i·16 rows + j·64 bytes, rows `ld` bytes apart), or written to C.
template <int RT, int PT>
inline void zero_c() {
  GT_AMX_ZERO(0);
  if constexpr (PT > 1) GT_AMX_ZERO(1);
  if constexpr (RT > 1) GT_AMX_ZERO(2);
  if constexpr (RT > 1 && PT > 1) GT_AMX_ZERO(3);
}

template <int RT, int PT>
inline void load_c(const std::uint8_t* sums, std::int64_t ld) {
  GT_AMX_LOAD(0, sums, ld);
  if constexpr (PT > 1) GT_AMX_LOAD(1, sums + kRowBytes, ld);
  if constexpr (RT > 1) GT_AMX_LOAD(2, sums + 16 * ld, ld);
  if constexpr (RT > 1 && PT > 1) GT_AMX_LOAD(3, sums + 16 * ld + kRowBytes, ld);
}

template <int RT, int PT>
inline void store_c(std::uint8_t* sums, std::int64_t ld) {
  GT_AMX_STORE(0, sums, ld);
  if constexpr (PT > 1) GT_AMX_STORE(1, sums + kRowBytes, ld);
  if constexpr (RT > 1) GT_AMX_STORE(2, sums + 16 * ld, ld);
  if constexpr (RT > 1 && PT > 1) GT_AMX_STORE(3, sums + 16 * ld + kRowBytes, ld);
}

// A block's slice: sums (first slice: zero) + R · P over the slice's steps, then either kept in
// `partial` or, on the last slice, written to C at R row `row0`, P column `col0`.
struct Slice {
  std::int64_t steps = 0;  // read in place; a ragged last step of k follows where `tail`
  bool tail = false;
  bool first = true, last = true;
};

template <bool kS8, int RT, int PT>
void run_block(const Slice& slice, const RSource (&r)[2], const std::uint8_t* p0, const std::uint8_t* p1,
               std::uint8_t* partial, std::int64_t partial_ld, const Epilogue& e, std::int64_t row0, std::int64_t col0) {
  // A block whose C tiles lie whole in C, in the tiles' orientation and 4-byte type, with
  // alpha 1 and beta 0 or 1, needs no epilogue: its tiles start from C (beta 1) or zero and are
  // stored straight into C. At 512³ s8 the epilogue had cost a fifth of the time.
  std::uint8_t* direct = nullptr;
  if (e.plain && row0 + 16 * RT <= e.rows && col0 + 16 * PT <= e.cols) {
    direct = static_cast<std::uint8_t*>(e.c) + (row0 * e.ldc + col0) * 4;
  }
  const std::int64_t ldc_bytes = e.ldc * 4;
  if (!slice.first) {
    load_c<RT, PT>(partial, partial_ld);
  } else if (direct != nullptr && !e.beta_zero) {
    load_c<RT, PT>(direct, ldc_bytes);
  } else {
    zero_c<RT, PT>();
  }
  run_steps<kS8, RT, PT>(slice.steps, r[0].base, r[0].stride, r[1].base, r[1].stride, p0, p1);
  if (slice.tail) {
    // k's ragged last step: a tile read in place takes it from its zero-padded copy of it; a
    // tile copied whole has it in the copy.
    // (The second tile and panel only where the block has them: no pointer is formed past an
    // operand that is not there.)
    auto at_tail = [&](const RSource& s) { return s.tail ? s.tail : s.base + slice.steps * kRowBytes; };
    auto tail_stride = [&](const RSource& s) { return s.tail ? kRowBytes : s.stride; };
    run_steps<kS8, RT, PT>(1, at_tail(r[0]), tail_stride(r[0]), RT > 1 ? at_tail(r[1]) : nullptr,
                           RT > 1 ? tail_stride(r[1]) : 0, p0 + slice.steps * kTileBytes,
                           PT > 1 ? p1 + slice.steps * kTileBytes : nullptr);
  }
  if (!slice.last) {
    store_c<RT, PT>(partial, partial_ld);
    return;
  }
  if (direct != nullptr) {
    store_c<RT, PT>(direct, ldc_bytes);
    return;
  }
  // The block's sums, 32 × 32 row-major (rows 128 bytes apart), out to C tile by tile.
  alignas(64) std::uint8_t sums[kTileBytes * 4];
  store_c<RT, PT>(sums, 2 * kRowBytes);
  for (int i = 0; i < RT; ++i) {
    for (int j = 0; j < PT; ++j) write_tile(e, sums + i * 16 * 2 * kRowBytes + j * kRowBytes, 32, row0 + 16 * i, col0 + 16 * j);
  }
}

template <bool kS8>
void dispatch_block(int rt, int pt, const Slice& slice, const RSource (&r)[2], const std::uint8_t* p0,
                    const std::uint8_t* p1, std::uint8_t* partial, std::int64_t partial_ld, const Epilogue& e,
                    std::int64_t row0, std::int64_t col0) {
  if (rt == 2 && pt == 2) return run_block<kS8, 2, 2>(slice, r, p0, p1, partial, partial_ld, e, row0, col0);
  if (rt == 2) return run_block<kS8, 2, 1>(slice, r, p0, p1, partial, partial_ld, e, row0, col0);
  if (pt == 2) return run_block<kS8, 1, 2>(slice, r, p0, p1, partial, partial_ld, e, row0, col0);
  run_block<kS8, 1, 1>(slice, r, p0, p1, partial, partial_ld, e, row0, col0);
}

// One thread's share: R rows [i_begin, i_end), P columns [j_begin, j_end).
template <bool kS8>
void run_share(const AmxGemmParams& P, const Operands& o, const Epilogue& e, std::int64_t i_begin, std::int64_t i_end,
               std::int64_t j_begin, std::int64_t j_end) {
  const std::int64_t block_n = P.block_n, block_k = P.block_k;
  const std::int64_t all_steps = ceil_div(o.k, o.k_step);
  const bool ragged = o.k % o.k_step != 0;
  const std::int64_t slice_steps_max = std::min(ceil_div(block_k, o.k_step), all_steps);
  // A tail of fewer than kMergedTail columns joins the block before it: as a block of its own it
  // would pass all of R (and copy it) again for one tile column.
  constexpr std::int64_t kMergedTail = 32;
  const std::int64_t panels_max = ceil_div(std::min(block_n + kMergedTail - 1, j_end - j_begin), 16);
  auto* packed = static_cast<std::uint8_t*>(thread_scratch(0, std::size_t(panels_max * slice_steps_max * kTileBytes)));
  const std::int64_t partial_ld = panels_max * kRowBytes;
  const bool sliced = all_steps > slice_steps_max;
  const std::int64_t rows_rounded = ceil_div(i_end - i_begin, 32) * 32;
  auto* partial = sliced ? static_cast<std::uint8_t*>(thread_scratch(1, std::size_t(rows_rounded * partial_ld))) : nullptr;
  // Two tiles' copies of R (rows past the end or off their lines, one block's) and two ragged
  // tails.
  const std::int64_t copy_bytes = 16 * slice_steps_max * kRowBytes;
  auto* copies = static_cast<std::uint8_t*>(thread_scratch(2, std::size_t(2 * copy_bytes + 2 * kTileBytes)));
  std::uint8_t* tails = copies + 2 * copy_bytes;

  // A tile row across two 64-byte lines slows the 2 × 2 step down: from 1.76 to 1.05 TFLOP/s a
  // thread in bf16, from 3.98 to 2.11 TOP/s in s8, with R 16 bytes past a line as a large
  // std::vector's data lies (bench/probes/cpu_bounds/amx_peak.cc on the Granite Rapids VM,
  // bench/results/2026-11-30h-cpu-amx-lines.md). With copy_r such an R is copied onto whole
  // lines, a block per slice, once for all the block's column pairs; the copy costs more than
  // it saves on small products (the tuner chooses).
  const bool r_on_lines = reinterpret_cast<std::uintptr_t>(o.r) % kRowBytes == 0 && o.r_stride % kRowBytes == 0;
  const bool r_in_place = r_on_lines || !P.copy_r;
  configure_tiles();
  for (std::int64_t jb = j_begin, cols = 0; jb < j_end; jb += cols) {
    cols = j_end - jb < block_n + kMergedTail ? j_end - jb : block_n;
    const std::int64_t panels = ceil_div(cols, 16);
    for (std::int64_t step0 = 0; step0 < all_steps; step0 += slice_steps_max) {
      const std::int64_t steps = std::min(slice_steps_max, all_steps - step0), k0 = step0 * o.k_step;
      Slice slice;
      slice.first = step0 == 0;
      slice.last = step0 + steps == all_steps;
      slice.tail = slice.last && ragged;
      slice.steps = slice.tail ? steps - 1 : steps;
      pack_p(o, jb, cols, k0, steps * o.k_step, packed);
      for (std::int64_t i0 = i_begin; i0 < i_end; i0 += 32) {
        const int rt = i_end - i0 > 16 ? 2 : 1;
        RSource r[2];
        for (int t = 0; t < rt; ++t) {
          const std::int64_t row0 = i0 + 16 * t;
          if (r_in_place && row0 + 16 <= o.r_rows) {
            r[t].base = o.r + row0 * o.r_stride + k0 * o.element;
            r[t].stride = o.r_stride;
            if (slice.tail) {
              std::uint8_t* copy = tails + t * kTileBytes;
              copy_r(o, row0, k0 + slice.steps * o.k_step, 1, copy);
              r[t].tail = copy;
            }
          } else {
            std::uint8_t* copy = copies + t * copy_bytes;
            copy_r(o, row0, k0, steps, copy);
            r[t].base = copy;
            r[t].stride = steps * kRowBytes;  // the ragged step too, zero-padded
          }
        }
        for (std::int64_t q = 0; q < panels; q += 2) {
          const int pt = panels - q > 1 ? 2 : 1;
          const std::uint8_t* p0 = packed + q * steps * kTileBytes;
          const std::uint8_t* p1 = pt > 1 ? p0 + steps * kTileBytes : nullptr;
          std::uint8_t* sums = partial ? partial + (i0 - i_begin) * partial_ld + q * kRowBytes : nullptr;
          dispatch_block<kS8>(rt, pt, slice, r, p0, p1, sums, partial_ld, e, i0, jb + q * 16);
        }
      }
    }
  }
  _tile_release();
}

}  // namespace

void amx_gemm(const AmxGemmParams& P, const void* a, const void* b, void* c) {
  if (P.m == 0 || P.n == 0) return;
  Operands o;
  o.element = P.in == DType::s8 ? 1 : 2;
  o.group = 4 / o.element;
  o.k_step = amx_k_step(P.in);
  o.k = P.k;
  const auto* a8 = static_cast<const std::uint8_t*>(a);
  const auto* b8 = static_cast<const std::uint8_t*>(b);
  if (!P.swap) {
    o.r = a8, o.r_rows = P.m, o.r_stride = P.a_rs * o.element;
    o.p = b8, o.p_cols = P.n, o.p_ks = P.b_ks, o.p_cs = P.b_cs;
  } else {
    o.r = b8, o.r_rows = P.n, o.r_stride = P.b_cs * o.element;
    o.p = a8, o.p_cols = P.m, o.p_ks = P.a_ks, o.p_cs = P.a_rs;
  }
  Epilogue e;
  e.c = c, e.ldc = P.ldc, e.out = P.out, e.swap = P.swap;
  e.alpha = float(P.alpha), e.beta = float(P.beta);
  e.alpha_i = std::uint32_t(std::int64_t(P.alpha)), e.beta_i = std::uint32_t(std::int64_t(P.beta));
  e.beta_zero = P.beta == 0;
  e.plain = !P.swap && P.out != DType::bf16 && P.alpha == 1 && (P.beta == 0 || P.beta == 1);
  e.rows = o.r_rows, e.cols = o.p_cols;
  if (o.k == 0) {
    // No products: C = beta·C (every tile of zeros, written once).
    alignas(64) std::uint8_t zeros[kTileBytes] = {};
    for (std::int64_t i = 0; i < o.r_rows; i += 16) {
      for (std::int64_t j = 0; j < o.p_cols; j += 16) write_tile(e, zeros, 16, i, j);
    }
    return;
  }

  // Threads split whichever operand costs them more to share. Split along P's columns, each
  // thread packs its own columns and reads all of R; along R's rows, each reads its rows and
  // packs all of P. Packing counts twice (it reads and writes), so P's columns are split unless
  // R has more than twice as many rows: with swap, C = X·Wᵀ of 256 rows split X's columns and
  // read all of the weights W from memory on each thread. Whole 32-row or 32-column blocks.
  int threads = std::max(1, P.threads);
  const bool split_columns = o.r_rows <= 2 * o.p_cols;
  const std::int64_t extent = split_columns ? o.p_cols : o.r_rows;
  threads = int(std::min<std::int64_t>(threads, ceil_div(extent, 32)));
  auto body = [&](int t, int count) {
    const std::int64_t blocks = ceil_div(extent, 32);
    const std::int64_t begin = std::min(extent, blocks * t / count * 32), end = std::min(extent, blocks * (t + 1) / count * 32);
    if (begin >= end) return;
    const std::int64_t i0 = split_columns ? 0 : begin, i1 = split_columns ? o.r_rows : end;
    const std::int64_t j0 = split_columns ? begin : 0, j1 = split_columns ? end : o.p_cols;
    if (P.in == DType::s8) {
      run_share<true>(P, o, e, i0, i1, j0, j1);
    } else {
      run_share<false>(P, o, e, i0, i1, j0, j1);
    }
  };
  if (threads == 1) {
    body(0, 1);
  } else {
    parallel_for_threads(threads, body);
  }
}

}  // namespace gemmtune::cpu
