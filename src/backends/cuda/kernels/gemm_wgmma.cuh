// gemmtune's Hopper GEMM template (backend "wgmma"), compiled at run time by NVRTC for sm_90a,
// one instantiation per (problem dtypes and layouts, config). Every Hopper instruction is inline
// PTX, so it needs no CUDA header; its one include, wgmma_stream_k.cuh beside it (the stream-K
// work division, plain C shared with a host test), is inlined into the text NVRTC compiles by
// embed_source.cmake (and by the probe), so NVRTC sees one file.
//
// The kernel computes C' = alpha·A'·B' + beta·C' for its own operands A' (m×k) and B' (k×n);
// the host maps the user's problem onto them, swapping A and B (C' = Cᵀ) where that puts the
// larger dim in wgmma's 64-row slot (GT_C_TRANSPOSED).
//
// Structure (one CTA a persistent worker over output tiles):
//  - warpgroup 0 is the producer: one thread issues TMA loads of A' and B' tiles into a ring
//    of GT_STAGES shared-memory stages, each guarded by a "full" and an "empty" mbarrier;
//  - warpgroups 1..GT_CONSUMERS are consumers: each owns GT_BM / GT_CONSUMERS rows of the
//    tile and issues wgmma over them, keeping one k-block's wgmmas in flight while it waits
//    for the next stage, then converts its accumulators and writes them to C;
//  - setmaxnreg moves registers from the producer (which needs few) to the consumers;
//  - with a cluster of GT_CLUSTER_M × GT_CLUSTER_N CTAs, the CTAs of a cluster row share one
//    A' tile and those of a cluster column one B' tile: one CTA loads it and multicasts it.
//  - launched overlapped (programmatic dependent launch, GEMMTUNE_PDL), the CTA sets up
//    (barriers, tensor-map prefetch) while the previous kernel in the stream drains, and waits
//    for it (griddepcontrol.wait) before anything touches global memory; with the argument
//    `early` (GEMMTUNE_PDL=weights) the producer first sends for the weights' tiles of the
//    ring's first GT_STAGES k-blocks, and waits only before it loads the activations.
//
// Shared-memory tiles hold 128-byte rows in the 128B swizzle that TMA writes and wgmma reads:
//  - a K-major operand (k contiguous in global memory): one row per m (or n), 128 bytes of k;
//  - an MN-major operand (16-bit types only): chunks of 64 m (or n) elements, each GT_BK rows
//    of k, loaded as one TMA box per chunk.
// Both take 128 bytes per row (or column) of the tile per stage, so the ring's size does not
// depend on the layout.
//
// Macros (all required):
//   GT_IN            input dtype: 0 f16, 1 bf16, 2 f32 computed as TF32, 3 s8
//   GT_OUT           output dtype: 0 f32, 1 f16, 2 bf16, 3 s32
//   GT_A_MN, GT_B_MN 1 when A' is m-contiguous (B' n-contiguous); 16-bit inputs only
//   GT_C_TRANSPOSED  1 when C'(i, j) is stored at c[j·ldc + i], 0 for c[i·ldc + j]
//   GT_BM, GT_BN     CTA tile; GT_BN is the n of every wgmma
//   GT_STAGES        depth of the shared-memory ring
//   GT_CONSUMERS     consumer warpgroups (1, 2, or 3 without ping-pong)
//   GT_PINGPONG      0: the consumers split each tile's rows (cooperative); 1: they take whole
//                    tiles in turn, so one's epilogue runs while the other's wgmmas do
//                    (the ring hands out stages in tile order, which staggers them)
//   GT_CLUSTER_M, GT_CLUSTER_N   CTAs of a cluster along m and n (1 or 2)
//   GT_GROUP_M       rows of cluster tiles swept together, so tiles running at once share B'
//   GT_WGMMA_DEPTH   k-blocks of wgmmas a consumer leaves in flight while it waits for the next
//                    stage (0 or 1); 0 releases each stage as soon as its wgmmas finish
//   GT_SPLIT_K       slices of k per tile (1: none). Each slice is a work unit of its own, so a
//                    grid with fewer tiles than SMs still fills them; every slice writes its
//                    partial sums to the workspace, and the one that finishes last (a counter
//                    per tile) adds the others' into its accumulators and writes C.
//   GT_STREAM_K      1: hybrid data-parallel + stream-K (wgmma_stream_k.cuh): the full waves of
//                    tiles run whole, the k-blocks of the rest are shared out evenly among the
//                    clusters. A piece of a tile writes its partials to one of its cluster's two
//                    slots and adds its k-blocks to the tile's counter; the piece whose count
//                    completes the tile adds the others' partials and writes C. Nobody waits on
//                    another CTA. Exclusive with GT_SPLIT_K > 1.
//   GT_SPLIT_CLUSTER 1 (with GT_SPLIT_K > 1): the slices of a tile are the GT_SPLIT_K CTAs of one
//                    cluster, and the partial sums meet in CTA 0's shared memory (distributed
//                    shared memory) instead of the workspace: no round trip through L2, no
//                    counters. Clusters along m and n, ping-pong and 3 consumers are left out.
//   GT_C_TMA         1: the epilogue can stage C in shared memory and write it with TMA stores
//                    (C' row-major, GT_BN at least one 128-byte chunk; the columns past the
//                    last whole chunk go out through a second map, map_c_tail, whose box is
//                    that narrower tail); used at run time when beta is 0 and the host could
//                    map C (c_tma). 0: direct stores only.
// Optional, for the probe only (bench/probes/wgmma): GT_PROBE_SKIP, a mask of parts left out to
// time the rest alone: 1 the wgmmas, 2 the TMA loads (the producer arrives on each full
// barrier instead), 4 the C epilogue (unless alpha is 12345). The results are wrong then; the
// library never sets it.
// The prelude that wgmma_kernel_source.cc writes before this file defines gt_wgmma_tile(),
// the one wgmma instruction of this config (m64, n GT_BN, 32 bytes of k).

#ifndef GT_PROBE_SKIP
#define GT_PROBE_SKIP 0
#endif

typedef unsigned int gt_u32;
typedef unsigned long long gt_u64;

#include "wgmma_stream_k.cuh"

#if GT_STREAM_K && GT_SPLIT_K > 1
#error "split-k and stream-K both divide k among work units through one workspace: one at a time"
#endif
#if GT_SPLIT_CLUSTER && (GT_SPLIT_K < 2 || GT_SPLIT_K > 8 || GT_CLUSTER_M * GT_CLUSTER_N > 1 || GT_PINGPONG || \
                         GT_CONSUMERS > 2)
#error "a cluster of 2 to 8 slices of one tile, without clusters along m or n, ping-pong or 3 consumers"
#endif
// Split-k through the workspace (the slices' partial sums in L2, a counter a tile).
#define GT_SPLIT_L2 (GT_SPLIT_K > 1 && !GT_SPLIT_CLUSTER)

#if GT_IN == 3
typedef int gt_acc_t;
#define GT_IN_BYTES 1
#elif GT_IN == 2
typedef float gt_acc_t;
#define GT_IN_BYTES 4
#else
typedef float gt_acc_t;
#define GT_IN_BYTES 2
#endif

