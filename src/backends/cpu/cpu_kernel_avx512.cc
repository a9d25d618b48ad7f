// CPU GEMM kernels compiled for the avx512 vector ISA (flags set in
// src/CMakeLists.txt): every dtype's kernels.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx512
#define GEMMTUNE_ISA_DTYPES(X) X(f32, f32) X(f16, f16) X(f16, f32) X(bf16, bf16) X(bf16, f32) X(s8, s32)
#include "cpu_kernel_impl.h"
