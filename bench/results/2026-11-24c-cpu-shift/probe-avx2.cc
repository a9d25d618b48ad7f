// Probe: gemmtune's AVX2 tile kernels (8-lane vectors) with B 16 bytes past a 64-byte line and
// on one (row stride a whole number of lines), called straight through the kernel pointer,
// medians of 21 rounds of 20 000 calls. The shifted window is AVX-512 only: this measures what
// AVX2 loses off the line. Build line as in probe-shift.cc.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;

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
  float* a = static_cast<float*>(std::aligned_alloc(64, 1 << 14)) + 4;
  float* c = static_cast<float*>(std::aligned_alloc(64, 1 << 14)) + 4;
  float* b_base = static_cast<float*>(std::aligned_alloc(64, 1 << 16));
  for (int i = 0; i < 4096; ++i) a[i] = c[i] = float(i % 5) * 0.5f;
  for (int i = 0; i < 16384; ++i) b_base[i] = float(i % 7) * 0.25f;
  std::printf("AVX2 tile kernel, ldb = 32: ns with B on a line, B 16 bytes past\n");
  struct Case {
    int m, n, k, vectors;
  };
  for (Case t : {Case{1, 32, 64, 4}, Case{2, 32, 64, 4}, Case{1, 24, 64, 3}, Case{4, 32, 64, 4}}) {
    CpuGemmParams P;
    P.m = t.m, P.n = t.n, P.k = t.k, P.a_rs = t.k, P.a_ks = 1, P.b_ks = 32, P.b_cs = 1, P.ldc = t.n;
    const CpuGemmFn tile = find_cpu_kernel(kIsaAvx2, kAlgoDirectTile, gemmtune::DType::f32, gemmtune::DType::f32, t.m,
                                           t.vectors);
    const double on = median_ns([&] { tile(P, a, b_base, c); });
    const double off = median_ns([&] { tile(P, a, b_base + 4, c); });
    std::printf("%d x %d x %d on %d x %d: %6.1f %6.1f\n", t.m, t.n, t.k, t.m, t.vectors, on, off);
  }
}
