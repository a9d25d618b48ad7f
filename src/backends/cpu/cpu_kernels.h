// gemmtune's own CPU GEMM kernels, as the cpu backend sees them: plain parameters, the tiles
// each kernel is compiled for, and one lookup per vector ISA.
//
// The kernels (KernelConfig::kernel):
//  - packed: GotoBLAS blocking (B panels for L2, A blocks for L2, micro-panels for L1) around
//    a register-tiled micro-kernel; A and B are packed into the micro-kernel's format, which
//    converts layouts and dtypes once (bf16 pairs for AVX512_BF16, u8·s8 quads for VNNI).
//  - direct rows: no packing; B's rows are read as vectors where they lie. For small
//    problems, where packing would cost as much as the product.
//  - direct dot: no packing; rows of A against columns of B, both contiguous along k. For
//    skinny products (C = X·Wᵀ with few rows of X), which stream W at memory speed.
//  - direct columns: Cᵀ = Bᵀ·Aᵀ with A packed transposed and B contiguous along k broadcast
//    element by element: C = X·Wᵀ for batches of 4 to 64 rows, where dots need too many loads.
//  - direct tile: the whole of C as one register tile, its rows fixed at compile time: the
//    rows kernel without its loops, edges and thread split, for f32 products of a few dozen
//    to a few thousand multiply-adds, where those cost as much as the arithmetic.
//  - direct stream: B contiguous along n read in its storage order, a block of rows at a time,
//    each row along all the columns, through register tiles of C parked in an L2 buffer
//    between blocks: X·W with W stored k × n and too large for the caches, which the rows
//    kernel would read a column tile at a time down k. From 4 rows of X up.
//  - direct axpy: the same B read U rows at a time into one to four rows of C held in L1:
//    x·W for 1-4 rows, where no sum is reused and the loop that reads B fastest wins.
//  - direct pairs: the tile kernel for C no wider than half a 512-bit vector, with two steps
//    of k side by side in each vector, so that no lane multiplies padding (AVX-512, f32).
//  - direct rows-dots: the rows kernel on C's whole vectors of columns and the dot kernel on
//    the last 1-4 (those columns of B copied contiguous along k): C a little wider than whole
//    vectors (17 × 33), where the rows kernel's last vector would be mostly padding (f32).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemmtune/config.h"
#include "gemmtune/dtype.h"

