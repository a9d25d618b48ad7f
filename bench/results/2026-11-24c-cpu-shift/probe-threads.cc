// Built against the library before and after (see probe-shift.cc for the build line).
// 48^3 and 64^3 on the rows kernel, one thread and two (the pool), called through its pointer.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
template <class F> double median_ns(F&& f) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    auto t0 = clk::now();
    for (int i = 0; i < 5000; ++i) { f(); asm volatile("" ::: "memory"); }
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 5000);
  }
  std::sort(t.begin(), t.end());
  return t[10];
}
int main() {
  float* a = static_cast<float*>(std::aligned_alloc(64, 1 << 16)) + 4;
  float* b = static_cast<float*>(std::aligned_alloc(64, 1 << 16)) + 4;
  float* c = static_cast<float*>(std::aligned_alloc(64, 1 << 16)) + 4;
  for (int i = 0; i < 4096; ++i) a[i] = b[i] = float(i % 7) * 0.1f;
  struct Case { int n, mr, nv; };
  for (Case t : {Case{48, 8, 3}, Case{48, 6, 3}, Case{64, 4, 4}}) {
    CpuGemmParams P;
    P.m = P.n = P.k = t.n, P.a_rs = t.n, P.a_ks = 1, P.b_ks = t.n, P.b_cs = 1, P.ldc = t.n;
    const CpuGemmFn f = find_cpu_kernel(kIsaAvx512, kAlgoDirectRows, gemmtune::DType::f32, gemmtune::DType::f32, t.mr, t.nv);
    double ns[2];
    for (int threads : {1, 2}) { P.threads = threads; ns[threads - 1] = median_ns([&] { f(P, a, b, c); }); }
    std::printf("%d^3 rows %dx%d: 1 thread %7.1f ns, 2 threads %7.1f ns\n", t.n, t.mr, t.nv, ns[0], ns[1]);
  }
}