// An accumulator as 32 bits and back: the staged C stores and a split cluster's partials.
__device__ __forceinline__ gt_acc_t gt_acc_of_bits(gt_u32 bits) {
#if GT_IN == 3
  return (gt_acc_t)bits;
#else
  return __uint_as_float(bits);
#endif
}
__device__ __forceinline__ gt_u32 gt_bits_of(gt_acc_t v) {
#if GT_IN == 3
  return (gt_u32)v;
#else
  return __float_as_uint(v);
#endif
}

#if GT_OUT == 0
typedef float gt_out_t;
#elif GT_OUT == 3
typedef int gt_out_t;
#else
typedef unsigned short gt_out_t;
#endif

#if GT_CONSUMERS < 1 || GT_CONSUMERS > 3 || (GT_PINGPONG && GT_CONSUMERS != 2)
#error "1 to 3 consumer warpgroups, and ping-pong takes 2"
#endif
#define GT_THREADS (128 * (GT_CONSUMERS + 1))
#define GT_BK (128 / GT_IN_BYTES)        // k elements per stage: one 128-byte swizzle row
#define GT_WK (32 / GT_IN_BYTES)         // k elements per wgmma
#if GT_PINGPONG
#define GT_WG_M GT_BM                    // each consumer owns whole tiles, every other one
#else
#define GT_WG_M (GT_BM / GT_CONSUMERS)   // rows of the tile one consumer owns
#endif
#define GT_M_SLICES (GT_WG_M / 64)       // wgmma m64 slices per consumer
#define GT_ACC (GT_BN / 2)               // accumulators per thread per slice
#define GT_A_STAGE_BYTES (GT_BM * 128)
#define GT_B_STAGE_BYTES (GT_BN * 128)
#define GT_STAGE_BYTES (GT_A_STAGE_BYTES + GT_B_STAGE_BYTES)
// The CTAs that share loads (multicast), and the whole cluster: those, or a tile's slices.
#define GT_TILE_CLUSTER (GT_CLUSTER_M * GT_CLUSTER_N)
#if GT_SPLIT_CLUSTER
#define GT_CLUSTER GT_SPLIT_K
#else
#define GT_CLUSTER GT_TILE_CLUSTER
#endif
// Each consumer warp that reads a stage releases it on the empty barrier of every CTA that
// shares its loads, since a multicast load overwrites that stage in all of them.
#if GT_PINGPONG
#define GT_EMPTY_ARRIVALS (4 * GT_TILE_CLUSTER)
#else
#define GT_EMPTY_ARRIVALS (4 * GT_CONSUMERS * GT_TILE_CLUSTER)
#endif
// One consumer's accumulators in bytes, and the buffer in which CTA 0 of a split cluster
// receives the other slices' (GT_SPLIT_CLUSTER).
#define GT_PARTIAL_BYTES (GT_WG_M * GT_BN * 4)
#if GT_SPLIT_CLUSTER
#define GT_RED_BYTES ((GT_SPLIT_K - 1) * GT_CONSUMERS * GT_PARTIAL_BYTES)
#else
#define GT_RED_BYTES 0
#endif
// An MN-major chunk: 64 elements of m (or n) × GT_BK rows of k.
#define GT_CHUNK_BYTES (GT_BK * 128)
#if GT_OUT == 1 || GT_OUT == 2
#define GT_OUT_BYTES 2
#else
#define GT_OUT_BYTES 4
#endif
// The TMA-store epilogue writes C in chunks of one m64 slice × one 128-byte row of columns,
// through two staging buffers per consumer, so that filling one overlaps the store of the other.
// (Three or four, where the shared memory held them, measured the same on the H200:
// bench/results/2026-11-28-h200-epilogue.md.)
#define GT_C_CHUNK_COLS (128 / GT_OUT_BYTES)
#define GT_C_CHUNK_BYTES (64 * 128)
#if GT_C_TMA
#define GT_C_STAGING_BYTES (GT_CONSUMERS * 2 * GT_C_CHUNK_BYTES)
#else
#define GT_C_STAGING_BYTES 0
#endif

#if GT_WG_M % 64 != 0 || GT_WG_M == 0
#error "each consumer's rows must be whole wgmma m64 slices"
#endif
#if (GT_A_MN || GT_B_MN) && GT_IN_BYTES != 2
#error "wgmma reads m- or n-major operands of 16-bit types only"
#endif
#if GT_B_MN && GT_BN % 64 != 0
#error "an n-major B' tile is whole chunks of 64 columns"
#endif
#if GT_C_TMA && (GT_C_TRANSPOSED || GT_BN < GT_C_CHUNK_COLS)
#error "the TMA-store epilogue writes row-major C' in 128-byte chunks of columns: at least one"
#endif
// The columns the TMA-store epilogue writes in whole 128-byte chunks. A tile whose width is
// not whole chunks (224 columns of 16-bit C: three chunks and 32 columns) writes the rest as a
// tail through map_c_tail: unswizzled rows of GT_C_TAIL_BYTES (16-byte multiples, as TMA
// needs, since GT_BN is a multiple of 8). It was a direct store from registers; the TMA tail
// is 1-3 % faster on the 176- and 224-wide tiles (bench/results/2026-11-28-h200-epilogue.md).
#define GT_C_TMA_COLS (GT_BN / GT_C_CHUNK_COLS * GT_C_CHUNK_COLS)
#define GT_C_TAIL_COLS (GT_BN - GT_C_TMA_COLS)
#define GT_C_TAIL_BYTES (GT_C_TAIL_COLS * GT_OUT_BYTES)

// A CUtensorMap: 128 opaque bytes, made on the host, passed by value as a __grid_constant__
// parameter so TMA reads it from the parameter space.
struct __align__(64) gt_tensor_map {
  gt_u64 opaque[16];
};

__device__ __forceinline__ gt_u32 gt_shared_address(const void* p) {
  gt_u64 address;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(address) : "l"(p));
  return (gt_u32)address;
}

// ---- mbarriers ----

