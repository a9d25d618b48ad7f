// gemmtune's skinny GEMM template (backend "skinny"), compiled at run time by NVRTC: C = alpha·A·B
// + beta·C for m ≤ 64, the shape of LLM decoding, where the whole cost is streaming B (the
// weights) once. It includes no header; the tensor-core op is inline PTX mma.sync.
//
// The tensor cores compute Cᵀ = Bᵀ·Aᵀ: B's n runs along mma's 16-row M slot, m along its 8-wide
// N slot (8·GT_MT columns, rows of C past m read zeros). Each warp owns GT_TILES 16-row tiles
// of n (nt) or a 64-row strip (nn) and streams its rows of B from global memory straight into
// registers, GT_BK of k at a time, one 16-byte load per thread and row (two batches in flight
// with GT_STAGES 2); no shared memory, no barrier in the stream. A, small and read by every
// CTA, sits in shared memory GT_PASS of k at a time.
//
// Since the sum over k does not depend on its order, the k elements of a register are not those
// the PTX fragment layout names: thread (g, c) of a warp loads words 4c..4c+3 (16 bytes) of
// each 16-word chunk of its rows, and the fragment's logical word c of k-step s is physical
// word 4c+2s, logical c+4 physical 4c+2s+1. A in shared memory is read with the same map, as one
// 16-byte load per chunk. With n contiguous (nn), a thread loads 8 consecutive n of each of its
// k rows and byte-permutes them into k-pairs (quads for s8).
//
// With GT_KWARPS > 1 the warps of a CTA also split its slice of k among them (GT_KWARPS groups of
// warps over the same rows of n, each a contiguous run of batches). Each warp then reads its A
// fragments straight from global memory (through L1, with its batch of B) instead of a shared
// pass, and the groups' sums meet in shared memory at the end, in group order: a CTA can stream
// a long run of k with many loads in flight and no split-k traffic through L2. With GT_A_GROUP
// each group stages its batches of A in a ring of two buffers in shared memory instead (copied
// by the group's warps with cp.async, no registers), and its warps read a chunk's fragments from
// there just before the mma: at m = 32–64 A's fragments would otherwise take the registers that
// keep B's batches deep, and the group's warps along n share one copy.
//
// The grid is (blocks of GT_BN rows of n) × GT_SPLIT_K slices of k, sized by the config space so
// that every SM has several CTAs streaming. With slices, each writes its partial sums to the
// workspace and the CTA that finishes a block last (a counter per block) adds the slices in
// order — the sum does not depend on which was last — and writes C: one launch, no reduce kernel.
//
// Macros (all required):
//   GT_IN        input dtype: 0 f16, 1 bf16, 3 s8
//   GT_OUT       output dtype: 0 f32, 1 f16, 2 bf16, 3 s32
//   GT_A_KCONTIG 1 when A is row-major (k contiguous), 0 when column-major
//   GT_B_KCONTIG 1 when B is column-major (k contiguous: "nt", the weights of a linear layer), 0 ("nn")
//   GT_MT        8-column mma tiles of m (m ≤ 8·GT_MT ≤ 64)
//   GT_WARPS     warps per CTA
//   GT_KWARPS    groups of warps that split the CTA's k (1: none; divides GT_WARPS)
//   GT_A_GROUP   1 (with GT_KWARPS > 1): each group of warps stages its A batches in a shared-
//                memory ring; 0: each warp's A fragments load straight into registers with B's
//   GT_TILES     16-row tiles of n per warp (nt: 1, 2 or 4; nn: 4)
//   GT_BK        k elements of one register batch: a multiple of 16 words (32 of f16/bf16, 64 of s8)
//   GT_STAGES    1: load a batch, then multiply it; 2: the next batch's loads are in flight meanwhile
//   GT_PASS      k elements of A in shared memory at once (a multiple of GT_BK and of 32 words;
//                unused with GT_KWARPS > 1)
//   GT_SPLIT_K   slices of k (1: none)
//   GT_VEC       1: 16-byte loads of B (and of A when k-contiguous); the host chose it because
//                ldb (and lda) keep every row 16-byte aligned, and checks the pointers; the
//                tails of n and k still load element by element. 0: element loads only.
//   GT_PDL       1 (compute capability 9.0 and up, launched with programmatic stream
//                serialization): the kernel lets the next one in the stream launch at once and
//                waits for the previous kernel to finish before it touches memory; with the
//                argument b_early (GEMMTUNE_PDL=weights) its first batch of B loads before that
//                wait. Back to back, one GEMM's ramp-up then overlaps the previous one's tail.

typedef unsigned int gt_u32;

#if GT_IN == 3
typedef signed char gt_in_t;
typedef int gt_acc_t;
#define GT_EPW 4  // elements per 32-bit word
#else
typedef unsigned short gt_in_t;
typedef float gt_acc_t;
#define GT_EPW 2
#endif
#define GT_ESIZE (4 / GT_EPW)

