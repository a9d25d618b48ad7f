// The CPU GEMM kernel template. Included once per vector ISA by cpu_kernel_<isa>.cc, which
// defines GEMMTUNE_ISA_NAMESPACE, GEMMTUNE_VECTOR_BYTES and GEMMTUNE_FIND_FUNCTION and is
// compiled with that ISA's -m flags. Everything here has internal linkage so that no
// function compiled for one ISA can stand in for another's (see core/scalar_convert.h).
//
// Structure (GotoBLAS): for each nc-wide column block of B and kc-deep slice of k, B's slice
// is packed into NR-wide micro-panels and A's into MR-tall micro-panels, converting layout
// and dtype on the way (f16/bf16 → f32, s8 → s32), so the micro-kernel only ever sees one
// contiguous format. Threads split the (mc-row block × NR panel) grid.
#include <omp.h>

#include <cstdint>
#include <type_traits>

#include "../../core/scalar_convert.h"
#include "cpu_kernels.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

constexpr int kVectorBytes = GEMMTUNE_VECTOR_BYTES;

inline std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// GCC applies vector_size only to non-dependent types, so the two vector types are spelled out.
typedef float VecF32 __attribute__((vector_size(kVectorBytes)));
typedef std::int32_t VecS32 __attribute__((vector_size(kVectorBytes)));

template <DType T> struct Storage;
template <> struct Storage<DType::f32> { using type = float; };
template <> struct Storage<DType::f16> { using type = std::uint16_t; };
template <> struct Storage<DType::bf16> { using type = std::uint16_t; };
template <> struct Storage<DType::s8> { using type = std::int8_t; };
template <> struct Storage<DType::s32> { using type = std::int32_t; };
template <DType T> using StorageT = typename Storage<T>::type;

// Accumulator: exact int32 for s8 products, f32 for the float types.
template <DType In> using AccT = std::conditional_t<In == DType::s8, std::int32_t, float>;

template <DType T, class A>
inline A load(const StorageT<T>* p, std::int64_t i) {
  if constexpr (T == DType::f16) return f16_load(p[i]);
  else if constexpr (T == DType::bf16) return bf16_bits_to_float(p[i]);
  else return static_cast<A>(p[i]);
}

template <DType T, class A>
inline void store(StorageT<T>* p, std::int64_t i, A value) {
  if constexpr (T == DType::f16) p[i] = f16_store(value);
  else if constexpr (T == DType::bf16) p[i] = float_to_bf16_bits(value);
  else p[i] = static_cast<StorageT<T>>(value);
}

// MR × NR register tile, NR = NV vectors. The accumulators live in registers for the whole
// kc loop: that is the point of the tile, and why its size is bounded by the register file.
template <class A, int MR, int NV>
struct MicroKernel {
  static constexpr int kLanes = kVectorBytes / int(sizeof(A));
  static constexpr int kNR = NV * kLanes;
  using V = std::conditional_t<std::is_same_v<A, float>, VecF32, VecS32>;
  static_assert(sizeof(V) == kVectorBytes);

  // pa: kc × MR (column of MR values per k step); pb: kc × NR; tile: MR × NR, row-major.
  static void compute(std::int64_t kc, const A* __restrict pa, const A* __restrict pb, A* __restrict tile) {
    V acc[MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V{};
    }
    for (std::int64_t p = 0; p < kc; ++p) {
      V b[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) b[v] = *reinterpret_cast<const V*>(pb + v * kLanes);
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        const V a = V{} + pa[i];  // broadcast
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] += a * b[v];
      }
      pa += MR;
      pb += kNR;
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) *reinterpret_cast<V*>(tile + i * kNR + v * kLanes) = acc[i][v];
    }
  }
};