__device__ __forceinline__ void gt_barrier_init(gt_u32 bar, gt_u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void gt_barrier_expect_bytes(gt_u32 bar, gt_u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Returns once the phase of the given parity has completed. A fresh barrier is in phase 0, so
// a wait on parity 1 returns at once: that is how the producer finds every stage empty at
// the start.
__device__ __forceinline__ void gt_barrier_wait(gt_u32 bar, gt_u32 parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "gt_wait_loop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra gt_wait_loop;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// One arrival on the barrier at the same shared-memory offset in cluster CTA `cta`.
__device__ __forceinline__ void gt_barrier_arrive_cluster(gt_u32 bar, gt_u32 cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

// A consumer warp's release of a stage: on its own CTA's barrier, or on every CTA's of the
// cluster when loads are multicast.
__device__ __forceinline__ void gt_release_stage(gt_u32 bar) {
#if GT_TILE_CLUSTER > 1
  for (int cta = 0; cta < GT_TILE_CLUSTER; ++cta) gt_barrier_arrive_cluster(bar, cta);
#else
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}

// All threads of the cluster (of the CTA without one) meet here.
__device__ __forceinline__ void gt_cluster_sync() {
#if GT_CLUSTER > 1
  asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
#else
  __syncthreads();
#endif
}

__device__ __forceinline__ gt_u32 gt_cluster_rank() {
  gt_u32 rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// ---- TMA ----

// Box at (x, y) of a 2-D tensor map (x the contiguous dim) into this CTA's shared memory.
__device__ __forceinline__ void gt_tma_load(gt_u32 dst, const gt_tensor_map* map, gt_u32 bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          dst),
      "l"((gt_u64)map), "r"(bar), "r"(x), "r"(y)
      : "memory");
}

// The same box into the same offset of every CTA in `mask`, each completing on its own barrier.
__device__ __forceinline__ void gt_tma_multicast(gt_u32 dst, const gt_tensor_map* map, gt_u32 bar, int x, int y,
                                                 unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"((gt_u64)map), "r"(bar), "r"(x), "r"(y), "h"(mask)
      : "memory");
}

// One operand's tile for one stage: a K-major tile is one box of (rows × 128 bytes); an
// MN-major one is a box of (64 elements × GT_BK rows of k) per chunk of 64 rows.
template <int ROWS, int MN_MAJOR>
__device__ __forceinline__ void gt_load_tile(gt_u32 dst, const gt_tensor_map* map, gt_u32 bar, int row0, int k0,
                                             unsigned short mask) {
#pragma unroll
  for (int chunk = 0; chunk < (MN_MAJOR ? ROWS / 64 : 1); ++chunk) {
    const gt_u32 to = dst + chunk * GT_CHUNK_BYTES;
    const int x = MN_MAJOR ? row0 + 64 * chunk : k0;
    const int y = MN_MAJOR ? k0 : row0;
    if (mask != 0) {
      gt_tma_multicast(to, map, bar, x, y, mask);
    } else {
      gt_tma_load(to, map, bar, x, y);
    }
  }
}

// Box at (x, y) of a 2-D tensor map from this CTA's shared memory, in the thread's bulk group.
__device__ __forceinline__ void gt_tma_store(const gt_tensor_map* map, gt_u32 src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"((gt_u64)map),
               "r"(src), "r"(x), "r"(y)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// ---- wgmma ----

// Shared-memory matrix descriptor for the 128B swizzle: start address, leading byte offset
// (between chunks along m/n of an MN-major operand; unused for K-major), stride byte offset
// (between groups of 8 rows: 8 × 128 bytes), all in 16-byte units.
__device__ __forceinline__ gt_u64 gt_descriptor(gt_u32 address, gt_u32 leading_bytes) {
  return (gt_u64)((address & 0x3FFFF) >> 4) | ((gt_u64)(leading_bytes >> 4) << 16) | ((gt_u64)(1024 >> 4) << 32) |
         (1ull << 62);
}

// Descriptor of k step `ks` of a stage tile, from `rows_offset` rows (a multiple of 64) in.
template <int MN_MAJOR>
__device__ __forceinline__ gt_u64 gt_operand_descriptor(gt_u32 tile, int rows_offset, int ks) {
  if (MN_MAJOR) {
    // 64 rows a chunk; k steps are GT_WK rows of 128 bytes down the chunk.
    return gt_descriptor(tile + (rows_offset / 64) * GT_CHUNK_BYTES + ks * GT_WK * 128, GT_CHUNK_BYTES);
  }
  // One 128-byte row per m (n); k steps are 32 bytes along it (the swizzle is applied by the
  // hardware from the address bits, so a plain offset is right).
  return gt_descriptor(tile + rows_offset * 128 + ks * 32, 16);
}

__device__ __forceinline__ void gt_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void gt_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void gt_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// ---- epilogue ----

__device__ __forceinline__ unsigned short gt_f32_to_f16(float v) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}
__device__ __forceinline__ unsigned short gt_f32_to_bf16(float v) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}
__device__ __forceinline__ float gt_f16_to_f32(unsigned short h) {
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(h));
  return v;
}

__device__ __forceinline__ gt_out_t gt_to_out(gt_acc_t v) {
#if GT_OUT == 1
  return gt_f32_to_f16(v);
#elif GT_OUT == 2
  return gt_f32_to_bf16(v);
#else
  return (gt_out_t)v;
#endif
}

__device__ __forceinline__ gt_acc_t gt_from_out(gt_out_t v) {
#if GT_OUT == 1
  return gt_f16_to_f32(v);
#elif GT_OUT == 2
  return __uint_as_float(((gt_u32)v) << 16);  // bf16 is the top half of an f32
#else
  return (gt_acc_t)v;
#endif
}

// alpha·acc + beta·old for one element; `old` is only read when beta != 0 (C may hold NaN or
// garbage then).
__device__ __forceinline__ gt_out_t gt_epilogue(gt_acc_t acc, gt_out_t old, float alpha, float beta) {
#if GT_IN == 3
  // s8 problems have alpha 1 and beta 0 or 1: integer arithmetic, exact (wrapping as s32 does).
  return beta != 0.0f ? (gt_out_t)((gt_u32)acc + (gt_u32)old) : acc;
#else
  float v = alpha * acc;
  if (beta != 0.0f) v += beta * gt_from_out(old);
  return gt_to_out(v);
#endif
}

__device__ __forceinline__ gt_u32 gt_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ gt_u32 gt_bits(int v) { return (gt_u32)v; }

// Two adjacent elements of a row of C in one store (4 bytes of 16-bit outputs, 8 of 32-bit).
#if GT_OUT == 1 || GT_OUT == 2
typedef gt_u32 gt_out_pair_t;
__device__ __forceinline__ gt_out_pair_t gt_pair(gt_out_t lo, gt_out_t hi) { return (gt_u32)lo | ((gt_u32)hi << 16); }
__device__ __forceinline__ gt_out_t gt_pair_lo(gt_out_pair_t p) { return (gt_out_t)(p & 0xFFFF); }
__device__ __forceinline__ gt_out_t gt_pair_hi(gt_out_pair_t p) { return (gt_out_t)(p >> 16); }
#else
struct __align__(8) gt_out_pair_t {
  gt_out_t lo, hi;
};
__device__ __forceinline__ gt_out_pair_t gt_pair(gt_out_t lo, gt_out_t hi) {
  gt_out_pair_t p;
  p.lo = lo;
  p.hi = hi;
  return p;
}
__device__ __forceinline__ gt_out_t gt_pair_lo(gt_out_pair_t p) { return p.lo; }
__device__ __forceinline__ gt_out_t gt_pair_hi(gt_out_pair_t p) { return p.hi; }
#endif

// Writes one consumer's m64 slice straight from the registers: thread t of the warpgroup
// holds, for each 8 columns j of the slice, rows 16·warp + lane/4 (+8) and columns
// 8j + 2·(lane%4) (+1). Where C's rows run along the slice's columns and the pair is aligned
// (`pairs`), each pair is one store.
__device__ __forceinline__ void gt_store_slice(const gt_acc_t (&acc)[GT_ACC], gt_out_t* c, long long ldc, long long m,
                                               long long n, long long row0, long long col0, float alpha, float beta,
                                               bool pairs) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const long long r = row0 + 16 * warp + lane / 4;
#pragma unroll
  for (int j = 0; j < GT_BN / 8; ++j) {
    const long long col = col0 + 8 * j + 2 * (lane % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long i = r + 8 * h;
      if (i >= m) continue;
      const gt_acc_t v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
#if GT_C_TRANSPOSED
      if (col < n) {
        gt_out_t* out = c + col * ldc + i;
        *out = gt_epilogue(v0, beta != 0.0f ? *out : (gt_out_t)0, alpha, beta);
      }
      if (col + 1 < n) {
        gt_out_t* out = c + (col + 1) * ldc + i;
        *out = gt_epilogue(v1, beta != 0.0f ? *out : (gt_out_t)0, alpha, beta);
      }
#else
      gt_out_t* out = c + i * ldc + col;
      if (pairs && col + 1 < n) {
        const gt_out_pair_t old = beta != 0.0f ? *(const gt_out_pair_t*)out : gt_pair(0, 0);
        *(gt_out_pair_t*)out =
            gt_pair(gt_epilogue(v0, gt_pair_lo(old), alpha, beta), gt_epilogue(v1, gt_pair_hi(old), alpha, beta));
      } else {
        if (col < n) out[0] = gt_epilogue(v0, beta != 0.0f ? out[0] : (gt_out_t)0, alpha, beta);
        if (col + 1 < n) out[1] = gt_epilogue(v1, beta != 0.0f ? out[1] : (gt_out_t)0, alpha, beta);
      }
#endif
    }
  }
}

