// gemmtune's tensor-core GEMM template, compiled at run time by NVRTC, one instantiation per
// (problem dtypes and layouts, config) through -D macros. It includes no header: users may run
// gemmtune without a CUDA toolkit, so the tensor-core ops are inline PTX `mma.sync` and the
// 16-bit floats travel as plain `unsigned short` bits.
//
// C (m×n, row-major, ldc) = alpha·A·B + beta·C. A is m×k and B is k×n, each row- or
// column-major. Tiles sit in shared memory k-contiguous as 32-bit words, A as [BM][k words]
// and B as [BN][k words] (the "row.col" operand form mma.sync wants), whatever the layout in
// global memory, so the fragment reads below are one 32-bit shared load per register.
//
// Macros (all required unless a default is shown):
//   GT_IN       input dtype: 0 f16, 1 bf16, 2 f32 computed as TF32, 3 s8
//   GT_OUT      output dtype: 0 f32, 1 f16, 2 bf16, 3 s32
//   GT_A_KCONTIG 1 when A is row-major (k contiguous), 0 when column-major
//   GT_B_KCONTIG 1 when B is column-major (k contiguous), 0 when row-major
//   GT_BM GT_BN GT_BK   block tile; GT_WM × GT_WN warps tile it
//   GT_STAGES   1: load, then compute; 2: the next k-tile is fetched into registers while the
//               tensor cores work on the current one, then stored to the other shared buffer
//   GT_GROUP_M  block rows swept together (L2 reuse of B tiles)
//   GT_SPLIT_K  slices of k, one per grid.z; > 1 writes partial sums to a workspace that
//               gemmtune_splitk_reduce sums and scales
//   GEMMTUNE_FAULT (tests only) 1: write through a wild pointer; 2: spin forever

#ifndef GEMMTUNE_FAULT
#define GEMMTUNE_FAULT 0
#endif

typedef unsigned int gt_u32;

#if GT_IN == 3
typedef signed char gt_in_t;
typedef int gt_acc_t;
#define GT_EPW 4  // elements per 32-bit word
#elif GT_IN == 2
typedef float gt_in_t;
typedef float gt_acc_t;
#define GT_EPW 1
#else
typedef unsigned short gt_in_t;
typedef float gt_acc_t;
#define GT_EPW 2
#endif

#if GT_OUT == 0
typedef float gt_out_t;
#elif GT_OUT == 3
typedef int gt_out_t;
#else
typedef unsigned short gt_out_t;
#endif

#define GT_THREADS (GT_WM * GT_WN * 32)
#define GT_BKW (GT_BK / GT_EPW)  // k words of one tile row
// Four words of padding per tile row: a fragment read touches 8 rows × 4 consecutive words,
// and with a row stride of (multiple of 8) + 4 words those 32 words fall in 32 distinct banks.
#define GT_LDS (GT_BKW + 4)
#define GT_WTM (GT_BM / GT_WM)  // warp tile
#define GT_WTN (GT_BN / GT_WN)
#define GT_MT (GT_WTM / 16)  // mma tiles per warp tile
#define GT_NT (GT_WTN / 8)

#if GT_BK % (8 * GT_EPW) != 0
#error "GT_BK must be a multiple of the mma k extent"
#endif
#if GT_WTM % 16 != 0 || GT_WTN % 8 != 0 || GT_BM % GT_WM != 0 || GT_BN % GT_WN != 0
#error "the warp layout must tile the block into whole 16x8 mma tiles"
#endif

