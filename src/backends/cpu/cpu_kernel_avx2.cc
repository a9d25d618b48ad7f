// CPU GEMM kernels compiled for the avx2 vector ISA (flags set in
// src/CMakeLists.txt): every dtype's kernels.
#define GEMMTUNE_ISA_NAMESPACE avx2
#define GEMMTUNE_VECTOR_BYTES 32
#define GEMMTUNE_ISA_LEVEL 1
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx2
#define GEMMTUNE_ISA_DTYPES(X) X(f32, f32) X(f16, f16) X(f16, f32) X(bf16, bf16) X(bf16, f32) X(s8, s32)
#include "cpu_kernel_impl.h"