// Rows [i0, i0+mb) × depth [p0, p0+kb) of A into MR-row panels (element (p, i) of a panel at
// p·MR + i), zero-padded to a whole panel so the micro-kernel never branches on edges.
template <DType In, class A, int MR>
void pack_a_panel(const CpuGemmParams& P, const StorageT<In>* a, std::int64_t i0, std::int64_t p0,
                  std::int64_t kb, A* out) {
  const std::int64_t rows = min64(MR, P.m - i0);
  if (P.a_row_major) {
    for (std::int64_t i = 0; i < rows; ++i) {
      const StorageT<In>* src = a + (i0 + i) * P.lda + p0;
      for (std::int64_t p = 0; p < kb; ++p) out[p * MR + i] = load<In, A>(src, p);
    }
  } else {
    for (std::int64_t p = 0; p < kb; ++p) {
      const StorageT<In>* src = a + (p0 + p) * P.lda + i0;
      for (std::int64_t i = 0; i < rows; ++i) out[p * MR + i] = load<In, A>(src, i);
    }
  }
  for (std::int64_t i = rows; i < MR; ++i) {
    for (std::int64_t p = 0; p < kb; ++p) out[p * MR + i] = A{};
  }
}

// Depth [p0, p0+kb) × columns [j0, j0+NR) of B into one NR-column panel (element (p, j) at
// p·NR + j), zero-padded beyond column n.
template <DType In, class A, int NR>
void pack_b_panel(const CpuGemmParams& P, const StorageT<In>* b, std::int64_t p0, std::int64_t kb,
                  std::int64_t j0, A* out) {
  const std::int64_t cols = min64(NR, P.n - j0);
  if (P.b_row_major) {
    for (std::int64_t p = 0; p < kb; ++p) {
      const StorageT<In>* src = b + (p0 + p) * P.ldb + j0;
      A* dst = out + p * NR;
      for (std::int64_t j = 0; j < cols; ++j) dst[j] = load<In, A>(src, j);
      for (std::int64_t j = cols; j < NR; ++j) dst[j] = A{};
    }
  } else {
    for (std::int64_t j = 0; j < cols; ++j) {
      const StorageT<In>* src = b + (j0 + j) * P.ldb + p0;
      for (std::int64_t p = 0; p < kb; ++p) out[p * NR + j] = load<In, A>(src, p);
    }
    for (std::int64_t j = cols; j < NR; ++j) {
      for (std::int64_t p = 0; p < kb; ++p) out[p * NR + j] = A{};
    }
  }
}

// dest[i][j] = alpha·tile[i][j] (+ beta·dest[i][j] when read_dest), for the valid part of a tile.
template <class A, int NR>
inline void update_tile(A* dest, std::int64_t ldd, const A* tile, std::int64_t rows, std::int64_t cols,
                        A alpha, A beta, bool read_dest) {
  for (std::int64_t i = 0; i < rows; ++i) {
    A* d = dest + i * ldd;
    const A* t = tile + i * NR;
    if (read_dest) {
      for (std::int64_t j = 0; j < cols; ++j) d[j] = alpha * t[j] + beta * d[j];
    } else {
      for (std::int64_t j = 0; j < cols; ++j) d[j] = alpha * t[j];
    }
  }
}

// k == 0: the product is empty and C = beta·C.
template <DType Out, class A>
void scale_c(const CpuGemmParams& P, StorageT<Out>* c) {
  for (std::int64_t i = 0; i < P.m; ++i) {
    for (std::int64_t j = 0; j < P.n; ++j) {
      const A value = P.beta == 0 ? A{} : A(P.beta) * load<Out, A>(c, i * P.ldc + j);
      store<Out, A>(c, i * P.ldc + j, value);
    }
  }
}

