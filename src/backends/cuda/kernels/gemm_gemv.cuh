// gemmtune's GEMV-style kernel (backend "skinny", config field kernel=gemv), compiled at run time by
// NVRTC (one instantiation per GV_* macros, entry gemmtune_gemm_gemv below) and, templated, by the
// probe bench/probes/skinny/gemv_probe.cu and the host emulation test. For decode shapes (issue 30): C = alpha·A·Bᵀ + beta·C with A m×k and B
// n×k both k-contiguous ("nt", B the weights of a linear layer), m ≤ 16. The whole cost is one
// pass over B, so the kernel is built after the read-floor probe's access pattern
// (bench/probes/memory/read_once.cuh) rather than a tensor-core tile:
//
// - A warp owns R rows of B (a "group") and one slice of k. All 32 lanes read the same row:
//   lane l takes the 16 bytes at element 8·l (16·l for s8) of each 256-element (512 for s8)
//   "step", so one load instruction is 512 contiguous bytes of one row. A batch is U steps of
//   the R rows, R·U independent 16-byte loads per lane in flight (ld.global.nc, no L1
//   allocation); with STAGES 2 the next batch is loaded before the current one is multiplied.
//   No barrier and no shared memory inside the stream.
// - CUDA-core FMAs in f32 (dp4a for s8): per element of B, M FMAs. A is used as stored; each
//   16-byte vector of A (one of M rows) and of B (one of R rows) is converted to f32 once per
//   step and reused R (resp. M) times.
// - A comes either from shared memory (A_SHARED: the CTA copies its k slice of A once, with
//   cp.async, after the wait for the previous grid; M·K/split elements) or straight from global
//   memory through L1 (the same 16 bytes are read by every warp of the SM on the same slice).
//   Shared memory read per byte of B: M/R bytes (one 16-byte A vector per row of A per R B
//   vectors), e.g. 2 at M 8, R 4: 23 B/clk per SM at 3 TB/s, of the 128 an SM has.
// - Each lane holds R·M partial sums of its k positions. After its slice the warp reduces them
//   across lanes with a reduce-scatter (log2 steps that halve the values each lane keeps, about
//   4 instructions per value in all instead of 10), so lane l ends with value l's sum.
// - The grid is (CTAs along n) × (split slices of k). Warps take groups gridDim.x·warps apart,
//   so a grid of as many CTAs as fit at once streams everything in one wave. With slices, each
//   warp writes its partial sums to the workspace and the warp that finishes a group last (a
//   counter per group) adds the slices in slice order — the result does not depend on which one
//   was last — and writes C: one launch. Counters are left at zero for the next launch.
// - Programmatic dependent launch: the CTA lets the next grid launch at once and loads its first
//   batch of B (which no kernel writes) before it waits for the previous grid; A, C, the
//   workspace and the counters are touched only after the wait. Without the launch attribute
//   the two instructions do nothing.
//
// Template parameters: IN (0 f16, 1 bf16, 3 s8, as GT_IN), OUT (0 f32, 1 f16, 2 bf16, 3 s32, as
// GT_OUT), M (rows of A computed; the run-time m ≤ M), R (rows of B per warp), U (steps per
// batch), STAGES (1 or 2 batches in flight), A_SHARED. Run time: the warps per CTA (blockDim.x
// / 32), the split (gridDim.y) and the CTAs along n (gridDim.x).
//
// Requires 16-byte aligned A and B and leading dimensions that keep every row 16-byte aligned
// (lda, ldb multiples of 8 elements, 16 for s8); k itself may be anything (the vector that
// crosses k loads element by element). Shared memory (A_SHARED): M × (steps of the largest
// slice) × 512 bytes. Workspace (split > 1): split × groups × pow2(R·M) accumulators; counters:
// groups ints, zero before the first launch. It includes no header (NVRTC).
//
// NVRTC entry (GV_ENTRY defined): extern "C" gemmtune_gemm_gemv, one instantiation from the macros
//   GV_IN, GV_OUT   dtype codes as GT_IN and GT_OUT
//   GV_M            rows of A computed (1, 2, 4 or 8; the run-time m ≤ GV_M)
//   GV_R, GV_U      rows of B per warp, steps per batch
//   GV_STAGES       1 or 2
//   GV_A_SHARED     1: A's slice in shared memory; 0: A through L1
//   GV_THREADS      threads per CTA (the launch bound; the kernel itself reads blockDim)