#if GT_OUT == 0
typedef float gt_out_t;
#elif GT_OUT == 3
typedef int gt_out_t;
#else
typedef unsigned short gt_out_t;
#endif

#define GT_THREADS (GT_WARPS * 32)
#define GT_NWARPS (GT_WARPS / GT_KWARPS)   // warps along n
#define GT_BN (GT_NWARPS * 16 * GT_TILES)  // rows of n per CTA
#define GT_BKW (GT_BK / GT_EPW)           // words of k in one batch
#define GT_CHUNKS (GT_BKW / 16)           // 16-word chunks (two mma k-steps) in one batch
#define GT_PASSW (GT_PASS / GT_EPW)
// A's row stride in shared memory, ≡ 16 (mod 32) words: the 16-byte fragment reads of a
// quarter warp (rows g and g+1, words 4c..4c+3) then fall in 32 distinct banks.
#define GT_LDS (GT_PASSW + 16)
#define GT_MPAD (8 * GT_MT)
#define GT_NNV 8                            // nn: consecutive n one thread loads per k row
#define GT_NNW (GT_NNV * GT_ESIZE / 4)      // ... as words (4 of f16/bf16, 2 of s8)

#if GT_BKW % 16 != 0 || GT_PASSW % 32 != 0 || GT_PASS % GT_BK != 0
#error "GT_BK must be whole 16-word chunks and GT_PASS whole batches of 32 words"
#endif
#if GT_KWARPS < 1 || GT_WARPS % GT_KWARPS != 0
#error "GT_KWARPS must divide GT_WARPS"
#endif
#if GT_A_GROUP && GT_KWARPS < 2
#error "GT_A_GROUP stages A for warps that split k: GT_KWARPS > 1"
#endif
#if GT_A_GROUP && GT_NWARPS > 1 && GT_KWARPS > 15
#error "GT_A_GROUP: one named barrier a group, 15 at most"
#endif
#if GT_B_KCONTIG == 0 && GT_TILES != 4
#error "the nn layout takes 64 rows of n per warp (GT_TILES 4)"
#endif

struct alignas(16) gt_u32x4 {
  gt_u32 w[4];
};

// --- The PTX operations. tests/cuda/kernel_emulation.h runs this file on the host (with
// GT_HOST_EMULATION defined) to check the indexing without a GPU; it supplies these same
// operations, modelled on the PTX ISA's fragment layouts. ---
#ifdef GT_HOST_EMULATION
#define GT_KERNEL_LINKAGE
__device__ __forceinline__ void gt_mma(gt_acc_t (&d)[4], gt_u32 a0, gt_u32 a1, gt_u32 a2, gt_u32 a3, gt_u32 b0,
                                       gt_u32 b1) {
  const gt_u32 a[4] = {a0, a1, a2, a3};
  const gt_u32 b[2] = {b0, b1};
  gt_emu::mma<GT_IN>(d, a, b);
}
__device__ __forceinline__ gt_u32x4 gt_load_stream16(const void* p) {
  gt_u32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
__device__ __forceinline__ void gt_load_stream8(gt_u32 (&out)[2], const void* p) { std::memcpy(out, p, sizeof out); }
__device__ __forceinline__ void gt_launch_dependents() {}
__device__ __forceinline__ void gt_wait_for_previous_grid() {}
__device__ __forceinline__ void gt_copy_async16(gt_u32* dst_shared, const void* src) { std::memcpy(dst_shared, src, 16); }
__device__ __forceinline__ void gt_copy_async_commit() {}
__device__ __forceinline__ void gt_copy_async_wait_prior() {}
__device__ __forceinline__ void gt_named_sync(int id, int threads) { gt_emu::named_barrier(id, threads); }
__device__ __forceinline__ gt_acc_t gt_load_partial(const gt_acc_t* p) { return *(const volatile gt_acc_t*)p; }
__device__ __forceinline__ unsigned short gt_f32_to_f16(float v) { return gt_emu::f16_bits(v); }
__device__ __forceinline__ unsigned short gt_f32_to_bf16(float v) { return gt_emu::bf16_bits(v); }
__device__ __forceinline__ float gt_f16_to_f32(unsigned short h) { return gt_emu::f16_value(h); }
#else
#define GT_KERNEL_LINKAGE extern "C"
__device__ __forceinline__ void gt_mma(gt_acc_t (&d)[4], gt_u32 a0, gt_u32 a1, gt_u32 a2, gt_u32 a3, gt_u32 b0,
                                       gt_u32 b1) {
#if GT_IN == 0
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#elif GT_IN == 1
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

// B is read once: kept out of L1 so A's reuse stays there.
__device__ __forceinline__ gt_u32x4 gt_load_stream16(const void* p) {
  gt_u32x4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
      : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
      : "l"(p));
  return v;
}

// A partial sum another CTA wrote: read from L2, past this SM's L1.
__device__ __forceinline__ gt_acc_t gt_load_partial(const gt_acc_t* p) {
  gt_acc_t v;
#if GT_IN == 3
  asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p));