template <DType In, DType Out, int MR, int NV>
void gemm(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  using A = AccT<In>;
  using Micro = MicroKernel<A, MR, NV>;
  constexpr int NR = Micro::kNR;
  // When C's dtype is the accumulator's, tiles update C in place; otherwise (f16/bf16 output)
  // they sum into an f32 buffer over all k slices and C is written once, rounded once.
  constexpr bool kDirect = std::is_same_v<StorageT<Out>, A>;

  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  const auto* b = static_cast<const StorageT<In>*>(b_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.m == 0 || P.n == 0) return;
  if (P.k == 0) return scale_c<Out, A>(P, c);

  const A alpha = A(P.alpha);
  const A beta = A(P.beta);
  const std::int64_t mc = P.block_m, nc = min64(P.block_n, ceil_div(P.n, NR) * NR), kc = P.block_k;
  const std::int64_t a_panels = ceil_div(P.m, MR);
  A* packed_a = static_cast<A*>(thread_scratch(0, std::size_t(a_panels * MR * kc) * sizeof(A)));
  A* packed_b = static_cast<A*>(thread_scratch(1, std::size_t(ceil_div(nc, NR) * NR * kc) * sizeof(A)));
  A* sums = kDirect ? nullptr : static_cast<A*>(thread_scratch(2, std::size_t(P.m * nc) * sizeof(A)));
  const std::int64_t m_blocks = ceil_div(P.m, mc);

#pragma omp parallel num_threads(P.threads) if (P.threads > 1)
  {
    alignas(64) A tile[MR * NR];
    for (std::int64_t jc = 0; jc < P.n; jc += nc) {
      const std::int64_t nb = min64(nc, P.n - jc);
      const std::int64_t b_panels = ceil_div(nb, NR);
      A* dest = kDirect ? reinterpret_cast<A*>(c) + jc : sums;
      const std::int64_t ldd = kDirect ? P.ldc : nb;
      for (std::int64_t pc = 0; pc < P.k; pc += kc) {
        const std::int64_t kb = min64(kc, P.k - pc);
        const bool first = pc == 0;
#pragma omp for schedule(static) nowait
        for (std::int64_t bp = 0; bp < b_panels; ++bp) {
          pack_b_panel<In, A, NR>(P, b, pc, kb, jc + bp * NR, packed_b + bp * NR * kb);
        }
#pragma omp for schedule(static)
        for (std::int64_t ap = 0; ap < a_panels; ++ap) {
          pack_a_panel<In, A, MR>(P, a, ap * MR, pc, kb, packed_a + ap * MR * kb);
        }
#pragma omp for collapse(2) schedule(static)
        for (std::int64_t ib = 0; ib < m_blocks; ++ib) {
          for (std::int64_t bp = 0; bp < b_panels; ++bp) {
            const std::int64_t i_end = min64(P.m, (ib + 1) * mc);
            const std::int64_t cols = min64(NR, nb - bp * NR);
            for (std::int64_t i = ib * mc; i < i_end; i += MR) {
              Micro::compute(kb, packed_a + (i / MR) * MR * kb, packed_b + bp * NR * kb, tile);
              A* d = dest + i * ldd + bp * NR;
              const std::int64_t rows = min64(MR, P.m - i);
              if (!kDirect) {
                update_tile<A, NR>(d, ldd, tile, rows, cols, A(1), A(1), !first);
              } else if (first) {
                update_tile<A, NR>(d, ldd, tile, rows, cols, alpha, beta, P.beta != 0);
              } else {
                update_tile<A, NR>(d, ldd, tile, rows, cols, alpha, A(1), true);
              }
            }
          }
        }
      }
      if constexpr (!kDirect) {
#pragma omp for schedule(static)
        for (std::int64_t i = 0; i < P.m; ++i) {
          for (std::int64_t j = 0; j < nb; ++j) {
            A value = alpha * sums[i * nb + j];
            if (P.beta != 0) value += beta * load<Out, A>(c, i * P.ldc + jc + j);
            store<Out, A>(c, i * P.ldc + jc + j, value);
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Direct kernels: no packing. For small products, and for skinny ones (few rows of A against a
// large B), packing costs as much as the product itself; these read the operands where they lie.

// L contiguous elements as one vector of the accumulator type.
template <DType T, class A>
inline std::conditional_t<std::is_same_v<A, float>, VecF32, VecS32> load_vector(const StorageT<T>* p) {
  using V = std::conditional_t<std::is_same_v<A, float>, VecF32, VecS32>;
  constexpr int kLanes = kVectorBytes / int(sizeof(A));
  V v;
  if constexpr (std::is_same_v<StorageT<T>, A>) {
    __builtin_memcpy(&v, p, sizeof v);
  } else {
    A lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = load<T, A>(p, l);
    __builtin_memcpy(&v, lanes, sizeof v);
  }
  return v;
}

// C(i, j) = alpha·sum + beta·C(i, j), in C's dtype (beta == 0 never reads C).
template <DType Out, class A>
inline void store_result(const CpuGemmParams& P, StorageT<Out>* c, std::int64_t i, std::int64_t j, A sum) {
  const std::int64_t at = i * P.ldc + j;
  A value = A(P.alpha) * sum;
  if (P.beta != 0) value += A(P.beta) * load<Out, A>(c, at);
  store<Out, A>(c, at, value);
}

// Strides of A(i, p) for either layout.
struct AStrides {
  std::int64_t row, depth;
};
inline AStrides a_strides(const CpuGemmParams& P) { return P.a_row_major ? AStrides{P.lda, 1} : AStrides{1, P.lda}; }

// "rows" scheme, B row-major: an MR × NV-vector tile of C in registers over the whole of k,
// B rows loaded as vectors, A broadcast element by element.
template <DType In, DType Out, int MR, int NV>
void direct_rows_tile(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
                      std::int64_t i0, std::int64_t j0) {
  using A = AccT<In>;
  using V = std::conditional_t<std::is_same_v<A, float>, VecF32, VecS32>;
  constexpr int kLanes = kVectorBytes / int(sizeof(A));
  const AStrides sa = a_strides(P);
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = V{};
  }
  for (std::int64_t p = 0; p < P.k; ++p) {
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = load_vector<In, A>(b + p * P.ldb + j0 + v * kLanes);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const V av = V{} + load<In, A>(a, (i0 + r) * sa.row + p * sa.depth);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] += av * bv[v];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) {
      for (int l = 0; l < kLanes; ++l) store_result<Out, A>(P, c, i0 + r, j0 + v * kLanes + l, acc[r][v][l]);
    }
  }
}

// One element the slow way, for the ragged edge of a tile.
template <DType In, DType Out>
void direct_element(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
                    std::int64_t i, std::int64_t j) {
  using A = AccT<In>;
  const AStrides sa = a_strides(P);
  A sum{};
  for (std::int64_t p = 0; p < P.k; ++p) {
    const std::int64_t b_at = P.b_row_major ? p * P.ldb + j : j * P.ldb + p;
    sum += load<In, A>(a, i * sa.row + p * sa.depth) * load<In, A>(b, b_at);
  }
  store_result<Out, A>(P, c, i, j, sum);
}

template <DType In, DType Out, int MR, int NV>
void gemm_direct_rows(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  using A = AccT<In>;
  constexpr int kLanes = kVectorBytes / int(sizeof(A));
  constexpr int NR = NV * kLanes;
  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  const auto* b = static_cast<const StorageT<In>*>(b_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.m == 0 || P.n == 0) return;
  if (P.k == 0) return scale_c<Out, A>(P, c);
  const std::int64_t row_groups = ceil_div(P.m, MR), col_groups = ceil_div(P.n, NR);
#pragma omp parallel for collapse(2) schedule(static) num_threads(P.threads) if (P.threads > 1)
  for (std::int64_t ig = 0; ig < row_groups; ++ig) {
    for (std::int64_t jg = 0; jg < col_groups; ++jg) {
      const std::int64_t i0 = ig * MR, j0 = jg * NR;
      const std::int64_t rows = min64(MR, P.m - i0), cols = min64(NR, P.n - j0);
      if (rows == MR && cols == NR) {
        direct_rows_tile<In, Out, MR, NV>(P, a, b, c, i0, j0);
        continue;
      }
      // Edges: whole vectors one row at a time, then single elements.
      for (std::int64_t i = i0; i < i0 + rows; ++i) {
        std::int64_t j = j0;
        for (; j + kLanes <= j0 + cols; j += kLanes) direct_rows_tile<In, Out, 1, 1>(P, a, b, c, i, j);
        for (; j < j0 + cols; ++j) direct_element<In, Out>(P, a, b, c, i, j);
      }
    }
  }
}

// "dot" scheme, A row-major and B column-major (C = A·Wᵀ with W stored n×k): MR rows of A
// against NC rows of W, dot products along k in vector registers. Each W row is read once per
// MR rows of A, so a skinny product streams W at memory speed.
template <DType In, DType Out, int MR, int NC>
void direct_dot_tile(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
                     std::int64_t i0, std::int64_t j0) {
  using A = AccT<In>;
  using V = std::conditional_t<std::is_same_v<A, float>, VecF32, VecS32>;
  constexpr int kLanes = kVectorBytes / int(sizeof(A));
  V acc[MR][NC];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) acc[r][q] = V{};
  }
  std::int64_t p = 0;
  for (; p + kLanes <= P.k; p += kLanes) {
    V wv[NC];
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) wv[q] = load_vector<In, A>(b + (j0 + q) * P.ldb + p);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const V av = load_vector<In, A>(a + (i0 + r) * P.lda + p);
#pragma GCC unroll 8
      for (int q = 0; q < NC; ++q) acc[r][q] += av * wv[q];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int q = 0; q < NC; ++q) {
      A sum{};
      for (int l = 0; l < kLanes; ++l) sum += acc[r][q][l];
      for (std::int64_t t = p; t < P.k; ++t) {
        sum += load<In, A>(a, (i0 + r) * P.lda + t) * load<In, A>(b, (j0 + q) * P.ldb + t);
      }
      store_result<Out, A>(P, c, i0 + r, j0 + q, sum);
    }
  }
}