namespace gemmtune::cpu {

// Vector ISA levels of KernelConfig::isa. Levels 3 and 4 add dot-product instructions to
// AVX-512 and change only the s8 (VNNI) and bf16 (AVX512_BF16) kernels; the other dtypes
// run the AVX-512 kernels there.
inline constexpr int kIsaGeneric = 0;
inline constexpr int kIsaAvx2 = 1;
inline constexpr int kIsaAvx512 = 2;
inline constexpr int kIsaAvx512Vnni = 3;
inline constexpr int kIsaAvx512Bf16 = 4;  // AVX512_BF16 and VNNI

// Everything a kernel needs of the problem and config, as plain numbers.
struct CpuGemmParams {
  std::int64_t m = 0, n = 0, k = 0;
  // Element strides: A(i, p) = a[i·a_rs + p·a_ks], B(p, j) = b[p·b_ks + j·b_cs], C(i, j) =
  // c[i·ldc + j]. One stride of each operand is 1 (its layout).
  std::int64_t a_rs = 0, a_ks = 1, b_ks = 0, b_cs = 1, ldc = 0;
  double alpha = 1, beta = 0;
  std::int64_t block_m = 0, block_n = 0, block_k = 0;  // packed: multiples of the register tile
  int threads = 1;
  // Packed kernel: threads tile C as grid_m × grid_n blocks, each packed and computed alone.
  int grid_m = 1, grid_n = 1;
  // Whole 64-byte lines of each of B's k rows that a tile can read and find still in L1 on
  // its next pass (b_lines_in_l1), set when the kernel is prepared. The tile and one-row rows
  // kernels read B off its lines through the window (kernels/rows_block.h) only where it takes
  // no more lines than these: a per-call test would cost them 2-3 ns of 63-67.
  int b_lines_in_l1 = 0;
};

using CpuGemmFn = void (*)(const CpuGemmParams& params, const void* a, const void* b, void* c);

// The kernels are KernelConfig::kernel's kKernelPacked, kKernelRows, kKernelDot, kKernelColumns,
// kKernelTile, kKernelStream, kKernelAxpy, kKernelPairs and kKernelRowsDots (gemmtune/config.h),
// one list with the other families' kernels so that a config names its kernel ("kernel=stream").

// The most columns past C's whole vectors that the rows-dots kernel takes: a quarter of a
// vector's lanes, at most 4 (a wider tail loses less to padding than the copy and the dots cost).
constexpr int max_dots_tail(int lanes) { return lanes / 4 < 4 ? lanes / 4 : 4; }

// Register tiles each kernel is compiled for, X(rows, columns): columns count vectors for
// packed and rows, single columns for dot. The config space offers only these, pruned by each
// ISA's register count.
#define GEMMTUNE_CPU_MICRO_TILES(X) \
  X(1, 4) X(2, 4) X(4, 2) X(4, 3) X(4, 4) X(6, 2) X(6, 4) X(8, 1) X(8, 2) X(8, 3) X(12, 2) X(14, 2)
#define GEMMTUNE_CPU_DIRECT_TILES(X) X(1, 4) X(2, 4) X(4, 1) X(4, 2) X(4, 4) X(8, 1) X(8, 2) X(8, 3) X(16, 1)
// f32 rows tiles besides those: small products are where f32 meets libxsmm's JIT, and a tile
// that fits the shape (3 rows, 6 × 3 vectors for 17 × 33) wastes no multiply on padding.
#define GEMMTUNE_CPU_DIRECT_F32_TILES(X) \
  X(1, 1) X(1, 2) X(2, 2) X(3, 4) X(5, 4) X(6, 3) X(6, 4) X(9, 3) X(12, 1) X(12, 2) X(24, 1)
#define GEMMTUNE_CPU_DOT_TILES(X) X(1, 1) X(1, 4) X(1, 8) X(2, 4) X(4, 2) X(4, 4) X(8, 1) X(8, 2) X(8, 3) X(16, 1)
// Stream tiles, X(rows of C, vectors of columns): the register tile each block of B's rows
// passes through.
#define GEMMTUNE_CPU_STREAM_TILES(X) X(1, 4) X(1, 8) X(2, 4) X(4, 2) X(4, 4) X(8, 1) X(8, 3) X(16, 1)
// Rows of B per block of the stream kernel (its config's block_k): shallow blocks that the
// hardware prefetchers follow, for products that stream B at memory speed (1-4 rows of A);
// deep ones that prefetch in software and visit each C tile less often, for products that
// are bound by their multiply-adds (8 rows and more).
inline constexpr int kStreamBlockDepths[] = {8, 256};
// Axpy tiles, X(rows of C, rows of B per pass): one broadcast of A per row of each and a sum
// per row of C in registers.
#define GEMMTUNE_CPU_AXPY_TILES(X) X(1, 4) X(1, 8) X(2, 4) X(2, 8) X(4, 4)
// Columns tiles, X(columns of C, vectors of rows of C); f32, f16 and bf16 only.
#define GEMMTUNE_CPU_COLUMNS_TILES(X) \
  X(4, 1) X(6, 1) X(8, 1) X(12, 1) X(4, 2) X(6, 2) X(8, 2) X(12, 2) X(4, 3) X(6, 3) X(8, 3) X(4, 4) X(6, 4)

// Tile kernels, X(rows of C, vectors of columns), f32 only: every height up to the register
// file's limit for 1 to 4 vectors (the AVX-512 one: rows × vectors + vectors + 1 ≤ 32).
#define GEMMTUNE_CPU_TILE_SHAPES(X)                                                                             \
  X(1, 1) X(2, 1) X(3, 1) X(4, 1) X(5, 1) X(6, 1) X(7, 1) X(8, 1) X(9, 1) X(10, 1) X(11, 1) X(12, 1) X(13, 1)  \
  X(14, 1) X(15, 1) X(16, 1) X(17, 1) X(18, 1) X(19, 1) X(20, 1) X(21, 1) X(22, 1) X(23, 1) X(24, 1) X(1, 2)   \
  X(2, 2) X(3, 2) X(4, 2) X(5, 2) X(6, 2) X(7, 2) X(8, 2) X(9, 2) X(10, 2) X(11, 2) X(12, 2) X(1, 3) X(2, 3)   \
  X(3, 3) X(4, 3) X(5, 3) X(6, 3) X(7, 3) X(8, 3) X(1, 4) X(2, 4) X(3, 4) X(4, 4) X(5, 4) X(6, 4)
inline constexpr int kMaxTileRows[5] = {0, 24, 12, 8, 6};  // by vectors of columns
// Pairs kernels, X(rows of C), f32 on AVX-512 only: every height the one-vector tile has.
#define GEMMTUNE_CPU_PAIRS_ROWS(X)                                                                                \
  X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) \
  X(21) X(22) X(23) X(24)
inline constexpr int kMaxPairsRows = 24;

