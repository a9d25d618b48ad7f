// CPU GEMM kernels compiled for the generic vector ISA (flags set in CMakeLists.txt).
#define GEMMTUNE_ISA_NAMESPACE generic
#define GEMMTUNE_VECTOR_BYTES 16
#define GEMMTUNE_FIND_FUNCTION find_cpu_kernel_generic
#include "cpu_kernel_impl.h"