template <DType In, DType Out, int MR, int NC>
void gemm_direct_dot(const CpuGemmParams& P, const void* a_ptr, const void* b_ptr, void* c_ptr) {
  using A = AccT<In>;
  const auto* a = static_cast<const StorageT<In>*>(a_ptr);
  const auto* b = static_cast<const StorageT<In>*>(b_ptr);
  auto* c = static_cast<StorageT<Out>*>(c_ptr);
  if (P.m == 0 || P.n == 0) return;
  if (P.k == 0) return scale_c<Out, A>(P, c);
  const std::int64_t row_groups = ceil_div(P.m, MR), col_groups = ceil_div(P.n, NC);
  // Columns outermost: each thread streams its own slice of W.
#pragma omp parallel for collapse(2) schedule(static) num_threads(P.threads) if (P.threads > 1)
  for (std::int64_t jg = 0; jg < col_groups; ++jg) {
    for (std::int64_t ig = 0; ig < row_groups; ++ig) {
      const std::int64_t i0 = ig * MR, j0 = jg * NC;
      const std::int64_t rows = min64(MR, P.m - i0), cols = min64(NC, P.n - j0);
      if (rows == MR && cols == NC) {
        direct_dot_tile<In, Out, MR, NC>(P, a, b, c, i0, j0);
        continue;
      }
      for (std::int64_t i = i0; i < i0 + rows; ++i) {
        for (std::int64_t j = j0; j < j0 + cols; ++j) direct_dot_tile<In, Out, 1, 1>(P, a, b, c, i, j);
      }
    }
  }
}

