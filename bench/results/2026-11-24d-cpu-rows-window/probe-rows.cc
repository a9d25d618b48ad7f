// Probe: gemmtune's rows kernel (algo 1) and rows-dots kernel (algo 8) with B's rows (ldb
// apart) on a 64-byte boundary and 16 bytes past one, single thread, each called straight
// through its pointer: medians of 21 rounds of calls (20 000, or fewer for the larger shapes),
// checked against a plain loop (max |error| printed). Built once against the library before
// the window came to the rows kernel and once after, and run in turns:
//   g++ -O3 -std=c++20 -mavx512f -Iinclude -Isrc probe-rows.cc build/lib/libgemmtune.a \
//     -lpthread -ldl -lm -lrt
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backends/cpu/cpu_kernels.h"
using namespace gemmtune::cpu;
using clk = std::chrono::steady_clock;
constexpr gemmtune::DType f32 = gemmtune::DType::f32;

template <class F>
double median_ns(F&& f, int calls) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    auto t0 = clk::now();
    for (int i = 0; i < calls; ++i) {
      f();
      asm volatile("" ::: "memory");
    }
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / calls);
  }
  std::sort(t.begin(), t.end());
  return t[10];
}

// A 64-byte-aligned block with `offset` bytes in front of the operand.
float* placed(std::size_t floats, int offset) {
  auto* p = static_cast<float*>(std::aligned_alloc(64, (floats * 4 + 128 + 63) / 64 * 64));
  for (std::size_t i = 0; i < floats + 32; ++i) p[i] = float(int(i * 7 % 13) - 6) * 0.25f;
  return p + offset / 4;
}

double max_error(const CpuGemmParams& P, const float* a, const float* b, const float* c) {
  double worst = 0;
  for (int i = 0; i < P.m; ++i) {
    for (int j = 0; j < P.n; ++j) {
      double s = 0;
      for (int p = 0; p < P.k; ++p) s += double(a[i * P.a_rs + p * P.a_ks]) * b[p * P.b_ks + j * P.b_cs];
      worst = std::max(worst, std::fabs(s - c[i * P.ldc + j]));
    }
  }
  return worst;
}

int main() {
  std::printf("rows kernels, A and C row-major 16 bytes past a line, B row-major: ns "
              "with B on a line, B 16 bytes past\n");
  struct Case {
    int algo, m, n, k, mr, nv, ldb = 0;  // ldb 0: n rounded up to 16
  };
  for (Case t : {Case{8, 17, 33, 65, 8, 2}, {1, 17, 32, 65, 8, 2}, {1, 9, 64, 64, 8, 2}, {1, 5, 128, 64, 4, 4},
                 {1, 1, 128, 64, 1, 4}, {1, 1, 200, 64, 1, 4}, {1, 1, 64, 256, 1, 4}, {1, 2, 64, 64, 1, 2},
                 {1, 3, 50, 64, 3, 4}, {1, 13, 40, 29, 12, 1}, {1, 48, 48, 48, 8, 3}, {1, 32, 32, 32, 8, 2},
                 {1, 1, 256, 64, 1, 4}, {1, 1, 128, 256, 1, 4}, {1, 1, 256, 256, 1, 4}, {1, 1, 200, 64, 1, 4, 256}}) {
    const int ldb = t.ldb > 0 ? t.ldb : (t.n + 15) / 16 * 16;
    CpuGemmParams P;
    P.m = t.m, P.n = t.n, P.k = t.k, P.a_rs = t.k, P.a_ks = 1, P.b_ks = ldb, P.b_cs = 1, P.ldc = t.n;
    const CpuGemmFn kernel = find_cpu_kernel(kIsaAvx512, t.algo, f32, f32, t.mr, t.nv);
    if (kernel == nullptr) {
      std::printf("no kernel algo %d %d x %d\n", t.algo, t.mr, t.nv);
      continue;
    }
    float* a = placed(std::size_t(t.m * t.k), 16);
    float* c = placed(std::size_t(t.m * t.n), 16);
    const int calls = std::max(200, int(2e8 / (double(t.m) * t.n * t.k * 20)));
    double ns[2], err[2];
    for (int off : {0, 16}) {
      float* b = placed(std::size_t(t.k * ldb), off);
      kernel(P, a, b, c);
      err[off / 16] = max_error(P, a, b, c);
      ns[off / 16] = median_ns([&] { kernel(P, a, b, c); }, std::min(calls, 20000));
    }
    std::printf("algo %d %2d x %3d x %3d ldb %3d on %2d x %d: %7.1f %7.1f   (error %.1e %.1e)\n", t.algo, t.m, t.n,
                t.k, ldb, t.mr, t.nv, ns[0], ns[1], err[0], err[1]);
  }
}