#else
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
#endif
  return v;
}
__device__ __forceinline__ void gt_load_stream8(gt_u32 (&out)[2], const void* p) {
  asm("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];" : "=r"(out[0]), "=r"(out[1]) : "l"(p));
}
// 16 bytes global → shared without registers, cached in L1 (the SM's other warps on the same
// run of k read the same A); complete once a later wait names its group.
__device__ __forceinline__ void gt_copy_async16(gt_u32* dst_shared, const void* src) {
  unsigned dst;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(dst) : "l"(dst_shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void gt_copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Every group of this thread's copies but the newest has landed.
__device__ __forceinline__ void gt_copy_async_wait_prior() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
// The `threads` threads (whole warps) that name barrier `id` (1..15; 0 is __syncthreads') meet.
__device__ __forceinline__ void gt_named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Programmatic dependent launch (no-ops without GT_PDL, or where the launch did not ask for it).
__device__ __forceinline__ void gt_launch_dependents() {
#if GT_PDL
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}
__device__ __forceinline__ void gt_wait_for_previous_grid() {
#if GT_PDL
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
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
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
#endif

__device__ __forceinline__ gt_u32 gt_element_bits(const gt_in_t* p) {
#if GT_IN == 3
  return (gt_u32)(unsigned char)*p;
#else
  return (gt_u32)*p;
#endif
}

// WORDS·EPW elements at p (`stride` elements apart; the first is element `first` of its row),
// packed into words from the low bits up; elements from `limit` on read as zero.
template <int WORDS>
__device__ __forceinline__ void gt_load_elements(gt_u32 (&out)[WORDS], const gt_in_t* p, long long stride,
                                                 long long first, long long limit) {
#pragma unroll
  for (int i = 0; i < WORDS; ++i) out[i] = 0;
#pragma unroll
  for (int e = 0; e < WORDS * GT_EPW; ++e) {
    if (first + e < limit) out[e / GT_EPW] |= gt_element_bits(p + e * stride) << ((e % GT_EPW) * 8 * GT_ESIZE);
  }
}

// 16 bytes of k from one row of B (nt): zeros past n and past k.
__device__ __forceinline__ gt_u32x4 gt_load_b_row(const gt_in_t* b, long long ldb, long long row, long long n,
                                                  long long kk, long long k) {
  gt_u32x4 v = {{0, 0, 0, 0}};
  if (row >= n) return v;
  const gt_in_t* p = b + row * ldb + kk;
  if (GT_VEC && kk + 4 * GT_EPW <= k) return gt_load_stream16(p);
  gt_load_elements<4>(v.w, p, 1, kk, k);
  return v;
}

// GT_NNV consecutive n of one k row of B (nn): zeros past n and past k.
__device__ __forceinline__ void gt_load_b_krow(gt_u32 (&out)[GT_NNW], const gt_in_t* b, long long ldb, long long kr,
                                               long long k, long long col, long long n) {
  if (kr >= k || col >= n) {
#pragma unroll
    for (int i = 0; i < GT_NNW; ++i) out[i] = 0;
    return;
  }
  const gt_in_t* p = b + kr * ldb + col;
  if (GT_VEC && col + GT_NNV <= n) {
#if GT_NNW == 4
    const gt_u32x4 v = gt_load_stream16(p);
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = v.w[i];
#else
    gt_load_stream8(out, p);
#endif
    return;
  }
  gt_load_elements<GT_NNW>(out, p, 1, col, n);
}

// A's k elements [k0, k0 + GT_PASS) as words, rows past m and k past the end as zeros; only the
// groups of four words before `k_used` (the slice's end), which are all the batches read.
__device__ __forceinline__ void gt_load_a_pass(gt_u32* a_s, const gt_in_t* a, long long lda, long long m, long long k,
                                               long long k0, long long k_used) {
  const long long left = (k_used - k0 + 4 * GT_EPW - 1) / (4 * GT_EPW);
  const int groups = left < GT_PASSW / 4 ? (int)left : GT_PASSW / 4;
#if GT_A_KCONTIG
  // Consecutive threads along k, four words each.
  for (int idx = threadIdx.x; idx < GT_MPAD * groups; idx += GT_THREADS) {
    const int row = idx / groups;
    const int w = (idx % groups) * 4;
    const long long kk = k0 + (long long)w * GT_EPW;
    gt_u32x4 v = {{0, 0, 0, 0}};
    if (row < m) {
      const gt_in_t* p = a + row * lda + kk;
      if (GT_VEC && kk + 4 * GT_EPW <= k) {
        v = *(const gt_u32x4*)p;
      } else {
        gt_load_elements<4>(v.w, p, 1, kk, k);
      }
    }
    *(gt_u32x4*)(a_s + row * GT_LDS + w) = v;
  }
#else
  // Consecutive threads along m, the contiguous dim.
  for (int idx = threadIdx.x; idx < GT_MPAD * groups * 4; idx += GT_THREADS) {
    const int row = idx % GT_MPAD;
    const int w = idx / GT_MPAD;
    const long long kk = k0 + (long long)w * GT_EPW;
    gt_u32 word[1] = {0};
    if (row < m) gt_load_elements<1>(word, a + kk * lda + row, lda, kk, k);
    a_s[row * GT_LDS + w] = word[0];
  }
#endif
}

// One batch of a warp's B in registers, as loaded.
struct GtBatch {
#if GT_B_KCONTIG
  gt_u32x4 rows[GT_TILES][GT_CHUNKS][2];  // rows g and g+8 of each tile
#else
  gt_u32 krows[GT_CHUNKS][4 * GT_EPW][GT_NNW];  // k rows 4c·EPW.. of each chunk, 8 n each
#endif
};

// A batch's loads. `interior` (the same for the whole CTA): every row and k of the batch is
// inside B and the loads are 16-byte ones, so none needs a check: one address and one load
// each. Otherwise every load checks its row and k, and loads element by element at the edges.
__device__ __forceinline__ void gt_load_batch(GtBatch& batch, const gt_in_t* b, long long ldb, long long n,
                                              long long k, long long row0, long long kb, int g, int c,
                                              bool interior) {
#if GT_B_KCONTIG
  if (interior) {
    const gt_in_t* base = b + (row0 + g) * ldb + kb + 4 * c * GT_EPW;
#pragma unroll
    for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
      for (int ch = 0; ch < GT_CHUNKS; ++ch) {
        const gt_in_t* p = base + (long long)(t * 16) * ldb + ch * 16 * GT_EPW;
        batch.rows[t][ch][0] = gt_load_stream16(p);
        batch.rows[t][ch][1] = gt_load_stream16(p + 8 * ldb);
      }
    return;
  }
#else
  if (interior) {
    const gt_in_t* base = b + (kb + 4 * c * GT_EPW) * ldb + row0 + 8 * g;
#pragma unroll
    for (int ch = 0; ch < GT_CHUNKS; ++ch)
#pragma unroll
      for (int r = 0; r < 4 * GT_EPW; ++r) {
        const gt_in_t* p = base + (long long)(ch * 16 * GT_EPW + r) * ldb;
#if GT_NNW == 4
        const gt_u32x4 v = gt_load_stream16(p);
#pragma unroll
        for (int i = 0; i < 4; ++i) batch.krows[ch][r][i] = v.w[i];
#else
        gt_load_stream8(batch.krows[ch][r], p);
#endif
      }
    return;
  }
#endif
#pragma unroll
  for (int ch = 0; ch < GT_CHUNKS; ++ch) {
    const long long kk = kb + (long long)(ch * 16 + 4 * c) * GT_EPW;
#if GT_B_KCONTIG
#pragma unroll
    for (int t = 0; t < GT_TILES; ++t) {
      batch.rows[t][ch][0] = gt_load_b_row(b, ldb, row0 + t * 16 + g, n, kk, k);
      batch.rows[t][ch][1] = gt_load_b_row(b, ldb, row0 + t * 16 + g + 8, n, kk, k);
    }
#else
#pragma unroll
    for (int r = 0; r < 4 * GT_EPW; ++r) gt_load_b_krow(batch.krows[ch][r], b, ldb, kk + r, k, row0 + 8 * g, n);
#endif
  }
}

#if GT_B_KCONTIG == 0
// nn: the word of n value j (of the thread's 8) and physical word q (of its 4) of one chunk:
// the k-pair (quad for s8) of that column, gathered from the rows loaded.
__device__ __forceinline__ gt_u32 gt_nn_word(const gt_u32 (&krows)[4 * GT_EPW][GT_NNW], int j, int q) {
#if GT_EPW == 2
  return __byte_perm(krows[2 * q][j / 2], krows[2 * q + 1][j / 2], (j % 2) ? 0x7632 : 0x5410);
#else
  const int sel = (j % 4) | ((4 + j % 4) << 4);
  const gt_u32 lo = __byte_perm(krows[4 * q][j / 4], krows[4 * q + 1][j / 4], sel);
  const gt_u32 hi = __byte_perm(krows[4 * q + 2][j / 4], krows[4 * q + 3][j / 4], sel);
  return __byte_perm(lo, hi, 0x5410);
#endif
}
#endif

// The tensor-core work of chunk `ch` of a batch, with A's fragments of that chunk (row 8j+g of
// A in act[j], at the chunk's words 4c..4c+3: the physical k of B's registers).
__device__ __forceinline__ void gt_chunk_mma(const GtBatch& batch, int ch, const gt_u32x4 (&act)[GT_MT],
                                             gt_acc_t (&acc)[GT_TILES][GT_MT][4]) {
#if GT_B_KCONTIG == 0
  gt_u32 words[GT_NNV][4];
#pragma unroll
  for (int j = 0; j < GT_NNV; ++j)
#pragma unroll
    for (int q = 0; q < 4; ++q) words[j][q] = gt_nn_word(batch.krows[ch], j, q);
#endif
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int t = 0; t < GT_TILES; ++t) {
#if GT_B_KCONTIG
      const gt_u32x4& lo = batch.rows[t][ch][0];
      const gt_u32x4& hi = batch.rows[t][ch][1];
      const gt_u32 a0 = lo.w[2 * s], a1 = hi.w[2 * s], a2 = lo.w[2 * s + 1], a3 = hi.w[2 * s + 1];
#else
      // Tile t's row g is the thread's n value 2t, row g+8 its value 2t+1.
      const gt_u32 a0 = words[2 * t][2 * s], a1 = words[2 * t + 1][2 * s];
      const gt_u32 a2 = words[2 * t][2 * s + 1], a3 = words[2 * t + 1][2 * s + 1];
#endif
#pragma unroll
      for (int j = 0; j < GT_MT; ++j) gt_mma(acc[t][j], a0, a1, a2, a3, act[j].w[2 * s], act[j].w[2 * s + 1]);
    }
  }
}

// The tensor-core work of one batch with A in shared memory, LD words a row; a_s points at the
// batch's first word of row 0 of A.
template <int LD>
__device__ __forceinline__ void gt_batch_mma(const GtBatch& batch, const gt_u32* a_s, int g, int c,
                                             gt_acc_t (&acc)[GT_TILES][GT_MT][4]) {
#pragma unroll
  for (int ch = 0; ch < GT_CHUNKS; ++ch) {
    gt_u32x4 act[GT_MT];
#pragma unroll
    for (int j = 0; j < GT_MT; ++j) act[j] = *(const gt_u32x4*)(a_s + (8 * j + g) * LD + ch * 16 + 4 * c);
    gt_chunk_mma(batch, ch, act, acc);
  }
}

#if GT_KWARPS > 1
// A's fragments of one batch, read straight from global memory (GT_KWARPS > 1): rows past m and
// k past the end as zeros. `k_inside`: the whole batch is inside k (16-byte loads if GT_VEC).
struct GtActs {
  gt_u32x4 act[GT_CHUNKS][GT_MT];
};

__device__ __forceinline__ void gt_load_acts(GtActs& acts, const gt_in_t* a, long long lda, long long m, long long k,
                                             long long kb, int g, int c, bool k_inside) {
#pragma unroll
  for (int ch = 0; ch < GT_CHUNKS; ++ch)
#pragma unroll
    for (int j = 0; j < GT_MT; ++j) {
      const long long row = 8 * j + g;
      const long long kk = kb + (long long)(ch * 16 + 4 * c) * GT_EPW;
      gt_u32x4 v = {{0, 0, 0, 0}};
      if (row < m) {
#if GT_A_KCONTIG
        const gt_in_t* p = a + row * lda + kk;
        if (GT_VEC && k_inside) {
          v = *(const gt_u32x4*)p;
        } else {
          gt_load_elements<4>(v.w, p, 1, kk, k);
        }
#else
        gt_load_elements<4>(v.w, a + kk * lda + row, lda, kk, k);
#endif
      }
      acts.act[ch][j] = v;
    }
}

__device__ __forceinline__ void gt_batch_mma_direct(const GtBatch& batch, const GtActs& acts,
                                                    gt_acc_t (&acc)[GT_TILES][GT_MT][4]) {
#pragma unroll
  for (int ch = 0; ch < GT_CHUNKS; ++ch) gt_chunk_mma(batch, ch, acts.act[ch], acc);
}
#endif

#if GT_A_GROUP
// A group's ring: two buffers of A's rows, GT_LDW words a row. A stride ≡ 16 (mod 32) words (or
// 16 words itself) puts the 16-byte fragment reads of a quarter warp (rows g and g+1, words
// 4c..4c+3) in 32 distinct banks.
#define GT_LDW (GT_BKW % 32 == 0 ? GT_BKW + 16 : GT_BKW)
#define GT_AW_BUFFER (GT_MPAD * GT_LDW)

// The warps of one group meet: its ring changes hands.
__device__ __forceinline__ void gt_group_sync(int group) {
#if GT_NWARPS == 1
  (void)group;
  __syncwarp();
#else
  gt_named_sync(1 + group, GT_NWARPS * 32);
#endif
}

// Rows m..GT_MPAD of both buffers are zeros for good: the copies only touch rows below m. `t`:
// the thread's index within its group.
__device__ __forceinline__ void gt_zero_a_ring(gt_u32* ring, long long m, int t) {
  const int first = m < GT_MPAD ? (int)m : GT_MPAD;
  for (int idx = first * GT_LDW + t; idx < GT_AW_BUFFER; idx += GT_NWARPS * 32) {
    ring[idx] = 0;
    ring[GT_AW_BUFFER + idx] = 0;
  }
}

// The batch at k `kb` of A's rows below m into `buf`, k past the end as zeros, by the group's
// threads (`t` this one's index among them). `k_inside` (the whole batch inside k) with 16-byte
// rows copies asynchronously; the rest loads element by element and stores at once.
__device__ __forceinline__ void gt_stage_a(gt_u32* buf, const gt_in_t* a, long long lda, long long m, long long k,
                                           long long kb, int t, bool k_inside) {
  constexpr int kVectors = GT_BKW / 4;  // of one row
  const int rows = m < GT_MPAD ? (int)m : GT_MPAD;
  for (int idx = t; idx < rows * kVectors; idx += GT_NWARPS * 32) {
    const int row = idx / kVectors;
    const int w = (idx % kVectors) * 4;
    const long long kk = kb + (long long)w * GT_EPW;
    gt_u32* dst = buf + row * GT_LDW + w;
#if GT_A_KCONTIG
    if (GT_VEC && k_inside) {
      gt_copy_async16(dst, a + row * lda + kk);
      continue;
    }
    gt_u32x4 v;
    gt_load_elements<4>(v.w, a + row * lda + kk, 1, kk, k);
#else
    gt_u32x4 v;
    gt_load_elements<4>(v.w, a + kk * lda + row, lda, kk, k);
#endif
    *(gt_u32x4*)dst = v;
  }
}
#endif

__device__ __forceinline__ float gt_out_value(gt_out_t v) {
#if GT_OUT == 1
  return gt_f16_to_f32(v);
#elif GT_OUT == 2
  return __uint_as_float(((gt_u32)v) << 16);  // bf16 is the top half of an f32
#else
  return (float)v;
#endif
}

// C(row, col) = alpha·acc + beta·C(row, col); C is only read when beta != 0 (it may hold NaN).
__device__ __forceinline__ void gt_store_c(gt_out_t* c, long long ldc, long long row, long long col, gt_acc_t acc,
                                           float alpha, float beta) {
  gt_out_t* out = c + row * ldc + col;
#if GT_IN == 3
  // s8 problems have alpha 1 and beta 0 or 1: integer arithmetic, wrapping as s32 does.
  *out = beta != 0.0f ? (gt_out_t)((gt_u32)acc + (gt_u32)*out) : acc;
#else
  float v = alpha * acc;
  if (beta != 0.0f) v += beta * gt_out_value(*out);
#if GT_OUT == 1
  *out = gt_f32_to_f16(v);
#elif GT_OUT == 2
  *out = gt_f32_to_bf16(v);
#else
  *out = v;
#endif
#endif
}

// The n row of accumulator element r (0..3) of tile t: rows g (r < 2) and g+8 of the tile.
__device__ __forceinline__ long long gt_acc_row(long long row0, int t, int r, int g) {
#if GT_B_KCONTIG
  return row0 + t * 16 + g + (r >> 1) * 8;
#else
  return row0 + 8 * g + 2 * t + (r >> 1);
#endif
}

GT_KERNEL_LINKAGE __global__ void __launch_bounds__(GT_THREADS)
    gemmtune_gemm_skinny(const gt_in_t* a, const gt_in_t* b, gt_out_t* c, gt_acc_t* workspace, int* counters,
                         long long m, long long n, long long k, long long lda, long long ldb, long long ldc,
                         float alpha, float beta, int b_early) {
#ifdef GT_HOST_EMULATION
  gt_u32* a_s = gt_emu::shared_words();
#else
  extern __shared__ gt_u32x4 gt_smem[];
  gt_u32* a_s = (gt_u32*)gt_smem;
#endif
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;  // PTX fragment layouts: groupID and thread-in-group
  const int c4 = lane & 3;
  const int warp = threadIdx.x >> 5;
  const int wn = warp % GT_NWARPS;  // the warp's rows of n within the CTA
  const int wk = warp / GT_NWARPS;  // its group's run of k batches (GT_KWARPS > 1)
  const long long row0 = (long long)blockIdx.x * GT_BN + (long long)wn * 16 * GT_TILES;

  // This slice's batches: an even share of the k batches.
  const long long batches = (k + GT_BK - 1) / GT_BK;
  const long long first = batches * blockIdx.y / GT_SPLIT_K;
  const long long last = batches * (blockIdx.y + 1) / GT_SPLIT_K;

  gt_acc_t acc[GT_TILES][GT_MT][4];
#pragma unroll
  for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
    for (int j = 0; j < GT_MT; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[t][j][r] = 0;

  // Whether this CTA's rows of B are all inside it, so that its batches, but the one with k's
  // tail, load without checks.
  const bool rows_inside = GT_VEC && ((long long)blockIdx.x + 1) * GT_BN <= n;
  const long long full_batches = k / GT_BK;  // batches below this one end inside k
  gt_launch_dependents();
  // B's first batch may load while the previous kernel drains only where the caller said no
  // kernel just before writes B (GEMMTUNE_PDL=weights); a second wait returns at once.
  if (!b_early) gt_wait_for_previous_grid();
#if GT_KWARPS == 1
  constexpr int kPassBatches = GT_PASS / GT_BK;
  GtBatch current;
  if (first < last) {
    gt_load_batch(current, b, ldb, n, k, row0, first * GT_BK, g, c4, rows_inside && first < full_batches);
  }
  gt_wait_for_previous_grid();  // A, C, the workspace and the counters may be the previous kernel's
  if (first < last) {
    for (long long i = first; i < last; ++i) {
      const int in_pass = (int)((i - first) % kPassBatches);
      if (in_pass == 0) {
        __syncthreads();  // every warp is done with the previous pass of A
        gt_load_a_pass(a_s, a, lda, m, k, i * GT_BK, last * GT_BK);
        __syncthreads();
      }
#if GT_STAGES >= 2
      GtBatch next;
      if (i + 1 < last) {
        gt_load_batch(next, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
      }
      gt_batch_mma<GT_LDS>(current, a_s + in_pass * GT_BKW, g, c4, acc);
      current = next;
#else
      gt_batch_mma<GT_LDS>(current, a_s + in_pass * GT_BKW, g, c4, acc);
      if (i + 1 < last) {
        gt_load_batch(current, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
      }
#endif
    }
  }
  const bool owner = true;
#else
  // This warp group's run of the slice's batches.
  const long long wfirst = first + (last - first) * wk / GT_KWARPS;
  const long long wlast = first + (last - first) * (wk + 1) / GT_KWARPS;
#if GT_A_GROUP
  // A's batches go through the group's ring: batch i + 1's copies are in flight while batch i's
  // tensor-core work reads the other buffer.
  gt_u32* ring = a_s + (long long)wk * 2 * GT_AW_BUFFER;
  const int t = wn * 32 + lane;  // the thread's index within its group
  gt_zero_a_ring(ring, m, t);
  GtBatch current;
  if (wfirst < wlast) {
    gt_load_batch(current, b, ldb, n, k, row0, wfirst * GT_BK, g, c4, rows_inside && wfirst < full_batches);
  }
  gt_wait_for_previous_grid();  // A, C, the workspace and the counters may be the previous kernel's
  if (wfirst < wlast) gt_stage_a(ring, a, lda, m, k, wfirst * GT_BK, t, wfirst < full_batches);
  gt_copy_async_commit();
  // Every group steps as often as the longest run, idle past its own, so that all meet at their
  // barriers equally often (compute-sanitizer's racecheck reported hazards on the rings when
  // groups of one block ran 2 and 3 batches, and none when the runs were equal).
  const long long steps = (last - first + GT_KWARPS - 1) / GT_KWARPS;
  for (long long step = 0; step < steps; ++step) {
    const long long i = wfirst + step;
    const gt_u32* now = ring + ((i - wfirst) & 1) * GT_AW_BUFFER;
    gt_u32* after = ring + ((i - wfirst + 1) & 1) * GT_AW_BUFFER;
#if GT_STAGES >= 2
    GtBatch next;
    if (i + 1 < wlast) {
      gt_load_batch(next, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
    }
#endif
    if (i + 1 < wlast) gt_stage_a(after, a, lda, m, k, (i + 1) * GT_BK, t, i + 1 < full_batches);
    gt_copy_async_commit();  // an empty group on the last batch keeps the count of groups
    gt_copy_async_wait_prior();
    gt_group_sync(wk);  // every thread's copies of batch i have landed
    if (i < wlast) gt_batch_mma<GT_LDW>(current, now, g, c4, acc);
    gt_group_sync(wk);  // every warp of the group is done with `now` before it is staged again
#if GT_STAGES >= 2
    current = next;
#else
    if (i + 1 < wlast) {
      gt_load_batch(current, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
    }
#endif
  }
  __syncthreads();  // the partial sums below reuse the rings of warps that may still be reading
#else
  // A's fragments come with each batch of B.
  GtBatch current;
  GtActs current_a;
  if (wfirst < wlast) {
    gt_load_batch(current, b, ldb, n, k, row0, wfirst * GT_BK, g, c4, rows_inside && wfirst < full_batches);
  }
  gt_wait_for_previous_grid();  // A, C, the workspace and the counters may be the previous kernel's
  if (wfirst < wlast) {
    gt_load_acts(current_a, a, lda, m, k, wfirst * GT_BK, g, c4, wfirst < full_batches);
    for (long long i = wfirst; i < wlast; ++i) {
#if GT_STAGES >= 2
      GtBatch next;
      GtActs next_a;
      if (i + 1 < wlast) {
        gt_load_batch(next, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
        gt_load_acts(next_a, a, lda, m, k, (i + 1) * GT_BK, g, c4, i + 1 < full_batches);
      }
      gt_batch_mma_direct(current, current_a, acc);
      current = next;
      current_a = next_a;
#else
      gt_batch_mma_direct(current, current_a, acc);
      if (i + 1 < wlast) {
        gt_load_batch(current, b, ldb, n, k, row0, (i + 1) * GT_BK, g, c4, rows_inside && i + 1 < full_batches);
        gt_load_acts(current_a, a, lda, m, k, (i + 1) * GT_BK, g, c4, i + 1 < full_batches);
      }
#endif
    }
  }
#endif
  // The groups' sums meet in shared memory ([group - 1][warp along n][accumulator][lane], so a
  // warp's 32 lanes touch 32 banks); group 0 adds them in group order and goes on alone.
  gt_acc_t* partial = (gt_acc_t*)a_s;
  constexpr int kAccs = GT_TILES * GT_MT * 4;
  if (wk > 0) {
    gt_acc_t* mine = partial + ((long long)((wk - 1) * GT_NWARPS + wn) * kAccs) * 32 + lane;
#pragma unroll
    for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
      for (int j = 0; j < GT_MT; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) mine[((t * GT_MT + j) * 4 + r) * 32] = acc[t][j][r];
  }
  __syncthreads();
  const bool owner = wk == 0;
  if (owner) {
    for (int group = 1; group < GT_KWARPS; ++group) {
      const gt_acc_t* theirs = partial + ((long long)((group - 1) * GT_NWARPS + wn) * kAccs) * 32 + lane;
#pragma unroll
      for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
        for (int j = 0; j < GT_MT; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[t][j][r] += theirs[((t * GT_MT + j) * 4 + r) * 32];
    }
  }
#endif

#if GT_SPLIT_K > 1
  // Partial sums to the workspace ([slice][row of n][8·GT_MT] of the accumulator type), then the
  // last slice of this block adds them in slice order.
  const long long ws_rows = (long long)gridDim.x * GT_BN;
  if (owner) {
#pragma unroll
    for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
      for (int j = 0; j < GT_MT; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const long long row = gt_acc_row(row0, t, 2 * h, g);
          gt_acc_t* p = workspace + ((long long)blockIdx.y * ws_rows + row) * GT_MPAD + 8 * j + 2 * c4;
          p[0] = acc[t][j][2 * h];
          p[1] = acc[t][j][2 * h + 1];
        }
  }
#ifdef GT_HOST_EMULATION
  static int gt_is_last;  // the emulation runs one block at a time
#else
  __shared__ int gt_is_last;
#endif
  __threadfence();  // this slice's partial sums are visible before its count is
  __syncthreads();
  if (threadIdx.x == 0) {
    const int arrived = atomicAdd(&counters[blockIdx.x], 1);
    gt_is_last = arrived == GT_SPLIT_K - 1;
    if (gt_is_last) counters[blockIdx.x] = 0;  // every slice has counted: ready for the next launch
  }
  __syncthreads();
  if (!gt_is_last || !owner) return;
  __threadfence();
#pragma unroll
  for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
    for (int j = 0; j < GT_MT; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long row = gt_acc_row(row0, t, 2 * h, g);
        gt_acc_t sum0 = 0, sum1 = 0;
        for (int s = 0; s < GT_SPLIT_K; ++s) {
          const gt_acc_t* p = workspace + ((long long)s * ws_rows + row) * GT_MPAD + 8 * j + 2 * c4;
          sum0 += gt_load_partial(p);
          sum1 += gt_load_partial(p + 1);
        }
        acc[t][j][2 * h] = sum0;
        acc[t][j][2 * h + 1] = sum1;
      }
#else
  (void)workspace;
  (void)counters;
#endif
  if (!owner) return;

#pragma unroll
  for (int t = 0; t < GT_TILES; ++t)
#pragma unroll
    for (int j = 0; j < GT_MT; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const long long row = gt_acc_row(row0, t, r, g);  // of n: a column of C
        const long long col = 8 * j + 2 * c4 + (r & 1);    // of m: a row of C
        if (row < n && col < m) gt_store_c(c, ldc, col, row, acc[t][j][r], alpha, beta);
      }
}