template <DType In, DType Out>
CpuGemmFn find_tile(int algo, int micro_m, int micro_nv) {
  if (algo == kAlgoPacked) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && micro_nv == nv) return &gemm<In, Out, mr, nv>;
    GEMMTUNE_CPU_MICRO_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectRows) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && micro_nv == nv) return &gemm_direct_rows<In, Out, mr, nv>;
    GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectDot) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nc) \
  if (micro_m == mr && micro_nv == nc) return &gemm_direct_dot<In, Out, mr, nc>;
    GEMMTUNE_CPU_DOT_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  }
  return nullptr;
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE

namespace gemmtune::cpu {

CpuGemmFn GEMMTUNE_FIND_FUNCTION(int algo, DType in, DType out, int micro_m, int micro_nv) {
  using namespace GEMMTUNE_ISA_NAMESPACE;
  if (in == DType::f32 && out == DType::f32) return find_tile<DType::f32, DType::f32>(algo, micro_m, micro_nv);
  if (in == DType::f16 && out == DType::f16) return find_tile<DType::f16, DType::f16>(algo, micro_m, micro_nv);
  if (in == DType::f16 && out == DType::f32) return find_tile<DType::f16, DType::f32>(algo, micro_m, micro_nv);
  if (in == DType::bf16 && out == DType::bf16) return find_tile<DType::bf16, DType::bf16>(algo, micro_m, micro_nv);
  if (in == DType::bf16 && out == DType::f32) return find_tile<DType::bf16, DType::f32>(algo, micro_m, micro_nv);
  if (in == DType::s8 && out == DType::s32) return find_tile<DType::s8, DType::s32>(algo, micro_m, micro_nv);
  return nullptr;
}

}  // namespace gemmtune::cpu