#if GT_C_TMA

// Writes one consumer's m64 slice through its staging buffers: the values of each chunk of
// columns go to shared memory in the 128B swizzle (each row's 16-byte pieces permuted by the
// row's index mod 8, so the 8 rows one store instruction touches fall in distinct banks), then
// one thread stores the chunk with TMA, which clips it to C's bounds. `chunks` counts the
// consumer's chunks so far: buffer chunks % 2 is free once at most one store is in flight.
__device__ __forceinline__ void gt_store_slice_tma(const gt_acc_t (&acc)[GT_ACC], const gt_tensor_map* map_c,
                                                   const gt_tensor_map* map_c_tail, gt_u32 buffers, int consumer,
                                                   int row0, int col0, float alpha, int& chunks) {
  const int tid = threadIdx.x % 128, lane = tid % 32, warp = tid / 32;
#pragma unroll
  for (int cc = 0; cc < GT_C_TMA_COLS / GT_C_CHUNK_COLS; ++cc, ++chunks) {
    const gt_u32 buffer = buffers + (chunks % 2) * GT_C_CHUNK_BYTES;
    if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
#pragma unroll
    for (int jj = 0; jj < GT_C_CHUNK_COLS / 8; ++jj) {
      const int j = cc * (GT_C_CHUNK_COLS / 8) + jj;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 16 * warp + lane / 4 + 8 * h;
        const int byte = (8 * jj + 2 * (lane % 4)) * GT_OUT_BYTES;
        const gt_u32 at = buffer + row * 128 + ((((byte / 16) ^ (row % 8)) * 16) | (byte % 16));
#if GT_IN == 3
        const gt_acc_t v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];  // alpha is 1
#else
        const gt_acc_t v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
#endif
#if GT_OUT_BYTES == 2
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(at), "r"(gt_pair(gt_to_out(v0), gt_to_out(v1))) : "memory");
#else
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(at), "r"(gt_bits(gt_to_out(v0))),
                     "r"(gt_bits(gt_to_out(v1)))
                     : "memory");
#endif
      }
    }
    // The TMA engine reads through the async proxy: order these stores before it.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
    if (tid == 0) gt_tma_store(map_c, buffer, col0 + cc * GT_C_CHUNK_COLS, row0);
  }
#if GT_C_TAIL_COLS > 0
  // The tail: rows of GT_C_TAIL_BYTES, unswizzled (a few bank conflicts on a few stores).
  {
    const gt_u32 buffer = buffers + (chunks % 2) * GT_C_CHUNK_BYTES;
    ++chunks;
    if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
#pragma unroll
    for (int jj = 0; jj < GT_C_TAIL_COLS / 8; ++jj) {
      const int j = GT_C_TMA_COLS / 8 + jj;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 16 * warp + lane / 4 + 8 * h;
        const gt_u32 at = buffer + row * GT_C_TAIL_BYTES + (8 * jj + 2 * (lane % 4)) * GT_OUT_BYTES;
#if GT_IN == 3
        const gt_acc_t v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
#else
        const gt_acc_t v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
#endif
#if GT_OUT_BYTES == 2
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(at), "r"(gt_pair(gt_to_out(v0), gt_to_out(v1))) : "memory");
#else
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(at), "r"(gt_bits(gt_to_out(v0))),
                     "r"(gt_bits(gt_to_out(v1)))
                     : "memory");
#endif
      }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
    if (tid == 0) gt_tma_store(map_c_tail, buffer, col0 + GT_C_TMA_COLS, row0);
  }
#endif
}

// A launch of a TMA-store kernel whose C the TMA engine cannot address (a pointer off the
// 16-byte grid): each m64 slice goes out through the consumer's staging buffer as alpha times
// the accumulators (f32, or s32), 32 columns at a time, and the 128 threads copy them to C in a
// plain loop with C's bounds and beta. Slow, and meant to be: it is the rare case, and the unrolled direct
// store (gt_store_slice) compiled beside the TMA store cost two thirds of each kernel's
// compile time (2026-11-27-h100-compile-time.md). Kernels for a beta != 0 or an ldc that TMA
// cannot address are compiled without the TMA store and use gt_store_slice alone.
__device__ __forceinline__ void gt_store_slice_staged(const gt_acc_t (&acc)[GT_ACC], gt_u32 buffer, gt_out_t* c,
                                                      long long ldc, long long m, long long n, long long row0,
                                                      long long col0, float alpha, float beta, int consumer) {
  const int tid = threadIdx.x % 128, lane = tid % 32, warp = tid / 32;
  // Little besides the accumulators stays live across the copy loops (they fill 128 of 168
  // registers at the widest tiles): one pointer and the slice's extent.
  const int rows = (int)(m - row0 < 64 ? m - row0 : 64);
  const int cols = (int)(n - col0 < GT_BN ? n - col0 : GT_BN);
  gt_out_t* const slice = c + row0 * ldc + col0;
#pragma unroll
  for (int cc = 0; cc < (GT_BN + 31) / 32; ++cc) {
    // The buffer's previous chunk has been copied out by every thread.
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
#pragma unroll
    for (int jj = 0; jj < 4 && 4 * cc + jj < GT_BN / 8; ++jj) {
      const int j = 4 * cc + jj;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 16 * warp + lane / 4 + 8 * h;
        const gt_u32 at = buffer + (row * 32 + 8 * jj + 2 * (lane % 4)) * 4;
#if GT_IN == 3
        const gt_acc_t v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];  // alpha is 1
#else
        // Scaled here, as the TMA store does: an inline-asm read of the accumulator registers
        // themselves makes ptxas serialize every wgmma of the kernel (C7514).
        const gt_acc_t v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
#endif
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(at), "r"(gt_bits(v0)), "r"(gt_bits(v1)) : "memory");
      }
    }
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
#pragma unroll 1
    for (int e = tid; e < 64 * 32; e += 128) {
      const int row = e / 32, col = 32 * cc + e % 32;
      if (row >= rows || col >= cols || e % 32 >= GT_BN - 32 * cc) continue;
      gt_u32 bits;
      asm volatile("ld.shared.b32 %0, [%1];" : "=r"(bits) : "r"(buffer + e * 4) : "memory");
      gt_out_t* out = slice + row * ldc + col;
      *out = gt_epilogue(gt_acc_of_bits(bits), beta != 0.0f ? *out : (gt_out_t)0, 1.0f, beta);
    }
  }
}
#endif

#if GT_SPLIT_L2 || GT_STREAM_K
#if GT_PINGPONG
#define GT_CONSUMER_SLOTS 1  // a tile is one consumer's
#else
#define GT_CONSUMER_SLOTS GT_CONSUMERS
#endif
// Accumulators of one consumer's partial sums: the unit of the workspace.
#define GT_PARTIAL_ELEMENTS (128LL * GT_M_SLICES * GT_ACC)

