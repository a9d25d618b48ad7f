// CPU GEMM kernels compiled for the generic vector ISA (flags set in
// src/CMakeLists.txt): every dtype's kernels.
#define GEMMTUNE_ISA_NAMESPACE generic
#define GEMMTUNE_VECTOR_BYTES 16
#define GEMMTUNE_ISA_LEVEL 0
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_generic
#define GEMMTUNE_ISA_DTYPES(X) X(f32, f32) X(f16, f16) X(f16, f32) X(bf16, bf16) X(bf16, f32) X(s8, s32)
#include "cpu_kernel_impl.h"
