// The arithmetic bound of an f32 product on an AVX2 core: `threads` threads each running
// independent 256-bit FMAs on registers alone, no memory. Twelve accumulators: more than the
// FMA latency (4 cycles on Zen 3, 4 on Intel since Skylake) times its two ports, so the loop
// is bound by the ports, as a GEMM micro-kernel at its best would be.
//
//   fma_peak [threads] [repeats]      defaults 2 20
//
// Prints the best and median GFLOP/s per thread of passes of 12 · 2^22 FMAs of 8 lanes each.
#include <immintrin.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "passes.h"

namespace {

constexpr int kChains = 12;
constexpr long kIterations = 1L << 22;  // of kChains FMAs each

// In assembly: written in C, GCC kept the chains in memory around the asm barrier that stops
// it folding them, and the loop read 27 GFLOP/s.
__attribute__((target("avx2,fma"), noinline)) void fma_loop(long iterations) {
  __asm__ volatile(
      "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
      "vmovaps %%ymm0, %%ymm1\n\t vmovaps %%ymm0, %%ymm2\n\t vmovaps %%ymm0, %%ymm3\n\t"
      "vmovaps %%ymm0, %%ymm4\n\t vmovaps %%ymm0, %%ymm5\n\t vmovaps %%ymm0, %%ymm6\n\t"
      "vmovaps %%ymm0, %%ymm7\n\t vmovaps %%ymm0, %%ymm8\n\t vmovaps %%ymm0, %%ymm9\n\t"
      "vmovaps %%ymm0, %%ymm10\n\t vmovaps %%ymm0, %%ymm11\n\t"
      "vmovaps %%ymm0, %%ymm14\n\t vmovaps %%ymm0, %%ymm15\n\t"
      "1:\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm0\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm1\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm2\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm3\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm4\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm5\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm6\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm7\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm8\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm9\n\t"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm10\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm11\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper"
      : "+r"(iterations)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14",
        "xmm15", "cc");
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 20;
  if (threads <= 0 || repeats <= 0) {
    std::fprintf(stderr, "usage: fma_peak [threads > 0] [repeats > 0]\n");
    return 2;
  }
  const std::vector<double> seconds = timed_passes(threads, repeats, [](int) { fma_loop(kIterations); });
  const double flops = double(kIterations) * kChains * 8 * 2;  // per thread
  std::printf("FMA loop, %d threads, %d passes: best %.1f GFLOP/s a thread, median %.1f\n", threads, repeats,
              flops / seconds.front() / 1e9, flops / seconds[seconds.size() / 2] / 1e9);
  return 0;
}