// A partial written by another CTA in this launch: read from L2, past this SM's L1.
__device__ __forceinline__ float gt_load_partial(const float* p) {
  float v;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ int gt_load_partial(const int* p) {
  int v;
  asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// One consumer's part in a tile that several units share (split-k slices, stream-K pieces):
// the tile's `contributors` units keep their partial sums in the workspace, the j-th at partial
// `partial_at(j)`; this unit is the `me`-th. It writes its partials (thread-major, so each store
// instruction is one coalesced line), then adds the k it covered (`amount` of `total`) to the
// tile's counter. The unit whose amount completes the total resets the counter for the next
// launch, adds every other contributor's partials into its accumulators and returns true: it
// writes C. No unit waits for another, so no schedule of the CTAs can deadlock.
template <class PartialAt>
__device__ __forceinline__ bool gt_shared_tile_fixup(gt_acc_t (&acc)[GT_M_SLICES][GT_ACC], gt_acc_t* workspace,
                                                     int* counter, int amount, int total, int contributors, int me,
                                                     PartialAt partial_at, gt_u32 flag, int consumer) {
  const int tid = threadIdx.x % 128;
  gt_acc_t* partial = workspace + partial_at(me) * GT_PARTIAL_ELEMENTS;
#pragma unroll
  for (int ms = 0; ms < GT_M_SLICES; ++ms) {
#pragma unroll
    for (int i = 0; i < GT_ACC; ++i) partial[(ms * GT_ACC + i) * 128 + tid] = acc[ms][i];
  }
  __threadfence();  // the partials are visible before the count says they are there
  asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
  if (tid == 0) {
    const int before = atomicAdd(counter, amount);
    const int last = before + amount == total;
    if (last) *counter = 0;
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(flag), "r"(last) : "memory");
  }
  asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
  int last;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(last) : "r"(flag) : "memory");
  if (!last) return false;
  __threadfence();
  for (int j = 0; j < contributors; ++j) {
    if (j == me) continue;
    const gt_acc_t* theirs = workspace + partial_at(j) * GT_PARTIAL_ELEMENTS;
#pragma unroll
    for (int ms = 0; ms < GT_M_SLICES; ++ms) {
#pragma unroll
      for (int i = 0; i < GT_ACC; ++i) acc[ms][i] += gt_load_partial(theirs + (ms * GT_ACC + i) * 128 + tid);
    }
  }
  return true;
}
#endif

#if GT_SPLIT_L2
// One slice's part in a split tile: its partials go to slice × tile slot (`slot` of `slots`);
// the last slice to count in adds every other slice's. True when this slice writes C.
__device__ __forceinline__ bool gt_split_fixup(gt_acc_t (&acc)[GT_M_SLICES][GT_ACC], gt_acc_t* workspace,
                                               int* counters, int slot, int slots, int slice, gt_u32 flag,
                                               int consumer) {
  auto partial_at = [&](int j) { return (long long)j * slots + slot; };
  return gt_shared_tile_fixup(acc, workspace, counters + slot, 1, GT_SPLIT_K, GT_SPLIT_K, slice, partial_at, flag,
                              consumer);
}
#endif

#if GT_STREAM_K
// Where cluster g's part `part` (wgmma_stream_k.cuh) keeps the partials of the CTA and consumer
// at `cta_slot` (rank × GT_CONSUMER_SLOTS + consumer slot): GT_SK_PARTS slots a cluster, each
// one partial per CTA and consumer, so a launch needs 2 × grid × tile of workspace.
__device__ __forceinline__ long long gt_sk_partial(int g, int part, int cta_slot) {
  return ((long long)g * GT_SK_PARTS + part) * (GT_CLUSTER * GT_CONSUMER_SLOTS) + cta_slot;
}

// One piece of a stream-K tile (not the whole of it): publishes its partials and its k-blocks;
// the piece that completes the tile's KB adds the partials of the tile's other contributors,
// a run of clusters of its lane found from the division. True when this piece writes C.
__device__ __forceinline__ bool gt_stream_k_fixup(gt_acc_t (&acc)[GT_M_SLICES][GT_ACC], gt_acc_t* workspace,
                                                  int* counter, const gt_sk_division& work, int cluster,
                                                  gt_unit unit, int cta_slot, gt_u32 flag, int consumer) {
  int first, count;
  gt_sk_contributors(&work, unit.tile, &first, &count);
  auto partial_at = [&](int j) {
    const int g = first + j * work.lanes;
    return gt_sk_partial(g, gt_sk_part_of(&work, g, unit.tile), cta_slot);
  };
  return gt_shared_tile_fixup(acc, workspace, counter, unit.kb_end - unit.kb_begin, work.k_blocks, count,
                              (cluster - first) / work.lanes, partial_at, flag, consumer);
}
#endif

#if GT_SPLIT_CLUSTER
// A split cluster's reduction: the slices of a tile are the cluster's CTAs. Each CTA r > 0
// sends its consumer's accumulators into CTA 0's buffer (a bulk copy into distributed shared
// memory, which completes on CTA 0's red_full barrier), and CTA 0 adds them up, frees the
// buffer with an arrival on each sender's red_empty barrier and writes C. The workspace path
// (gt_split_fixup) takes two round trips through a loaded L2 and more: on the H200 it cost
// 1.6 µs at the end of a 13 µs kernel and about 4 µs a unit mid-stream
// (bench/results/2026-11-28-h200-split-fixup.md). A buffer chunk q of thread tid (4
// accumulators, 16 bytes) sits at (q × 128 + tid) × 16. `n`: the consumer's tiles so far, which
// gives the barriers' phases. True on CTA 0, which writes C.
#define GT_RED_CHUNKS (GT_M_SLICES * GT_ACC / 4)

__device__ __forceinline__ gt_u32 gt_map_to_cta(gt_u32 address, gt_u32 cta) {
  gt_u32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(cta));
  return remote;
}

// As gt_barrier_wait, acquiring what other CTAs of the cluster released.
__device__ __forceinline__ void gt_barrier_wait_cluster(gt_u32 bar, gt_u32 parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "gt_wait_cluster_loop:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra gt_wait_cluster_loop;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ bool gt_cluster_split_reduce(gt_acc_t (&acc)[GT_M_SLICES][GT_ACC], gt_u32 red,
                                                        gt_u32 red_full, gt_u32 red_empty, int consumer, int n,
                                                        gt_acc_t zero) {
  const gt_u32 slice = gt_cluster_rank();
  const int tid = threadIdx.x % 128;
  const gt_u32 full = red_full + 8 * consumer, empty = red_empty + 8 * consumer;
  if (slice != 0) {
    gt_barrier_wait_cluster(empty, (gt_u32)((n & 1) ^ 1));  // CTA 0 has read this buffer's last tile
    // Staged in this CTA's own copy of the buffer slot, then one bulk copy to CTA 0's. A store
    // that reads the accumulators themselves makes ptxas serialize the wgmmas (C7514); plus
    // `zero` (0, from a kernel argument ptxas cannot see through) it reads their sums instead.
    const gt_u32 slot = red + ((slice - 1) * GT_CONSUMERS + consumer) * GT_PARTIAL_BYTES;
#pragma unroll
    for (int q = 0; q < GT_RED_CHUNKS; ++q) {
      const gt_acc_t* v = &acc[q / (GT_ACC / 4)][(q % (GT_ACC / 4)) * 4];
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(slot + (q * 128 + tid) * 16),
                   "r"(gt_bits_of(v[0] + zero)), "r"(gt_bits_of(v[1] + zero)), "r"(gt_bits_of(v[2] + zero)),
                   "r"(gt_bits_of(v[3] + zero))
                   : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the copy engine sees the stores
    asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
    if (tid == 0) {
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              gt_map_to_cta(slot, 0)),
          "r"(slot), "r"(GT_PARTIAL_BYTES), "r"(gt_map_to_cta(full, 0))
          : "memory");
    }
    return false;
  }
  if (tid == 0) gt_barrier_expect_bytes(full, (GT_SPLIT_K - 1) * GT_PARTIAL_BYTES);
  gt_barrier_wait_cluster(full, (gt_u32)(n & 1));
