// CPU GEMM kernels compiled for the avx512_bf16 vector ISA (flags set in
// src/CMakeLists.txt): the bf16 kernels with AVX512_BF16 dot products.
#define GEMMTUNE_ISA_NAMESPACE avx512_bf16
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 4
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx512_bf16
#define GEMMTUNE_ISA_DTYPES(X) X(bf16, bf16) X(bf16, f32)
#include "cpu_kernel_impl.h"