typedef unsigned int gv_u32;

struct alignas(16) gv_u32x4 {
  gv_u32 w[4];
};

// --- The input and output types. ---
template <int IN>
struct GvIn {  // f16 (0) and bf16 (1)
  typedef unsigned short elem_t;
  typedef float acc_t;
  static constexpr int kPerVector = 8;  // elements in 16 bytes
};
template <>
struct GvIn<3> {
  typedef signed char elem_t;
  typedef int acc_t;
  static constexpr int kPerVector = 16;
};

template <int OUT>
struct GvOut {  // f16 (1) and bf16 (2)
  typedef unsigned short type;
};
template <>
struct GvOut<0> {
  typedef float type;
};
template <>
struct GvOut<3> {
  typedef int type;
};

__host__ __device__ constexpr int gv_log2(int v) { return v <= 1 ? 0 : 1 + gv_log2(v / 2); }
__host__ __device__ constexpr int gv_pow2_ceil(int v) { return v <= 1 ? 1 : 2 * gv_pow2_ceil((v + 1) / 2); }

// --- The PTX operations. A host emulation (GV_HOST_EMULATION, one std::thread per CUDA thread)
// supplies these same operations, and the warp and block primitives, through gv_emu. ---
#ifdef GV_HOST_EMULATION
template <bool STREAM>
__device__ __forceinline__ gv_u32x4 gv_load16(const void* p) {
  gv_u32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
__device__ __forceinline__ void gv_copy_async16(void* dst_shared, const void* src, int src_bytes) {
  std::memset(dst_shared, 0, 16);
  std::memcpy(dst_shared, src, src_bytes);
}
__device__ __forceinline__ void gv_copy_async_wait_all() {}
template <class T>
__device__ __forceinline__ T gv_load_partial(const T* p) {
  return *(const volatile T*)p;
}
__device__ __forceinline__ void gv_launch_dependents() {}
__device__ __forceinline__ void gv_wait_for_previous_grid() {}
__device__ __forceinline__ int gv_dp4a(gv_u32 a, gv_u32 b, int c) {
  for (int i = 0; i < 4; ++i) c += int((signed char)(a >> (8 * i))) * int((signed char)(b >> (8 * i)));
  return c;
}
__device__ __forceinline__ float gv_f16_to_f32(unsigned short h) { return gv_emu::f16_value(h); }
__device__ __forceinline__ unsigned short gv_f32_to_f16(float v) { return gv_emu::f16_bits(v); }
__device__ __forceinline__ unsigned short gv_f32_to_bf16(float v) { return gv_emu::bf16_bits(v); }
__device__ __forceinline__ gv_u32x4* gv_shared_vectors() { return (gv_u32x4*)gv_emu::shared_bytes(); }
#else
// 16 bytes from global memory. STREAM (B, read once): kept out of L1, so A's lines stay there;
// otherwise (A, read by every warp on the same slice) kept in L1.
template <bool STREAM>
__device__ __forceinline__ gv_u32x4 gv_load16(const void* p) {
  gv_u32x4 v;
  if constexpr (STREAM) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
        : "l"(p));
  } else {
    asm("ld.global.nc.L1::evict_last.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
        : "l"(p));
  }
  return v;
}
// 16 bytes global → shared without registers; bytes past `src_bytes` are filled with zeros.
__device__ __forceinline__ void gv_copy_async16(void* dst_shared, const void* src, int src_bytes) {
  unsigned dst;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(dst) : "l"(dst_shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void gv_copy_async_wait_all() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
}
// A partial sum another warp wrote: read from L2, past this SM's L1.
__device__ __forceinline__ float gv_load_partial(const float* p) {
  float v;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ int gv_load_partial(const int* p) {
  int v;
  asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
// griddepcontrol exists from sm_90; before it a kernel is never launched overlapped, so nothing to wait for.
__device__ __forceinline__ void gv_launch_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}
__device__ __forceinline__ void gv_wait_for_previous_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ int gv_dp4a(gv_u32 a, gv_u32 b, int c) {
  int d;
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ float gv_f16_to_f32(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short gv_f32_to_f16(float v) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}
__device__ __forceinline__ unsigned short gv_f32_to_bf16(float v) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}

// The CTA's dynamic shared memory.
__device__ __forceinline__ gv_u32x4* gv_shared_vectors() {
  extern __shared__ gv_u32x4 gv_smem[];
  return gv_smem;
}
#endif

// The 8 f32 values of a 16-byte vector of f16 or bf16, element 2j in the low half of word j.
template <int IN>
__device__ __forceinline__ void gv_unpack8(const gv_u32x4& v, float (&f)[8]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (IN == 1) {  // bf16 is the top half of an f32
      f[2 * j] = __uint_as_float(v.w[j] << 16);
      f[2 * j + 1] = __uint_as_float(v.w[j] & 0xffff0000u);
    } else {
      f[2 * j] = gv_f16_to_f32((unsigned short)(v.w[j] & 0xffffu));
      f[2 * j + 1] = gv_f16_to_f32((unsigned short)(v.w[j] >> 16));
    }
  }
}

// The 16 bytes at p, the lane's vector of one row starting at element `kk` of the row: a
// 16-byte load when the vector ends inside k, else element by element with zeros past k.
template <int IN, bool STREAM>
__device__ __forceinline__ gv_u32x4 gv_load_vector_checked(const typename GvIn<IN>::elem_t* p, long long kk,
                                                           long long k) {
  constexpr int kEpv = GvIn<IN>::kPerVector;
  constexpr int kPerWord = kEpv / 4;
  constexpr int kBits = 32 / kPerWord;
  if (kk + kEpv <= k) return gv_load16<STREAM>(p);
  gv_u32x4 v = {{0, 0, 0, 0}};
#pragma unroll
  for (int e = 0; e < kEpv; ++e) {
    if (kk + e < k) {
      const gv_u32 bits = kBits == 16 ? (gv_u32)(unsigned short)p[e] : (gv_u32)(unsigned char)p[e];
      v.w[e / kPerWord] |= bits << ((e % kPerWord) * kBits);
    }
  }
  return v;
}

// --- Where a warp reads. ---
// The lane's first vector in each of the group's R rows; rows past n repeat row n-1 (loaded,
// never stored), so the stream needs no row test.
template <int IN, int R>
struct GvRows {
  const typename GvIn<IN>::elem_t* p[R];
};
template <int IN, int R>
__device__ __forceinline__ GvRows<IN, R> gv_group_rows(const typename GvIn<IN>::elem_t* b, long long ldb,
                                                       long long n, long long group, int lane) {
  GvRows<IN, R> rows;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const long long row = group * R + r < n ? group * R + r : n - 1;
    rows.p[r] = b + row * ldb + lane * GvIn<IN>::kPerVector;
  }
  return rows;
}