#pragma unroll
  for (int r = 1; r < GT_SPLIT_K; ++r) {
    const gt_u32 from = red + ((r - 1) * GT_CONSUMERS + consumer) * GT_PARTIAL_BYTES + tid * 16;
#pragma unroll
    for (int q = 0; q < GT_RED_CHUNKS; ++q) {
      gt_u32 bits[4];
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(bits[0]), "=r"(bits[1]), "=r"(bits[2]), "=r"(bits[3])
                   : "r"(from + q * 128 * 16)
                   : "memory");
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[q / (GT_ACC / 4)][(q % (GT_ACC / 4)) * 4 + e] += gt_acc_of_bits(bits[e]);
    }
  }
  // Every thread has read the buffer: the senders may fill it with their next tile's.
  asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
  if (tid == 0) {
    for (int r = 1; r < GT_SPLIT_K; ++r) {
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(gt_map_to_cta(empty, r))
                   : "memory");
    }
  }
  return true;
}
#endif

// ---- work units ----

// A cluster's work units, in the one order that its producer and its consumers both walk:
// u = first, first + step, … below end, each turned into a unit by gt_unit_at.
typedef struct {
  int first, end, step;
} gt_unit_range;

#if GT_STREAM_K
typedef gt_sk_division gt_work;
// `rows`: rows of cluster tiles in raster order (gt_tile_of), which become the lanes.
__device__ __forceinline__ gt_work gt_work_of(int tiles, int clusters, int k_blocks, int rows) {
  return gt_sk_divide(tiles, clusters, k_blocks, rows);
}
__device__ __forceinline__ gt_unit_range gt_units_of(const gt_work& work, int cluster) {
  gt_unit_range range;
  range.first = 0;
  range.end = gt_sk_unit_count(&work, cluster);
  range.step = 1;
  return range;
}
__device__ __forceinline__ gt_unit gt_unit_at(const gt_work& work, int cluster, int u) {
  return gt_sk_unit_of(&work, cluster, u);
}
#else
// Units u = tile × GT_SPLIT_K + slice (a tile alone without split-k), dealt round-robin to the
// clusters; a unit's part is its slice. Counting u itself (not the cluster's i-th unit) keeps
// the consumers' loop state to what ptxas fits beside 128 accumulators in 168 registers.
// A split cluster's units are its tiles, and the CTA's slice of each is its rank.
typedef struct {
  int units, clusters, k_blocks, slice;
} gt_work;
__device__ __forceinline__ gt_work gt_work_of(int tiles, int clusters, int k_blocks, int) {
  gt_work work;
#if GT_SPLIT_CLUSTER
  work.units = tiles;
  work.slice = (int)gt_cluster_rank();
#else
  work.units = tiles * GT_SPLIT_K;
  work.slice = 0;
#endif
  work.clusters = clusters;
  work.k_blocks = k_blocks;
  return work;
}
__device__ __forceinline__ gt_unit_range gt_units_of(const gt_work& work, int cluster) {
  gt_unit_range range;
  range.first = cluster;
  range.end = work.units;
  range.step = work.clusters;
  return range;
}
__device__ __forceinline__ gt_unit gt_unit_at(const gt_work& work, int, int u) {
  gt_unit unit;
#if GT_SPLIT_CLUSTER
  unit.tile = u;
  unit.part = work.slice;
#else
  unit.tile = u / GT_SPLIT_K;
  unit.part = u % GT_SPLIT_K;
#endif
  unit.kb_begin = unit.part * work.k_blocks / GT_SPLIT_K;
  unit.kb_end = (unit.part + 1) * work.k_blocks / GT_SPLIT_K;
  return unit;
}
#endif

// ---- tile order ----

// Cluster tile `t` of a grid of tiles_m × tiles_n cluster tiles, grouped GT_GROUP_M rows at a
// time so that the tiles running at once reuse each other's B' tiles from L2.
__device__ __forceinline__ void gt_tile_of(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = GT_GROUP_M * tiles_n;
  const int group = t / per_group;
  const int first_m = group * GT_GROUP_M;
  const int rows = min(tiles_m - first_m, GT_GROUP_M);
  tm = first_m + (t % per_group) % rows;
  tn = (t % per_group) / rows;
}

#if GT_CLUSTER > 1
#define GT_CLUSTER_DIMS __cluster_dims__(GT_CLUSTER, 1, 1)
#else
#define GT_CLUSTER_DIMS
#endif

extern "C" __global__ void __launch_bounds__(GT_THREADS, 1) GT_CLUSTER_DIMS
    gemmtune_gemm_wgmma(const __grid_constant__ gt_tensor_map map_a, const __grid_constant__ gt_tensor_map map_b,
                        const __grid_constant__ gt_tensor_map map_c, const __grid_constant__ gt_tensor_map map_c_tail,
                        void* c_ptr, long long m, long long n,
                        long long k, long long ldc, float alpha, float beta, int c_tma, gt_acc_t* workspace,
                        int* tile_counters, int early) {
  extern __shared__ unsigned char gt_smem_raw[];
  // The 128B swizzle repeats every 1024 bytes; TMA and wgmma both apply it from address bits,
  // so tiles start on 1024-byte boundaries (the host asks for 1 KB of slack).
  const gt_u32 raw = gt_shared_address(gt_smem_raw);
  const gt_u32 base = (raw + 1023u) & ~1023u;
  const gt_u32 a_tiles = base;
  const gt_u32 b_tiles = base + GT_STAGES * GT_A_STAGE_BYTES;
  const gt_u32 c_staging = b_tiles + GT_STAGES * GT_B_STAGE_BYTES;  // 1024-aligned too
  const gt_u32 red = c_staging + GT_C_STAGING_BYTES;                 // GT_RED_BYTES (split cluster)
  const gt_u32 full = red + GT_RED_BYTES;                             // GT_STAGES 8-byte barriers
  (void)red;
  const gt_u32 empty = full + GT_STAGES * 8;
  // Ping-pong: turn[c] lets consumer c start its next mainloop once the other consumer has
  // issued all of its own. Waits on a stage's full barrier are by parity, so a consumer may
  // only wait on the phase right after the last one completed: it must not run ahead to a
  // stage of its next tile while the other consumer's tile still cycles through the ring.
#if GT_PINGPONG
  const gt_u32 turn = empty + GT_STAGES * 8;
#endif
#if GT_SPLIT_L2 || GT_STREAM_K
  // Two words, one a consumer: whether its unit of a shared tile was the last to count in.
  const gt_u32 last_flags = empty + GT_STAGES * 8 + 16;
#endif
#if GT_SPLIT_CLUSTER
  // A barrier a consumer each: red_full (on CTA 0: the other slices' partials have landed) and
  // red_empty (on the others: CTA 0 has read their last ones).
  const gt_u32 red_full = empty + GT_STAGES * 8 + 24;
  const gt_u32 red_empty = red_full + 8 * GT_CONSUMERS;
#endif

  const int warpgroup = threadIdx.x / 128;
  // Launched overlapped (programmatic dependent launch, GEMMTUNE_PDL), the next kernel in the
  // stream may start now: it sets up while this one runs and waits for it to finish.
  asm volatile("griddepcontrol.launch_dependents;");
  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&map_a) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&map_b) : "memory");
    for (int s = 0; s < GT_STAGES; ++s) {
      gt_barrier_init(full + 8 * s, 1);
      gt_barrier_init(empty + 8 * s, GT_EMPTY_ARRIVALS);
    }
