// CPU GEMM kernels compiled for the avx512 vector ISA (flags set in CMakeLists.txt).
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx512
#include "cpu_kernel_impl.h"