// One batch of a warp's B in registers: U steps of R rows, one 16-byte vector each.
template <int R, int U>
struct GvBatch {
  gv_u32x4 v[U][R];
};

// The slice of k one warp streams, in steps, and how far the steps are whole.
struct GvSlice {
  int begin, end;  // steps [begin, end)
  int full_end;    // steps below this one end inside k: no checks
};

// The loads of the batch at step s. `interior`: every step of the batch is whole, so the loads
// are unchecked 16-byte ones; otherwise steps past the slice read zeros and the one that
// crosses k is checked lane by lane.
template <int IN, int R, int U>
__device__ __forceinline__ void gv_load_batch(GvBatch<R, U>& batch, const GvRows<IN, R>& rows, int s,
                                              const GvSlice& slice, long long k, int lane) {
  constexpr int kEps = 32 * GvIn<IN>::kPerVector;
  if (s + U <= slice.full_end) {
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int r = 0; r < R; ++r) batch.v[u][r] = gv_load16<true>(rows.p[r] + (long long)(s + u) * kEps);
    return;
  }
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const long long kk = (long long)(s + u) * kEps + lane * GvIn<IN>::kPerVector;
      batch.v[u][r] = s + u < slice.end ? gv_load_vector_checked<IN, true>(rows.p[r] + (long long)(s + u) * kEps, kk, k)
                                        : gv_u32x4{{0, 0, 0, 0}};
    }
}

