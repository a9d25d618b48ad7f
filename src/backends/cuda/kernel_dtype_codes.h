// The dtype codes the NVRTC templates read (GT_IN, GT_OUT), shared by gemm_mma.cuh and
// gemm_wgmma.cuh.
#pragma once

#include "gemmtune/dtype.h"

namespace gemmtune::cuda {

// GT_IN: 0 f16, 1 bf16, 2 f32 computed as TF32, 3 s8.
inline int input_code(DType type) {
  switch (type) {
    case DType::f16: return 0;
    case DType::bf16: return 1;
    case DType::f32: return 2;
    default: return 3;
  }
}

// GT_OUT: 0 f32, 1 f16, 2 bf16, 3 s32.
inline int output_code(DType type) {
  switch (type) {
    case DType::f16: return 1;
    case DType::bf16: return 2;
    case DType::s32: return 3;
    default: return 0;
  }
}

}  // namespace gemmtune::cuda
