// The vector layer the kernels are written against, for the ISA of the including translation
// unit (GEMMTUNE_VECTOR_BYTES, GEMMTUNE_ISA_LEVEL; see cpu_kernel_impl.h). The same names
// (VF, VI, Mask, kLanes, load_f, fma, transpose …) mean 16 lanes of AVX-512, 8 of AVX2 or 4 of
// plain vector extensions, so one kernel source serves every ISA.
#pragma once

#include <cstdint>

#if GEMMTUNE_VECTOR_BYTES >= 32
#include <immintrin.h>
#endif

#include "../../core/scalar_convert.h"
#include "cpu_kernels.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

#if GEMMTUNE_VECTOR_BYTES == 64
#include "cpu_simd_avx512.h"
#elif GEMMTUNE_VECTOR_BYTES == 32
#include "cpu_simd_avx2.h"
#else
#include "cpu_simd_generic.h"
#endif

static_assert(kLanes * 4 == GEMMTUNE_VECTOR_BYTES || (GEMMTUNE_VECTOR_BYTES == 16 && kLanes == 4));

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
