// The kernels of one vector ISA and their lookup. Included once per ISA level by
// cpu_kernel_<isa>.cc, which defines GEMMTUNE_ISA_NAMESPACE, GEMMTUNE_VECTOR_BYTES,
// GEMMTUNE_ISA_LEVEL and GEMMTUNE_FIND_FUNCTION and is compiled with that ISA's -m flags.
// Everything here has internal linkage so that no function compiled for one ISA can stand in
// for another's (see core/scalar_convert.h).
//
// GEMMTUNE_ISA_DTYPES(X) lists the (input, output) dtypes the level compiles: levels 3 and 4
// compile only what their dot-product instructions change, and fall back to level 2 for the
// rest (find_cpu_kernel).
#include "cpu_axpy_gemm.h"
#include "cpu_columns_gemm.h"
#include "cpu_direct_gemm.h"
#include "cpu_packed_gemm.h"
#include "cpu_pairs_gemm.h"
#include "cpu_rows_dots_gemm.h"
#include "cpu_stream_gemm.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

template <DType In, DType Out>
CpuGemmFn find_tile(int algo, int micro_m, int columns) {
  if (algo == kAlgoPacked) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && columns == nv) return &PackedGemm<In, Out, mr, nv>::run;
    GEMMTUNE_CPU_MICRO_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectRows) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && columns == nv) return &gemm_direct_rows<In, Out, mr, nv>;
    GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_CASE)
    if constexpr (In == DType::f32 && Out == DType::f32) {
      GEMMTUNE_CPU_DIRECT_F32_TILES(GEMMTUNE_CPU_TILE_CASE)
    }
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectDot) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nc) \
  if (micro_m == mr && columns == nc) return &gemm_direct_dot<In, Out, mr, nc>;
    GEMMTUNE_CPU_DOT_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectTile) {
    if constexpr (In == DType::f32 && Out == DType::f32) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && columns == nv) return &gemm_direct_tile<In, Out, mr, nv>;
      GEMMTUNE_CPU_TILE_SHAPES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
    }
  } else if (algo == kAlgoDirectStream) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && columns == nv) return &gemm_direct_stream<In, Out, mr, nv>;
    GEMMTUNE_CPU_STREAM_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectAxpy) {
#define GEMMTUNE_CPU_TILE_CASE(mr, u) \
  if (micro_m == mr && columns == u) return &gemm_direct_axpy<In, Out, mr, u>;
    GEMMTUNE_CPU_AXPY_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (algo == kAlgoDirectPairs) {
#if GEMMTUNE_VECTOR_BYTES == 64
    if constexpr (In == DType::f32 && Out == DType::f32) {
#define GEMMTUNE_CPU_TILE_CASE(mr) \
  if (micro_m == mr && columns == 1) return &gemm_direct_pairs<In, Out, mr>;
      GEMMTUNE_CPU_PAIRS_ROWS(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
    }
#endif
  } else if (algo == kAlgoDirectRowsDots) {
    if constexpr (In == DType::f32 && Out == DType::f32) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  if (micro_m == mr && columns == nv) return &gemm_direct_rows_dots<In, Out, mr, nv>;
      GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_CASE)
      GEMMTUNE_CPU_DIRECT_F32_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
    }
  } else if (algo == kAlgoDirectColumns) {
    if constexpr (In != DType::s8) {
#define GEMMTUNE_CPU_TILE_CASE(mj, nv) \
  if (micro_m == mj && columns == nv) return &gemm_direct_columns<In, Out, mj, nv>;
      GEMMTUNE_CPU_COLUMNS_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
    }
  }
  return nullptr;
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE

namespace gemmtune::cpu {

CpuGemmFn GEMMTUNE_FIND_FUNCTION(int algo, DType in, DType out, int micro_m, int columns) {
  using namespace GEMMTUNE_ISA_NAMESPACE;
#define GEMMTUNE_CPU_DTYPE_CASE(IN, OUT) \
  if (in == DType::IN && out == DType::OUT) return find_tile<DType::IN, DType::OUT>(algo, micro_m, columns);
  GEMMTUNE_ISA_DTYPES(GEMMTUNE_CPU_DTYPE_CASE)
#undef GEMMTUNE_CPU_DTYPE_CASE
  return nullptr;
}

}  // namespace gemmtune::cpu