#if GT_PINGPONG
    for (int i = 0; i < GT_CONSUMERS; ++i) gt_barrier_init(turn + 8 * i, 4);
#endif
#if GT_SPLIT_CLUSTER
    for (int i = 0; i < GT_CONSUMERS; ++i) {
      gt_barrier_init(red_full + 8 * i, 1);
      gt_barrier_init(red_empty + 8 * i, 1);
    }
#endif
#if GT_CLUSTER > 1
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
  }
  // Every barrier of the cluster exists before any CTA arrives on or multicasts to it.
  gt_cluster_sync();
  // The previous kernel in the stream may write A, B, C or the workspace: nothing of them is
  // touched before it has finished (griddepcontrol.wait, which returns at once where the launch
  // was not overlapped). The consumers wait first thing; the producer after its early loads.

  // The CTA's place among those that share loads; a split cluster's CTAs all cover one tile.
  const gt_u32 rank = GT_TILE_CLUSTER > 1 ? gt_cluster_rank() : 0;
  const int rank_m = rank / GT_CLUSTER_N, rank_n = rank % GT_CLUSTER_N;
  const int tiles_m = (int)((m + GT_BM - 1) / GT_BM), tiles_n = (int)((n + GT_BN - 1) / GT_BN);
  const int cluster_tiles_m = (tiles_m + GT_CLUSTER_M - 1) / GT_CLUSTER_M;
  const int cluster_tiles_n = (tiles_n + GT_CLUSTER_N - 1) / GT_CLUSTER_N;
  const int cluster_tiles = cluster_tiles_m * cluster_tiles_n;
  const int k_blocks_total = (int)((k + GT_BK - 1) / GT_BK);
  const int cluster = blockIdx.x / GT_CLUSTER;
  // Where the cluster-tile rows fit in one group of gt_tile_of's order, tile t is in row
  // t mod cluster_tiles_m: stream-K then shares its tiles out by row, in lanes.
  const int rows = cluster_tiles_m <= GT_GROUP_M ? cluster_tiles_m : 1;
  const gt_work work = gt_work_of(cluster_tiles, gridDim.x / GT_CLUSTER, k_blocks_total, rows);
  const gt_unit_range units = gt_units_of(work, cluster);

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0) {
      // A' is shared along the cluster row (same rank_m), B' along the cluster column; the CTA
      // of rank 0 along the sharing dim loads the tile for all of them.
      unsigned short a_mask = 0, b_mask = 0;
      if (GT_CLUSTER_N > 1) a_mask = (unsigned short)(((1u << GT_CLUSTER_N) - 1) << (rank_m * GT_CLUSTER_N));
      if (GT_CLUSTER_M > 1) {
        for (int i = 0; i < GT_CLUSTER_M; ++i) b_mask |= (unsigned short)(1u << (i * GT_CLUSTER_N + rank_n));
      }
      const bool loads_a = GT_CLUSTER_N == 1 || rank_n == 0;
      const bool loads_b = GT_CLUSTER_M == 1 || rank_m == 0;
      // `early`: 1 when A' holds the weights, 2 when B' does, 0 for none. Pass 0 arms the ring's
      // first GT_STAGES stages for their whole bytes and sends for the weights' tiles alone;
      // after the wait, pass 1 adds the other operand's tiles to those stages and then runs the
      // ring as usual. A stage's full barrier completes once both operands have landed.
      for (int pass = early ? 0 : 1; pass < 2; ++pass) {
        if (pass == 1) asm volatile("griddepcontrol.wait;" ::: "memory");
        int it = 0;
        for (int u = units.first; u < units.end && (pass == 1 || it < GT_STAGES); u += units.step) {
          const gt_unit unit = gt_unit_at(work, cluster, u);
          int tm, tn;
          gt_tile_of(unit.tile, cluster_tiles_m, cluster_tiles_n, tm, tn);
          const int row0 = (tm * GT_CLUSTER_M + rank_m) * GT_BM;
          const int col0 = (tn * GT_CLUSTER_N + rank_n) * GT_BN;
          // The stage and its phase step as counters, from `it` once a unit (see the consumers').
          int s = it % GT_STAGES;
          gt_u32 phase = (it / GT_STAGES) & 1;
          for (int kb = unit.kb_begin; kb < unit.kb_end && (pass == 1 || it < GT_STAGES);
               ++kb, ++it, s = s + 1 == GT_STAGES ? 0 : s + 1, phase ^= s == 0) {
            // Where pass 0 sent for this stage's weights: only the other operand is left.
            const bool armed = pass == 1 && early && it < GT_STAGES;
            if (!armed) {
              gt_barrier_wait(empty + 8 * s, phase ^ 1);
#if GT_PROBE_SKIP & 2
              asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(full + 8 * s) : "memory");
              continue;
#endif
              gt_barrier_expect_bytes(full + 8 * s, GT_STAGE_BYTES);
            }
            const bool weights_only = pass == 0, others_only = armed;
            if (loads_a && !(weights_only && early != 1) && !(others_only && early == 1)) {
              gt_load_tile<GT_BM, GT_A_MN>(a_tiles + s * GT_A_STAGE_BYTES, &map_a, full + 8 * s, row0, kb * GT_BK,
                                           a_mask);
            }
            if (loads_b && !(weights_only && early != 2) && !(others_only && early == 2)) {
              gt_load_tile<GT_BN, GT_B_MN>(b_tiles + s * GT_B_STAGE_BYTES, &map_b, full + 8 * s, col0, kb * GT_BK,
                                           b_mask);
            }
          }
        }
      }
    }
  } else {
    // The producer's warpgroup keeps 40 registers a thread and the consumers share the rest of
    // the 64K: 1 × 256, 2 × 232, 3 × 152 (128·40 + 384·152 = 63,488).
#if GT_CONSUMERS == 1
    asm volatile("setmaxnreg.inc.sync.aligned.u32 256;");
#elif GT_CONSUMERS == 2
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
#else
    asm volatile("setmaxnreg.inc.sync.aligned.u32 152;");
#endif
    asm volatile("griddepcontrol.wait;" ::: "memory");
    const int consumer = warpgroup - 1;
    const int lane = threadIdx.x % 32;
    gt_acc_t acc[GT_M_SLICES][GT_ACC];
    gt_out_t* c = (gt_out_t*)c_ptr;
    // Pairs of outputs go out as one store where every pair is aligned.
    const bool pairs = (ldc % 2) == 0 && ((gt_u64)c_ptr % (2 * sizeof(gt_out_t))) == 0;
    (void)pairs;  // a TMA-store kernel has no direct store
#if GT_PINGPONG
    const int rows_offset = 0;
#else
    const int rows_offset = consumer * GT_WG_M;
#endif
    int it = 0;
#if GT_C_TMA
    int chunks = 0;  // this consumer's C chunks so far, which pick its staging buffer
#endif
    for (int u = units.first, local = 0; u < units.end; u += units.step, ++local) {
      const gt_unit unit = gt_unit_at(work, cluster, u);
      const int k_blocks = unit.kb_end - unit.kb_begin;
#if GT_PINGPONG
      if (local % GT_CONSUMERS != consumer) {
        it += k_blocks;  // the other consumer's unit: its stages are not ours to read
        continue;
      }
      // The n-th own tile waits for the other consumer's (n-1)-th (consumer 0's first, nothing).
      const int own = local / GT_CONSUMERS;
      gt_barrier_wait(turn + 8 * consumer, (gt_u32)((own & 1) ^ (consumer == 0 ? 1 : 0)));
#endif
      int tm, tn;
      gt_tile_of(unit.tile, cluster_tiles_m, cluster_tiles_n, tm, tn);
      const long long row0 = (long long)(tm * GT_CLUSTER_M + rank_m) * GT_BM + rows_offset;
      const long long col0 = (long long)(tn * GT_CLUSTER_N + rank_n) * GT_BN;
#pragma unroll
      for (int ms = 0; ms < GT_M_SLICES; ++ms) {
#pragma unroll
        for (int i = 0; i < GT_ACC; ++i) acc[ms][i] = 0;
      }
      // The ring's stage, the one before it and the phase step as counters, set from `it` once
      // a unit. Derived from `it` on every k-block instead, the kernels ran 1.03-1.09× slower at
      // 5 and 6 stages and 1.16× slower for 128×176 at 4 on the H200; 128×256 at 4 the same
      // (bench/results/2026-11-28-h200-check.md).
      int s = it % GT_STAGES, prev = (it + GT_STAGES - 1) % GT_STAGES;
      gt_u32 phase = (it / GT_STAGES) & 1;
      for (int kb = 0; kb < k_blocks; ++kb, ++it, prev = s, s = s + 1 == GT_STAGES ? 0 : s + 1, phase ^= s == 0) {
        gt_barrier_wait(full + 8 * s, phase);
        gt_wgmma_fence();
        const gt_u32 a_stage = a_tiles + s * GT_A_STAGE_BYTES;
        const gt_u32 b_stage = b_tiles + s * GT_B_STAGE_BYTES;
#pragma unroll
        for (int ks = 0; ks < GT_BK / GT_WK; ++ks) {
          const gt_u64 db = gt_operand_descriptor<GT_B_MN>(b_stage, 0, ks);
#pragma unroll
          for (int ms = 0; ms < GT_M_SLICES; ++ms) {
            const gt_u64 da = gt_operand_descriptor<GT_A_MN>(a_stage, rows_offset + 64 * ms, ks);
#if !(GT_PROBE_SKIP & 1)
            gt_wgmma_tile(acc[ms], da, db);
#else
            (void)da;
            (void)db;
#endif
          }
        }
        gt_wgmma_commit();
#if GT_WGMMA_DEPTH == 1
        // Keep this k-block's wgmmas in flight; the previous block's are done once at most one
        // group is pending, and its stage goes back to the producer(s).
        gt_wgmma_wait<1>();
        if (kb > 0 && lane == 0) gt_release_stage(empty + 8 * prev);
#else
        // Release the stage as soon as its wgmmas are done; the other consumer (or tile) keeps
        // the tensor cores busy meanwhile.
        gt_wgmma_wait<0>();
        if (lane == 0) gt_release_stage(empty + 8 * s);
#endif
      }
#if GT_PINGPONG
      if (lane == 0) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(turn + 8 * ((consumer + 1) % GT_CONSUMERS))
                     : "memory");
      }