// --- The PTX operations. tests/cuda/kernel_emulation.h runs this file on the host (with
// GT_HOST_EMULATION defined) to check the tiling and indexing without a GPU; it supplies
// these same operations, modelled on the PTX ISA's fragment layouts. ---
#ifdef GT_HOST_EMULATION
#define GT_KERNEL_LINKAGE
__device__ __forceinline__ gt_u32 gt_tf32_bits(float v) { return gt_emu::tf32_bits(v); }
__device__ __forceinline__ unsigned short gt_f16_bits(float v) { return gt_emu::f16_bits(v); }
__device__ __forceinline__ unsigned short gt_bf16_bits(float v) { return gt_emu::bf16_bits(v); }
__device__ __forceinline__ float gt_f16_value(unsigned short bits) { return gt_emu::f16_value(bits); }
__device__ __forceinline__ void gt_mma(gt_acc_t (&d)[4], const gt_u32 (&a)[4], const gt_u32 (&b)[2]) {
  gt_emu::mma<GT_IN>(d, a, b);
}
#else
#define GT_KERNEL_LINKAGE extern "C"
__device__ __forceinline__ gt_u32 gt_tf32_bits(float v) {
  gt_u32 bits;
  // Round to nearest, ties away, as PyTorch's TF32 matmuls do on Ampere and later.
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(v));
  return bits;
}
__device__ __forceinline__ unsigned short gt_f16_bits(float v) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  return bits;
}
__device__ __forceinline__ unsigned short gt_bf16_bits(float v) {
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  return bits;
}
__device__ __forceinline__ float gt_f16_value(unsigned short bits) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}
__device__ __forceinline__ void gt_mma(gt_acc_t (&d)[4], const gt_u32 (&a)[4], const gt_u32 (&b)[2]) {
#if GT_IN == 0
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif GT_IN == 1
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif GT_IN == 2
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
#endif

// The bits of one element as they sit in a fragment word.
__device__ __forceinline__ gt_u32 gt_element_bits(gt_in_t v) {
#if GT_IN == 3
  return (gt_u32)(unsigned char)v;
#elif GT_IN == 2
  return gt_tf32_bits(v);
#else
  return (gt_u32)v;
#endif
}

// Output conversion and the read of C for beta.
__device__ __forceinline__ gt_out_t gt_to_out(gt_acc_t v) {
#if GT_OUT == 1
  return gt_f16_bits(v);
#elif GT_OUT == 2
  return gt_bf16_bits(v);
#else
  return (gt_out_t)v;
#endif
}

__device__ __forceinline__ gt_acc_t gt_from_out(gt_out_t v) {
#if GT_OUT == 1
  return gt_f16_value(v);
#elif GT_OUT == 2
  return __uint_as_float(((gt_u32)v) << 16);  // bf16 is the top half of an f32
#else
  return (gt_acc_t)v;
#endif
}

// alpha·acc + beta·C for one element; beta == 0 never reads C (it may hold NaN or garbage).
__device__ __forceinline__ gt_out_t gt_epilogue(gt_acc_t acc, const gt_out_t* c, float alpha, float beta) {
#if GT_IN == 3
  // s8 problems have alpha 1 and beta 0 or 1: integer arithmetic, exact.
  return beta != 0.0f ? acc + *c : acc;
#else
  float v = alpha * acc;
  if (beta != 0.0f) v += beta * gt_from_out(*c);
  return gt_to_out(v);
#endif
}

// Moves one operand's ROWS × BK tile from global memory into shared memory: each thread
// fetches its words into registers (load), then writes them (store), so the fetch of the next
// tile can overlap the math on the current one. Elements outside the problem read as zero.
template <int ROWS, bool KCONTIG>
struct GtTileLoader {
  static constexpr int kWords = ROWS * GT_BKW;
  static constexpr int kPerThread = (kWords + GT_THREADS - 1) / GT_THREADS;
  gt_u32 words[kPerThread];

  // The word's tile position. Consecutive threads take consecutive addresses in global
  // memory: along k when k is contiguous, else along the rows.
  __device__ __forceinline__ static void position(int idx, int& row, int& kw) {
    if (KCONTIG) {
      row = idx / GT_BKW;
      kw = idx % GT_BKW;
    } else {
      row = idx % ROWS;
      kw = idx / ROWS;
    }
  }

  __device__ __forceinline__ void load(const gt_in_t* base, long long ld, long long row0, long long rows,
                                       long long k0, long long k_end) {
    const long long row_stride = KCONTIG ? ld : 1;
    const long long k_stride = KCONTIG ? 1 : ld;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int idx = threadIdx.x + i * GT_THREADS;
      gt_u32 word = 0;
      if (kWords % GT_THREADS == 0 || idx < kWords) {
        int row, kw;
        position(idx, row, kw);
        const long long gr = row0 + row;
        const long long gk = k0 + (long long)kw * GT_EPW;
        if (gr < rows) {
          const gt_in_t* p = base + gr * row_stride + gk * k_stride;
          if (KCONTIG && gk + GT_EPW <= k_end && ((unsigned long long)p & 3) == 0) {
#if GT_IN == 2
            word = gt_element_bits(*p);
#else
            word = *(const gt_u32*)p;
#endif
          } else {
#pragma unroll
            for (int e = 0; e < GT_EPW; ++e) {
              if (gk + e < k_end) word |= gt_element_bits(p[e * k_stride]) << (e * 32 / GT_EPW);
            }
          }
        }
      }
      words[i] = word;
    }
  }

  __device__ __forceinline__ void store(gt_u32* tile) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int idx = threadIdx.x + i * GT_THREADS;
      if (kWords % GT_THREADS == 0 || idx < kWords) {
        int row, kw;
        position(idx, row, kw);
        tile[row * GT_LDS + kw] = words[i];
      }
    }
  }
};

