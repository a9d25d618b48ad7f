// The kernels of one vector ISA and their lookup. Included once per ISA level by
// cpu_kernel_<isa>.cc, which defines GEMMTUNE_ISA_NAMESPACE, GEMMTUNE_VECTOR_BYTES,
// GEMMTUNE_ISA_LEVEL and GEMMTUNE_FIND_FUNCTION and is compiled with that ISA's -m flags.
// Everything here has internal linkage so that no function compiled for one ISA can stand in
// for another's (see core/scalar_convert.h).
//
// GEMMTUNE_ISA_DTYPES(X) lists the (input, output) dtypes the level compiles: levels 3 and 4
// compile only what their dot-product instructions change, and fall back to level 2 for the
// rest (find_cpu_kernel). Of the tiles each list names, a level compiles those kernel_offered
// (cpu_offered_kernels.h) says: every one the config space can offer there, and no other.
//
// One translation unit per level, not one per kernel family: GCC's inlining and cloning of
// the helpers the families share depend on everything else in the unit, so a split changes
// the machine code of kernels whose source did not change (measured: bench/results/
// 2026-11-25-build-time.md), and the cost model trained on them would no longer describe them.
// The direct kernels' shared parts come first, in the order that kept every kernel object
// byte-identical when the families moved to kernels/ (one file each).
#include "kernels/rows.h"
#include "kernels/dot.h"
#include "kernels/axpy.h"
#include "kernels/columns.h"
#include "kernels/packed.h"
#include "kernels/pairs.h"
#include "kernels/rows_dots.h"
#include "kernels/stream.h"
#include "cpu_offered_kernels.h"

// A case of find_tile<In, Out>: `fn` for the tile key (mr, nc) of `kernel`, instantiated
// where kernel_offered says, by the rules that prune the configs, so that the two cannot
// disagree.
#define GEMMTUNE_CPU_COMPILED_CASE(kernel, mr, nc, fn)                                   \
  if constexpr (kernel_offered(GEMMTUNE_ISA_LEVEL, kernel, In, Out, TileKey{mr, nc})) { \
    if (micro_m == mr && columns == nc) return fn;                                        \
  }

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

template <DType In, DType Out>
CpuGemmFn find_tile(int kernel, int micro_m, int columns) {
  if (kernel == kKernelPacked) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelPacked, mr, nv, (&PackedGemm<In, Out, mr, nv>::run))
    GEMMTUNE_CPU_MICRO_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelRows) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelRows, mr, nv, (&gemm_direct_rows<In, Out, mr, nv>))
    GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_CASE)
    if constexpr (takes_f32_rows_tiles(In, Out)) {
      GEMMTUNE_CPU_DIRECT_F32_TILES(GEMMTUNE_CPU_TILE_CASE)
    }
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelDot) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nc) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelDot, mr, nc, (&gemm_direct_dot<In, Out, mr, nc>))
    GEMMTUNE_CPU_DOT_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelTile) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelTile, mr, nv, (&gemm_direct_tile<In, Out, mr, nv>))
    GEMMTUNE_CPU_TILE_SHAPES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelStream) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelStream, mr, nv, (&gemm_direct_stream<In, Out, mr, nv>))
    GEMMTUNE_CPU_STREAM_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelAxpy) {
#define GEMMTUNE_CPU_TILE_CASE(mr, u) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelAxpy, mr, u, (&gemm_direct_axpy<In, Out, mr, u>))
    GEMMTUNE_CPU_AXPY_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelPairs) {
    // kernels/pairs.h defines these kernels for 512-bit vectors only, which the preprocessor
    // has to know before it sees their name; the rule (family_takes_isa) says the same.
    static_assert(family_takes_isa(kKernelPairs, GEMMTUNE_ISA_LEVEL) == (GEMMTUNE_VECTOR_BYTES == 64));
#if GEMMTUNE_VECTOR_BYTES == 64
#define GEMMTUNE_CPU_TILE_CASE(mr) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelPairs, mr, 1, (&gemm_direct_pairs<In, Out, mr>))
    GEMMTUNE_CPU_PAIRS_ROWS(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
#endif
  } else if (kernel == kKernelRowsDots) {
#define GEMMTUNE_CPU_TILE_CASE(mr, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelRowsDots, mr, nv, (&gemm_direct_rows_dots<In, Out, mr, nv>))
    GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_TILE_CASE)
    if constexpr (takes_f32_rows_tiles(In, Out)) {
      GEMMTUNE_CPU_DIRECT_F32_TILES(GEMMTUNE_CPU_TILE_CASE)
    }
#undef GEMMTUNE_CPU_TILE_CASE
  } else if (kernel == kKernelColumns) {
#define GEMMTUNE_CPU_TILE_CASE(mj, nv) \
  GEMMTUNE_CPU_COMPILED_CASE(kKernelColumns, mj, nv, (&gemm_direct_columns<In, Out, mj, nv>))
    GEMMTUNE_CPU_COLUMNS_TILES(GEMMTUNE_CPU_TILE_CASE)
#undef GEMMTUNE_CPU_TILE_CASE
  }
  return nullptr;
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE

namespace gemmtune::cpu {

CpuGemmFn GEMMTUNE_FIND_FUNCTION(int kernel, DType in, DType out, int micro_m, int columns) {
  using namespace GEMMTUNE_ISA_NAMESPACE;
#define GEMMTUNE_CPU_DTYPE_CASE(IN, OUT) \
  if (in == DType::IN && out == DType::OUT) return find_tile<DType::IN, DType::OUT>(kernel, micro_m, columns);
  GEMMTUNE_ISA_DTYPES(GEMMTUNE_CPU_DTYPE_CASE)
#undef GEMMTUNE_CPU_DTYPE_CASE
  return nullptr;
}

}  // namespace gemmtune::cpu