#endif
#if GT_WGMMA_DEPTH == 1
      gt_wgmma_wait<0>();
      if (k_blocks > 0 && lane == 0) gt_release_stage(empty + 8 * prev);
#endif
#if GT_SPLIT_L2
      {
        const int tile_m = tm * GT_CLUSTER_M + rank_m, tile_n = tn * GT_CLUSTER_N + rank_n;
        if (row0 >= m || col0 >= n) continue;  // a cluster's tile past the edge: nothing to write
        const int slot = (tile_m * tiles_n + tile_n) * GT_CONSUMER_SLOTS + (GT_PINGPONG ? 0 : consumer);
        if (!gt_split_fixup(acc, workspace, tile_counters, slot, tiles_m * tiles_n * GT_CONSUMER_SLOTS, unit.part,
                            last_flags + 4 * consumer, consumer)) {
          continue;  // another slice of this tile finishes it
        }
      }
#elif GT_SPLIT_CLUSTER
      // k < 0 never holds: a zero that ptxas cannot fold (see gt_cluster_split_reduce).
      if (!gt_cluster_split_reduce(acc, red, red_full, red_empty, consumer, local, (gt_acc_t)(k < 0))) {
        continue;  // CTA 0 writes C
      }
#elif GT_STREAM_K
      if (!gt_sk_whole(&work, unit)) {
        const int tile_m = tm * GT_CLUSTER_M + rank_m, tile_n = tn * GT_CLUSTER_N + rank_n;
        if (row0 >= m || col0 >= n) continue;  // a cluster's tile past the edge: nothing to write
        const int consumer_slot = GT_PINGPONG ? 0 : consumer;
        int* counter = tile_counters + (tile_m * tiles_n + tile_n) * GT_CONSUMER_SLOTS + consumer_slot;
        if (!gt_stream_k_fixup(acc, workspace, counter, work, cluster, unit, (int)rank * GT_CONSUMER_SLOTS + consumer_slot,
                               last_flags + 4 * consumer, consumer)) {
          continue;  // another piece of this tile finishes it
        }
      }
#endif
#if GT_PROBE_SKIP & 4
      // Skipped on a condition the compiler cannot see through, so the wgmmas stay.
      if (alpha != 12345.0f) continue;
#endif
#if GT_C_TMA
      if (c_tma) {
#pragma unroll
        for (int ms = 0; ms < GT_M_SLICES; ++ms) {
          gt_store_slice_tma(acc[ms], &map_c, &map_c_tail, c_staging + consumer * 2 * GT_C_CHUNK_BYTES, consumer,
                             (int)row0 + 64 * ms, (int)col0, alpha, chunks);
        }
        continue;
      }
#endif
#pragma unroll
      for (int ms = 0; ms < GT_M_SLICES; ++ms) {
#if GT_C_TMA
        gt_store_slice_staged(acc[ms], c_staging + consumer * 2 * GT_C_CHUNK_BYTES, c, ldc, m, n, row0 + 64 * ms,
                              col0, alpha, beta, consumer);
#else
        gt_store_slice(acc[ms], c, ldc, m, n, row0 + 64 * ms, col0, alpha, beta, pairs);
#endif
      }
    }
#if GT_C_TMA
    // Shared memory must outlive the stores that read it.
    if (threadIdx.x % 128 == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
  }
  // No CTA leaves while a peer may still multicast into its shared memory or arrive on its
  // barriers.
  gt_cluster_sync();
}