// --- Where A comes from. ---
// A_SHARED: the CTA's slice as stored, row i at i·steps·512 bytes; the lane's vector of step s
// is 16 bytes at (s - begin)·512 + 16·lane: a warp reads 512 contiguous bytes, no bank conflict.
template <int IN, bool A_SHARED>
struct GvA {
  const gv_u32x4* lane_base;  // row 0, the slice's first step, this lane
  int row_vectors;            // 16-byte vectors per row: steps · 32
  int first_step;
  __device__ __forceinline__ gv_u32x4 load(int i, int s, bool /*checked*/, long long /*k*/) const {
    return lane_base[i * row_vectors + (s - first_step) * 32];
  }
};
// From global memory through L1; rows past m repeat row m-1 (computed, never stored).
template <int IN>
struct GvA<IN, false> {
  const typename GvIn<IN>::elem_t* lane_base;  // row 0, element 0 of this lane's vectors
  long long lda, m;
  int lane;
  __device__ __forceinline__ gv_u32x4 load(int i, int s, bool checked, long long k) const {
    constexpr int kEps = 32 * GvIn<IN>::kPerVector;
    const typename GvIn<IN>::elem_t* p = lane_base + (i < m ? i : m - 1) * lda + (long long)s * kEps;
    if (!checked) return gv_load16<false>(p);
    return gv_load_vector_checked<IN, false>(p, (long long)s * kEps + lane * GvIn<IN>::kPerVector, k);
  }
};

// Copies the CTA's slice of A (M rows, steps [begin, end)) into shared memory, zeros past m
// and past k, and waits for every thread's copies. All copies are in flight at once.
template <int IN, int M>
__device__ __forceinline__ void gv_stage_a(gv_u32x4* a_s, const typename GvIn<IN>::elem_t* a, long long lda,
                                           long long m, long long k, const GvSlice& slice) {
  constexpr int kEpv = GvIn<IN>::kPerVector;
  constexpr int kEsize = 16 / kEpv;
  const int row_vectors = (slice.end - slice.begin) * 32;
  for (int v = threadIdx.x; v < M * row_vectors; v += blockDim.x) {
    const int i = v / row_vectors;
    const long long kk = (long long)slice.begin * 32 * kEpv + (long long)(v - i * row_vectors) * kEpv;
    const long long left = i < m ? k - kk : 0;
    const int bytes = left <= 0 ? 0 : left >= kEpv ? 16 : (int)left * kEsize;
    if (bytes == 16) {
      gv_copy_async16(a_s + v, a + i * lda + kk, 16);
    } else {
      // The vector that crosses k goes element by element (zeros past k), and one past m or k
      // reads nothing: a partial cp.async reads only its source bytes, but compute-sanitizer
      // counts all 16 as read, past A's end.
      a_s[v] = bytes ? gv_load_vector_checked<IN, false>(a + i * lda + kk, kk, k) : gv_u32x4{{0, 0, 0, 0}};
    }
  }
  gv_copy_async_wait_all();
  __syncthreads();
}

