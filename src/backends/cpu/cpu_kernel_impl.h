// The kernels of one vector ISA and their lookup. Included once per ISA level by
// cpu_kernel_<isa>.cc, which defines GEMMTUNE_ISA_NAMESPACE, GEMMTUNE_VECTOR_BYTES,
// GEMMTUNE_ISA_LEVEL and GEMMTUNE_FIND_FUNCTION and is compiled with that ISA's -m flags.
// Everything here has internal linkage so that no function compiled for one ISA can stand in
// for another's (see core/scalar_convert.h).
//
// GEMMTUNE_ISA_DTYPES(X) lists the (input, output) dtypes the level compiles: levels 3 and 4
// compile only what their dot-product instructions change, and fall back to level 2 for the
// rest (find_cpu_kernel). Of the tiles each family's row names (cpu_kernel_families.h), a
// level compiles those kernel_offered (cpu_offered_kernels.h) says: every one the config space
// can offer there, and no other.
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
#include "cpu_kernel_families.h"
#include "cpu_offered_kernels.h"

#include <span>
#include <utility>

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// The kernel of a family's tile (A, B, its lookup key as tile_key writes it), one line a family.
template <int Kernel, DType In, DType Out, int A, int B>
struct KernelOf;
#define GEMMTUNE_CPU_KERNEL_OF(kernel, ...)     \
  template <DType In, DType Out, int A, int B> \
  struct KernelOf<kernel, In, Out, A, B> {     \
    static constexpr CpuGemmFn fn = __VA_ARGS__; \
  };
GEMMTUNE_CPU_KERNEL_OF(kKernelPacked, &PackedGemm<In, Out, A, B>::run)
GEMMTUNE_CPU_KERNEL_OF(kKernelRows, &gemm_direct_rows<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelRowsDots, &gemm_direct_rows_dots<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelDot, &gemm_direct_dot<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelTile, &gemm_direct_tile<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelStream, &gemm_direct_stream<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelAxpy, &gemm_direct_axpy<In, Out, A, B>)
GEMMTUNE_CPU_KERNEL_OF(kKernelColumns, &gemm_direct_columns<In, Out, A, B>)
// kernels/pairs.h defines these kernels for 512-bit vectors only, which the preprocessor has to
// know before it sees their name; the rule (family_takes_isa) says the same, so no other level
// asks for them.
static_assert(family_takes_isa(kKernelPairs, GEMMTUNE_ISA_LEVEL) == (GEMMTUNE_VECTOR_BYTES == 64));
#if GEMMTUNE_VECTOR_BYTES == 64
GEMMTUNE_CPU_KERNEL_OF(kKernelPairs, &gemm_direct_pairs<In, Out, A>)
#endif
#undef GEMMTUNE_CPU_KERNEL_OF

// Tile T of family row F, where kernel_offered says it is compiled (the rule that prunes the
// configs, so that the two cannot disagree), if (a, b) is its key.
template <DType In, DType Out, std::size_t F, MicroTile T>
CpuGemmFn tile_case(int a, int b) {
  constexpr int kernel = kCpuKernelFamilies[F].kernel;
  if constexpr (kernel_offered(GEMMTUNE_ISA_LEVEL, kernel, In, Out, TileKey{T.micro_m, T.micro_nv})) {
    if (a == T.micro_m && b == T.micro_nv) return KernelOf<kernel, In, Out, T.micro_m, T.micro_nv>::fn;
  }
  return nullptr;
}

// The tiles of row F (its f32 tiles where F32), each instantiated as tile_case says.
template <DType In, DType Out, std::size_t F, bool F32, std::size_t... I>
CpuGemmFn find_in_tiles(int a, int b, std::index_sequence<I...>) {
  constexpr std::span<const MicroTile> tiles = F32 ? kCpuKernelFamilies[F].f32_tiles : kCpuKernelFamilies[F].tiles;
  CpuGemmFn fn = nullptr;
  ((fn = fn != nullptr ? fn : tile_case<In, Out, F, tiles[I]>(a, b)), ...);
  return fn;
}

template <DType In, DType Out, std::size_t F>
CpuGemmFn find_in_family(int a, int b) {
  constexpr const CpuKernelFamily& family = kCpuKernelFamilies[F];
  if (CpuGemmFn fn = find_in_tiles<In, Out, F, false>(a, b, std::make_index_sequence<family.tiles.size()>())) return fn;
  if constexpr (takes_f32_tiles(In, Out)) {
    return find_in_tiles<In, Out, F, true>(a, b, std::make_index_sequence<family.f32_tiles.size()>());
  }
  return nullptr;
}

template <DType In, DType Out, std::size_t... F>
CpuGemmFn find_tile(int kernel, int a, int b, std::index_sequence<F...>) {
  CpuGemmFn fn = nullptr;
  ((fn = fn == nullptr && kernel == kCpuKernelFamilies[F].kernel ? find_in_family<In, Out, F>(a, b) : fn), ...);
  return fn;
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE

namespace gemmtune::cpu {

CpuGemmFn GEMMTUNE_FIND_FUNCTION(int kernel, DType in, DType out, int micro_m, int columns) {
  using namespace GEMMTUNE_ISA_NAMESPACE;
  constexpr auto families = std::make_index_sequence<std::size(kCpuKernelFamilies)>();
#define GEMMTUNE_CPU_DTYPE_CASE(IN, OUT) \
  if (in == DType::IN && out == DType::OUT) return find_tile<DType::IN, DType::OUT>(kernel, micro_m, columns, families);
  GEMMTUNE_ISA_DTYPES(GEMMTUNE_CPU_DTYPE_CASE)
#undef GEMMTUNE_CPU_DTYPE_CASE
  return nullptr;
}

}  // namespace gemmtune::cpu