// One k-tile of math: each warp multiplies its WTM × BK strip of A by its BK × WTN strip of B.
__device__ __forceinline__ void gt_tile_mma(const gt_u32* a_tile, const gt_u32* b_tile, int warp_m, int warp_n,
                                            gt_acc_t (&acc)[GT_MT][GT_NT][4]) {
  const int lane = threadIdx.x & 31;
  const int group = lane >> 2;  // PTX fragment layouts: groupID and thread-in-group
  const int tig = lane & 3;
#pragma unroll
  for (int ks = 0; ks < GT_BKW / 8; ++ks) {
    const int kw = ks * 8 + tig;
    gt_u32 a[GT_MT][4];
    gt_u32 b[GT_NT][2];
#pragma unroll
    for (int mt = 0; mt < GT_MT; ++mt) {
      const gt_u32* r = a_tile + (warp_m * GT_WTM + mt * 16 + group) * GT_LDS + kw;
      a[mt][0] = r[0];
      a[mt][1] = r[8 * GT_LDS];
      a[mt][2] = r[4];
      a[mt][3] = r[8 * GT_LDS + 4];
    }
#pragma unroll
    for (int nt = 0; nt < GT_NT; ++nt) {
      const gt_u32* c = b_tile + (warp_n * GT_WTN + nt * 8 + group) * GT_LDS + kw;
      b[nt][0] = c[0];
      b[nt][1] = c[4];
    }
#pragma unroll
    for (int mt = 0; mt < GT_MT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < GT_NT; ++nt) gt_mma(acc[mt][nt], a[mt], b[nt]);
    }
  }
}

#if GEMMTUNE_FAULT == 2
__device__ int gemmtune_fault_never_set = 0;
#endif

