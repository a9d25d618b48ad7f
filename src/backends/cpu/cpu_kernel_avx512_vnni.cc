// CPU GEMM kernels compiled for the avx512_vnni vector ISA (flags set in
// src/CMakeLists.txt): the s8 kernels with AVX512_VNNI dot products.
#define GEMMTUNE_ISA_NAMESPACE avx512_vnni
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 3
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx512_vnni
#define GEMMTUNE_ISA_DTYPES(X) X(s8, s32)
#include "cpu_kernel_impl.h"