// --- The arithmetic of one step: acc[r][i] += Σ over the lane's vector of A(i)·B(r). ---
template <int IN, int M, int R, class ASource>
__device__ __forceinline__ void gv_step_fma(const gv_u32x4 (&b)[R], const ASource& a_src, int s, bool checked,
                                            long long k, typename GvIn<IN>::acc_t (&acc)[R][M]) {
  if constexpr (IN == 3) {
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const gv_u32x4 av = a_src.load(i, s, checked, k);
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int w = 0; w < 4; ++w) acc[r][i] = gv_dp4a(av.w[w], b[r].w[w], acc[r][i]);
    }
  } else if constexpr (M <= R) {
    // Fewer rows of A than of B: A's vectors are converted and held, B's one at a time.
    float af[M][8];
#pragma unroll
    for (int i = 0; i < M; ++i) gv_unpack8<IN>(a_src.load(i, s, checked, k), af[i]);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float bf[8];
      gv_unpack8<IN>(b[r], bf);
#pragma unroll
      for (int i = 0; i < M; ++i)
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[r][i] = __fmaf_rn(af[i][e], bf[e], acc[r][i]);
    }
  } else {
    float bf[R][8];
#pragma unroll
    for (int r = 0; r < R; ++r) gv_unpack8<IN>(b[r], bf[r]);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      float af[8];
      gv_unpack8<IN>(a_src.load(i, s, checked, k), af);
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[r][i] = __fmaf_rn(af[e], bf[r][e], acc[r][i]);
    }
  }
}

// The batch at step s; with CHECKED, steps past the slice are skipped (the same on all lanes).
template <int IN, int M, int R, int U, bool CHECKED, class ASource>
__device__ __forceinline__ void gv_batch_fma(const GvBatch<R, U>& batch, const ASource& a_src, int s,
                                             const GvSlice& slice, long long k,
                                             typename GvIn<IN>::acc_t (&acc)[R][M]) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (CHECKED && s + u >= slice.end) break;
    gv_step_fma<IN, M, R>(batch.v[u], a_src, s + u, CHECKED, k, acc);
  }
}

// --- The end of a group. ---
// Sums VP values over the warp's lanes. Each level exchanges half of the values a lane still
// holds with the lane `offset` away and keeps the other half, summed: after log2(VP) levels (5
// at most) lane l holds value l·VP/32 + j, j < VP/32; with fewer than 32 values, value
// l >> (5 - log2 VP), and the lanes that share it finish with plain butterflies.
// (A template per level: the halves' indices must be constants, or the array goes to memory.)
template <int VP, int LEVEL, class T>
__device__ __forceinline__ void gv_reduce_level(T (&v)[VP], int lane) {
  constexpr int kLevels = gv_log2(VP) < 5 ? gv_log2(VP) : 5;
  if constexpr (LEVEL < kLevels) {
    constexpr int kOffset = 16 >> LEVEL;
    constexpr int kHalf = VP >> (LEVEL + 1);
    const bool upper = (lane & kOffset) != 0;
#pragma unroll
    for (int j = 0; j < kHalf; ++j) {
      const T send = upper ? v[j] : v[j + kHalf];
      const T keep = upper ? v[j + kHalf] : v[j];
      v[j] = keep + __shfl_xor_sync(0xffffffffu, send, kOffset);
    }
    gv_reduce_level<VP, LEVEL + 1>(v, lane);
  } else {
#pragma unroll
    for (int offset = 16 >> kLevels; offset > 0; offset >>= 1) v[0] += __shfl_xor_sync(0xffffffffu, v[0], offset);
  }
}
template <int VP, class T>
__device__ __forceinline__ void gv_reduce_scatter(T (&v)[VP], int lane) {
  gv_reduce_level<VP, 0>(v, lane);
}