GT_KERNEL_LINKAGE __global__ void __launch_bounds__(GT_THREADS)
    gemmtune_gemm(const gt_in_t* a, const gt_in_t* b, gt_out_t* c, gt_acc_t* workspace, long long m, long long n,
                  long long k, long long lda, long long ldb, long long ldc, float alpha, float beta) {
#if GEMMTUNE_FAULT == 1
  if (threadIdx.x == 0) *(volatile int*)(0xdead00000000ull + 8 * blockIdx.x) = 1;
#elif GEMMTUNE_FAULT == 2
  // Spin on a volatile load from global memory that nothing ever changes: a loop on a local
  // variable, volatile or not, may be folded away by the compiler.
  while (*(volatile int*)&gemmtune_fault_never_set == 0) {
  }
#endif
#ifdef GT_HOST_EMULATION
  gt_u32* gt_smem = gt_emu::shared_words();
#else
  extern __shared__ gt_u32 gt_smem[];
#endif

  // Block swizzle: GROUP_M block rows are swept column by column, so the blocks resident at
  // once share the same few B tiles (and A tiles) in L2.
  const long long grid_m = (m + GT_BM - 1) / GT_BM;
  const long long grid_n = (n + GT_BN - 1) / GT_BN;
  const long long pid = blockIdx.x;
  const long long blocks_per_group = (long long)GT_GROUP_M * grid_n;
  const long long first_m = (pid / blocks_per_group) * GT_GROUP_M;
  const long long group_rows = grid_m - first_m < GT_GROUP_M ? grid_m - first_m : GT_GROUP_M;
  const long long in_group = pid % blocks_per_group;
  const long long block_m0 = (first_m + in_group % group_rows) * GT_BM;
  const long long block_n0 = (in_group / group_rows) * GT_BN;

  // This slice's share of k, in whole tiles.
  const long long k_tiles_total = (k + GT_BK - 1) / GT_BK;
  const long long tiles_per_slice = (k_tiles_total + GT_SPLIT_K - 1) / GT_SPLIT_K;
  const long long k_begin = (long long)blockIdx.z * tiles_per_slice * GT_BK;
  const long long k_end_raw = k_begin + tiles_per_slice * GT_BK;
  const long long k_end = k_end_raw < k ? k_end_raw : k;
  const long long tiles = k_end > k_begin ? (k_end - k_begin + GT_BK - 1) / GT_BK : 0;

  const int warp = threadIdx.x >> 5;
  const int warp_m = warp / GT_WN;
  const int warp_n = warp % GT_WN;

  gt_acc_t acc[GT_MT][GT_NT][4];
#pragma unroll
  for (int mt = 0; mt < GT_MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < GT_NT; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mt][nt][r] = 0;

  GtTileLoader<GT_BM, GT_A_KCONTIG != 0> a_loader;
  GtTileLoader<GT_BN, GT_B_KCONTIG != 0> b_loader;
  const int buffer_words = (GT_BM + GT_BN) * GT_LDS;

#if GT_STAGES >= 2
  if (tiles > 0) {
    a_loader.load(a, lda, block_m0, m, k_begin, k_end);
    b_loader.load(b, ldb, block_n0, n, k_begin, k_end);
    a_loader.store(gt_smem);
    b_loader.store(gt_smem + GT_BM * GT_LDS);
    __syncthreads();
  }
  for (long long t = 0; t < tiles; ++t) {
    const bool more = t + 1 < tiles;
    if (more) {  // in flight while the tensor cores work on tile t
      a_loader.load(a, lda, block_m0, m, k_begin + (t + 1) * GT_BK, k_end);
      b_loader.load(b, ldb, block_n0, n, k_begin + (t + 1) * GT_BK, k_end);
    }
    const gt_u32* current = gt_smem + (t & 1) * buffer_words;
    gt_tile_mma(current, current + GT_BM * GT_LDS, warp_m, warp_n, acc);
    if (more) {
      // The other buffer was last read in iteration t-1, before the barrier that ended it.
      gt_u32* next = gt_smem + ((t + 1) & 1) * buffer_words;
      a_loader.store(next);
      b_loader.store(next + GT_BM * GT_LDS);
    }
    __syncthreads();
  }
#else
  for (long long t = 0; t < tiles; ++t) {
    a_loader.load(a, lda, block_m0, m, k_begin + t * GT_BK, k_end);
    b_loader.load(b, ldb, block_n0, n, k_begin + t * GT_BK, k_end);
    __syncthreads();  // every warp is done reading the previous tile
    a_loader.store(gt_smem);
    b_loader.store(gt_smem + GT_BM * GT_LDS);
    __syncthreads();
    gt_tile_mma(gt_smem, gt_smem + GT_BM * GT_LDS, warp_m, warp_n, acc);
  }
  (void)buffer_words;
#endif

  // Accumulator fragment: c0,c1 at (row group, cols 2·tig, 2·tig+1), c2,c3 at row group+8.
  const int lane = threadIdx.x & 31;
  const long long row_base = block_m0 + warp_m * GT_WTM + (lane >> 2);
  const long long col_base = block_n0 + warp_n * GT_WTN + 2 * (lane & 3);
#pragma unroll
  for (int mt = 0; mt < GT_MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < GT_NT; ++nt) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const long long row = row_base + mt * 16 + (r >> 1) * 8;
        const long long col = col_base + nt * 8 + (r & 1);
        if (row < m && col < n) {
#if GT_SPLIT_K > 1
          workspace[(long long)blockIdx.z * m * n + row * n + col] = acc[mt][nt][r];
#else
          gt_out_t* out = c + row * ldc + col;
          *out = gt_epilogue(acc[mt][nt][r], out, alpha, beta);
#endif
        }
      }
    }
  }
  (void)workspace;
}

// Split-k: sums the slices' partial products in a fixed order (deterministic results), then
// applies alpha, beta and the output conversion. One thread per element of C.
GT_KERNEL_LINKAGE __global__ void __launch_bounds__(256)
    gemmtune_splitk_reduce(const gt_acc_t* workspace, gt_out_t* c, long long m, long long n, long long ldc,
                           float alpha, float beta) {
  const long long index = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= m * n) return;
  gt_acc_t sum = 0;
#pragma unroll
  for (int s = 0; s < GT_SPLIT_K; ++s) sum += workspace[(long long)s * m * n + index];
  gt_out_t* out = c + (index / n) * ldc + index % n;
  *out = gt_epilogue(sum, out, alpha, beta);
}

#ifdef GT_HOST_EMULATION
// The host emulation includes this file once per configuration.
#undef GT_EPW
#undef GT_THREADS
#undef GT_BKW
#undef GT_LDS
#undef GT_WTM
#undef GT_WTN
#undef GT_MT
#undef GT_NT
#undef GT_KERNEL_LINKAGE
#endif
