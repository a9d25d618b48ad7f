#include "cpu_kernels.h"

#include <cstdlib>
#include <memory>

#include "../../core/scalar_convert.h"

namespace gemmtune::cpu {

CpuGemmFn find_cpu_kernel(int isa, int kernel, DType in, DType out, int micro_m, int columns) {
  switch (isa) {
    case kIsaGeneric: return find_cpu_kernel_generic(kernel, in, out, micro_m, columns);
    case kIsaAvx2: return find_cpu_kernel_avx2(kernel, in, out, micro_m, columns);
    case kIsaAvx512: return find_cpu_kernel_avx512(kernel, in, out, micro_m, columns);
    case kIsaAvx512Vnni:
      if (CpuGemmFn fn = find_cpu_kernel_avx512_vnni(kernel, in, out, micro_m, columns)) return fn;
      return find_cpu_kernel(kIsaAvx512, kernel, in, out, micro_m, columns);
    case kIsaAvx512Bf16:
      if (CpuGemmFn fn = find_cpu_kernel_avx512_bf16(kernel, in, out, micro_m, columns)) return fn;
      return find_cpu_kernel(kIsaAvx512Vnni, kernel, in, out, micro_m, columns);
    default: return nullptr;
  }
}

namespace {
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
struct ScratchSlot {
  std::unique_ptr<void, FreeDeleter> data;
  std::size_t bytes = 0;
};
}  // namespace

void* thread_scratch(int slot, std::size_t bytes) {
  thread_local ScratchSlot slots[kScratchSlots];
  ScratchSlot& s = slots[slot];
  if (s.bytes < bytes) {
    // Round up so that slowly growing sizes do not reallocate every call.
    std::size_t size = 4096;
    while (size < bytes) size *= 2;
    s.data.reset(std::aligned_alloc(64, size));
    s.bytes = s.data ? size : 0;
  }
  return s.data.get();
}

float f16_load(std::uint16_t bits) { return f16_bits_to_float(bits); }
std::uint16_t f16_store(float value) { return float_to_f16_bits(value); }

}  // namespace gemmtune::cpu