struct MicroTile {
  int micro_m;
  int micro_nv;
};
#define GEMMTUNE_CPU_TILE_ENTRY(mr, nv) MicroTile{mr, nv},
inline constexpr MicroTile kMicroTiles[] = {GEMMTUNE_CPU_MICRO_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
inline constexpr MicroTile kDirectTiles[] = {GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
inline constexpr MicroTile kDirectF32Tiles[] = {GEMMTUNE_CPU_DIRECT_F32_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
inline constexpr MicroTile kDotTiles[] = {GEMMTUNE_CPU_DOT_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
// micro_m here counts columns of C and micro_nv vectors of its rows (the tile of Cᵀ).
inline constexpr MicroTile kColumnsTiles[] = {GEMMTUNE_CPU_COLUMNS_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
inline constexpr MicroTile kTileShapes[] = {GEMMTUNE_CPU_TILE_SHAPES(GEMMTUNE_CPU_TILE_ENTRY)};
inline constexpr MicroTile kStreamTiles[] = {GEMMTUNE_CPU_STREAM_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
// micro_m here counts rows of C and micro_nv rows of B a pass (the axpy tile).
inline constexpr MicroTile kAxpyTiles[] = {GEMMTUNE_CPU_AXPY_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
#undef GEMMTUNE_CPU_TILE_ENTRY
// One vector a row, whatever the columns (tile_key).
#define GEMMTUNE_CPU_PAIRS_ENTRY(mr) MicroTile{mr, 1},
inline constexpr MicroTile kPairsTiles[] = {GEMMTUNE_CPU_PAIRS_ROWS(GEMMTUNE_CPU_PAIRS_ENTRY)};
#undef GEMMTUNE_CPU_PAIRS_ENTRY

// Vector registers a packed or rows tile needs: the accumulators, one row of B vectors, one
// broadcast of A. A dot tile holds its accumulators and one vector per column of B (A is read
// from memory as an operand).
constexpr int registers_for_tile(int micro_m, int micro_nv) { return micro_m * micro_nv + micro_nv + 1; }
constexpr int registers_for_dot_tile(int micro_m, int columns) { return micro_m * columns + columns; }
// An axpy tile: the broadcasts of A for a pass, a sum per row of C, one vector of B.
constexpr int registers_for_axpy_tile(int micro_m, int b_rows) { return micro_m * b_rows + micro_m + 1; }
static_assert(registers_for_tile(14, 2) <= 32, "every packed tile must fit AVX-512's 32 registers");

// The (micro_m, columns) pair the kernel lookup takes for a config's tile of micro_m rows and
// micro_n columns of C.
struct TileKey {
  int first, second;
};
constexpr TileKey tile_key(int kernel, int micro_m, int micro_n, int lanes) {
  if (kernel == kKernelDot || kernel == kKernelAxpy) return {micro_m, micro_n};
  if (kernel == kKernelColumns) return {micro_n, micro_m / lanes};
  if (kernel == kKernelPairs) return {micro_m, 1};  // one vector per row, whatever its columns
  return {micro_m, micro_n / lanes};
}

// Bytes per vector register of an ISA level (generic: 16, the SSE2 width).
constexpr int vector_bytes(int isa) { return isa >= kIsaAvx512 ? 64 : isa == kIsaAvx2 ? 32 : 16; }
// 32-bit lanes per vector: the columns one vector of an f32 or s32 accumulator covers.
constexpr int vector_lanes(int isa) { return vector_bytes(isa) / 4; }

// The kernel for (ISA level, algorithm, input dtype, output dtype, tile), or nullptr if none is
// compiled. The tile is (micro_m, columns): rows and vectors of columns (packed, rows), rows
// and columns (dot), rows of C and of B (axpy), columns and vectors of rows (columns; see
// tile_key). Inputs f32/f16/bf16 accumulate in f32, s8 in s32. Levels 3 and 4 fall back to
// level 2 for the dtypes they do not change.
CpuGemmFn find_cpu_kernel(int isa, int kernel, DType in, DType out, int micro_m, int columns);

// Per-ISA lookups, each defined in its own translation unit.
CpuGemmFn find_cpu_kernel_generic(int kernel, DType in, DType out, int micro_m, int columns);
CpuGemmFn find_cpu_kernel_avx2(int kernel, DType in, DType out, int micro_m, int columns);
CpuGemmFn find_cpu_kernel_avx512(int kernel, DType in, DType out, int micro_m, int columns);
CpuGemmFn find_cpu_kernel_avx512_vnni(int kernel, DType in, DType out, int micro_m, int columns);
CpuGemmFn find_cpu_kernel_avx512_bf16(int kernel, DType in, DType out, int micro_m, int columns);

// The L1 data cache of the CPU this runs on (cpuid; the default where it says nothing).
struct L1Geometry {
  int sets = 64, ways = 8;  // sets: a power of two
};
const L1Geometry& l1_geometry();

// The most whole lines, up to kMaxL1Lines, of each of k rows of B, `stride_bytes` apart, that
// stay in L1 from one pass of a tile to the next: no more of them fall in any set than it has
// ways. 0 where one line of each does not, or where the stride is not a whole number of lines.
inline constexpr int kMaxL1Lines = 16;
int b_lines_in_l1(const L1Geometry& l1, std::int64_t k, std::int64_t stride_bytes);

// Scratch owned by the calling thread, 64-byte aligned, grown on demand and kept: after the
// first call of a size, kernels allocate nothing. `slot` separates buffers used at once.
inline constexpr int kScratchSlots = 4;
void* thread_scratch(int slot, std::size_t bytes);

// f16 conversions for kernels: defined in a file compiled without ISA flags.
float f16_load(std::uint16_t bits);
std::uint16_t f16_store(float value);

}  // namespace gemmtune::cpu