// C(i, col) = alpha·acc + beta·C(i, col); C is only read when beta != 0 (it may hold NaN).
template <int IN, int OUT>
__device__ __forceinline__ void gv_store_c(typename GvOut<OUT>::type* c, long long ldc, long long i, long long col,
                                           typename GvIn<IN>::acc_t acc, float alpha, float beta) {
  typename GvOut<OUT>::type* out = c + i * ldc + col;
  if constexpr (IN == 3) {
    // s8 problems have alpha 1 and beta 0 or 1: integer arithmetic, wrapping as s32 does.
    *out = beta != 0.0f ? (int)((gv_u32)acc + (gv_u32)*out) : acc;
  } else {
    float v = alpha * acc;
    if constexpr (OUT == 0) {
      if (beta != 0.0f) v += beta * *out;
      *out = v;
    } else if constexpr (OUT == 1) {
      if (beta != 0.0f) v += beta * gv_f16_to_f32(*out);
      *out = gv_f32_to_f16(v);
    } else {
      if (beta != 0.0f) v += beta * __uint_as_float((gv_u32)*out << 16);
      *out = gv_f32_to_bf16(v);
    }
  }
}

// What the kernel writes besides C, and the problem's scalars.
template <int IN, int OUT>
struct GvOutput {
  typename GvOut<OUT>::type* c;
  typename GvIn<IN>::acc_t* workspace;
  int* counters;
  long long m, n, ldc, groups;
  float alpha, beta;
};

