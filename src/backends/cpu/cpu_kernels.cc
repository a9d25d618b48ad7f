#include "cpu_kernels.h"

#include <cstdlib>
#include <memory>

#include "../../core/scalar_convert.h"

namespace gemmtune::cpu {

CpuGemmFn find_cpu_kernel(int isa, int algo, DType in, DType out, int micro_m, int micro_nv) {
  switch (isa) {
    case 0: return find_cpu_kernel_generic(algo, in, out, micro_m, micro_nv);
    case 1: return find_cpu_kernel_avx2(algo, in, out, micro_m, micro_nv);
    case 2: return find_cpu_kernel_avx512(algo, in, out, micro_m, micro_nv);
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
constexpr int kScratchSlots = 4;
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
