// Probe: how a small product's time depends on where its operands lie within a cache line.
// gemmtune's dot kernel (16 × 1 tile) on 64 × 1 × 64 and tile kernel (1 × 4 vectors) on
// 1 × 64 × 64, and libxsmm's JIT kernel on 1 × 64 × 64, with the 64 × 64 operand (A of the
// first, B of the others) and the other one at 0-48 bytes past a 64-byte boundary; each
// called straight through its pointer, medians of 21 rounds of 20 000 calls. Built against
// build/lib/libgemmtune.a:
//   g++ -O3 -std=c++20 -mavx512f -Iinclude -Isrc probe-alignment.cc build/lib/libgemmtune.a \
//     -lxsmm -lxsmmnoblas -lpthread -ldl -lm -lrt
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
constexpr gemmtune::DType f32 = gemmtune::DType::f32;

template <class F>
double median_ns(F&& f) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    auto t0 = clk::now();
    for (int i = 0; i < 20000; ++i) {
      f();
      asm volatile("" ::: "memory");
    }
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 20000);
  }
  std::sort(t.begin(), t.end());
  return t[10];
}

int main() {
  libxsmm_init();
  float* big = static_cast<float*>(std::aligned_alloc(64, 64 * 1024));
  float* small = static_cast<float*>(std::aligned_alloc(64, 64 * 1024));
  float* c = static_cast<float*>(std::aligned_alloc(64, 64 * 1024));
  for (int i = 0; i < 16384; ++i) big[i] = small[i] = float(i % 7) * 0.1f;
  CpuGemmParams dot_p;  // 64 x 1 x 64: A 64 x 64 row-major, B 64 x 1
  dot_p.m = 64, dot_p.n = 1, dot_p.k = 64, dot_p.a_rs = 64, dot_p.a_ks = 1, dot_p.b_ks = 1, dot_p.b_cs = 64, dot_p.ldc = 1;
  CpuGemmParams tile_p;  // 1 x 64 x 64: A 1 x 64, B 64 x 64 row-major
  tile_p.m = 1, tile_p.n = 64, tile_p.k = 64, tile_p.a_rs = 64, tile_p.a_ks = 1, tile_p.b_ks = 64, tile_p.b_cs = 1;
  tile_p.ldc = 64;
  const CpuGemmFn dot = find_cpu_kernel(kIsaAvx512, kAlgoDirectDot, f32, f32, 16, 1);
  const CpuGemmFn tile = find_cpu_kernel(kIsaAvx512, kAlgoDirectTile, f32, f32, 1, 4);
  float alpha = 1, beta = 0;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  libxsmm_blasint lm = 64, ln = 1, lk = 64, lda = 64, ldb = 64, ldc = 64;
  libxsmm_smmfunction x = libxsmm_smmdispatch(lm, ln, lk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
  std::printf("64x64 operand at +bytes, other at +bytes: 64x1x64 dot 16x1 ns, 1x64x64 tile 1x4 ns, 1x64x64 libxsmm ns\n");
  for (int big_off : {0, 4, 8, 12}) {
    for (int small_off : {0, 4}) {
      const float* m64 = big + big_off;
      const float* v = small + small_off;
      const double t_dot = median_ns([&] { dot(dot_p, m64, v, c); });
      const double t_tile = median_ns([&] { tile(tile_p, v, m64, c); });
      const double t_x = median_ns([&] { x(m64, v, c); });
      std::printf("+%2d, +%2d: %6.1f %6.1f %6.1f\n", big_off * 4, small_off * 4, t_dot, t_tile, t_x);
    }
  }
}