// Reduces the group's partial sums over the warp, then over the slices (split > 1: the warp
// that counts last adds every slice's, in slice order), and writes C.
template <int IN, int OUT, int M, int R>
__device__ __forceinline__ void gv_finish_group(typename GvIn<IN>::acc_t (&acc)[R][M], long long group,
                                                const GvOutput<IN, OUT>& out, int lane) {
  typedef typename GvIn<IN>::acc_t acc_t;
  constexpr int kValues = R * M;
  constexpr int kVP = gv_pow2_ceil(kValues);
  constexpr int kHeld = kVP >= 32 ? kVP / 32 : 1;
  acc_t v[kVP];
#pragma unroll
  for (int j = 0; j < kVP; ++j) v[j] = j < kValues ? acc[j / M][j % M] : 0;
  gv_reduce_scatter<kVP>(v, lane);
  const bool owner = kVP >= 32 || (lane & (32 / kVP - 1)) == 0;
  const int first_index = kVP >= 32 ? lane * kHeld : lane >> (5 - gv_log2(kVP));
  if (gridDim.y > 1) {
    const long long slices = gridDim.y;
#pragma unroll
    for (int j = 0; j < kHeld; ++j) {
      if (owner && first_index + j < kValues) {
        out.workspace[((long long)blockIdx.y * out.groups + group) * kVP + first_index + j] = v[j];
      }
    }
    __threadfence();  // this slice's partial sums are visible before its count is
    __syncwarp();
    int last = 0;
    if (lane == 0) {
      last = atomicAdd(&out.counters[group], 1) == slices - 1;
      if (last) out.counters[group] = 0;  // every slice has counted: ready for the next launch
    }
    if (!__shfl_sync(0xffffffffu, last, 0)) return;
    __threadfence();
#pragma unroll
    for (int j = 0; j < kHeld; ++j) {
      if (owner && first_index + j < kValues) {
        acc_t sum = 0;
        for (long long s = 0; s < slices; ++s) {
          sum += gv_load_partial(out.workspace + (s * out.groups + group) * kVP + first_index + j);
        }
        v[j] = sum;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const int index = first_index + j;
    const int i = index % M;                       // row of A: a row of C
    const long long col = group * R + index / M;  // row of B: a column of C
    if (owner && index < kValues && i < out.m && col < out.n) {
      gv_store_c<IN, OUT>(out.c, out.ldc, i, col, v[j], out.alpha, out.beta);
    }
  }
}

// The kernel body. Grid: (CTAs along n, slices of k); block: a multiple of 32 threads.
template <int IN, int OUT, int M, int R, int U, int STAGES, bool A_SHARED>
__device__ __forceinline__ void gv_gemv(const typename GvIn<IN>::elem_t* a, const typename GvIn<IN>::elem_t* b,
                                        typename GvOut<OUT>::type* c, typename GvIn<IN>::acc_t* workspace,
                                        int* counters, long long m, long long n, long long k, long long lda,
                                        long long ldb, long long ldc, float alpha, float beta, int b_early) {
  static_assert(STAGES == 1 || STAGES == 2, "one or two batches in flight");
  typedef typename GvIn<IN>::acc_t acc_t;
  constexpr int kEps = 32 * GvIn<IN>::kPerVector;
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;

  // This CTA's slice: an even share of the steps.
  const int steps = (int)((k + kEps - 1) / kEps);
  GvSlice slice;
  slice.begin = (int)((long long)steps * blockIdx.y / gridDim.y);
  slice.end = (int)((long long)steps * (blockIdx.y + 1) / gridDim.y);
  slice.full_end = (int)(k / kEps) < slice.end ? (int)(k / kEps) : slice.end;

  const GvOutput<IN, OUT> out = {c, workspace, counters, m, n, ldc, (n + R - 1) / R, alpha, beta};
  const long long first_group = (long long)blockIdx.x * warps + (threadIdx.x >> 5);
  const long long group_stride = (long long)gridDim.x * warps;

  gv_launch_dependents();
  // B's first batch may load while the previous kernel drains only where the caller said no
  // kernel just before writes B (GEMMTUNE_PDL=weights); a second wait returns at once.
  if (!b_early) gv_wait_for_previous_grid();
  GvBatch<R, U> current;
  if (first_group < out.groups && slice.begin < slice.end) {
    gv_load_batch<IN>(current, gv_group_rows<IN, R>(b, ldb, n, first_group, lane), slice.begin, slice, k, lane);
  }
  gv_wait_for_previous_grid();  // A, C, the workspace and the counters may be the previous kernel's

  GvA<IN, A_SHARED> a_src;
  if constexpr (A_SHARED) {
    gv_u32x4* a_s = gv_shared_vectors();
    gv_stage_a<IN, M>(a_s, a, lda, m, k, slice);
    a_src = {a_s + lane, (slice.end - slice.begin) * 32, slice.begin};
  } else {
    a_src = {a + lane * GvIn<IN>::kPerVector, lda, m, lane};
  }

  for (long long group = first_group; group < out.groups; group += group_stride) {
    const GvRows<IN, R> rows = gv_group_rows<IN, R>(b, ldb, n, group, lane);
    if (group != first_group && slice.begin < slice.end) gv_load_batch<IN>(current, rows, slice.begin, slice, k, lane);
    acc_t acc[R][M];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int i = 0; i < M; ++i) acc[r][i] = 0;

    for (int s = slice.begin; s < slice.end; s += U) {
      const bool more = s + U < slice.end;
      GvBatch<R, U> next;
      if (STAGES == 2 && more) gv_load_batch<IN>(next, rows, s + U, slice, k, lane);
      if (s + U <= slice.full_end) {
        gv_batch_fma<IN, M, R, U, false>(current, a_src, s, slice, k, acc);
      } else {
        gv_batch_fma<IN, M, R, U, true>(current, a_src, s, slice, k, acc);
      }
      if (more) {
        if (STAGES == 2) {
          current = next;
        } else {
          gv_load_batch<IN>(current, rows, s + U, slice, k, lane);
        }
      }
    }
    gv_finish_group<IN, OUT, M, R>(acc, group, out, lane);
  }
}

#ifdef GV_ENTRY
// The backend's instantiation. One CTA an SM at the least: ptxas may take all 255 registers where
// a variant needs them (the probe found it otherwise capped some at 64 registers and spilled).
extern "C" __global__ void __launch_bounds__(GV_THREADS, 1)
    gemmtune_gemm_gemv(const GvIn<GV_IN>::elem_t* a, const GvIn<GV_IN>::elem_t* b, GvOut<GV_OUT>::type* c,
                       GvIn<GV_IN>::acc_t* workspace, int* counters, long long m, long long n, long long k,
                       long long lda, long long ldb, long long ldc, float alpha, float beta, int b_early) {
  gv_gemv<GV_IN, GV_OUT, GV_M, GV_R, GV_U, GV_STAGES, GV_A_SHARED != 0>(a, b, c, workspace, counters, m, n, k, lda,
                                                                         ldb, ldc, alpha, beta, b_early);
}
#endif
