// The library header's tile kernel compiled twice (the tree's header and an edited copy), for
// probe-tile-header-main.cc; see probe-tile-header.sh for how both are built.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_direct_gemm.h"
using namespace gemmtune;
using namespace gemmtune::cpu;
extern "C" CpuGemmFn TILE_FN(int mr, int nv) {
  using namespace gemmtune::cpu::avx512;
#define C(a, b) if (mr == a && nv == b) return &gemm_direct_tile<DType::f32, DType::f32, a, b>;
  C(8, 1) C(16, 1) C(13, 1) C(3, 4) C(1, 4) C(8, 2) C(24,1)
  return nullptr;
}
