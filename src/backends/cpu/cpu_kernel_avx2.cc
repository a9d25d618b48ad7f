// CPU GEMM kernels compiled for the avx2 vector ISA (flags set in CMakeLists.txt).
#define GEMMTUNE_ISA_NAMESPACE avx2
#define GEMMTUNE_VECTOR_BYTES 32
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_avx2
#include "cpu_kernel_impl.h"
