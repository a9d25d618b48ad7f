// Probe: gemmtune's tile kernels with B's rows off a 64-byte boundary, and its dot kernel with
// A and W at different offsets within a line. Each kernel called straight through its pointer,
// medians of 21 rounds of 20 000 calls, against a plain loop's result (max |error| printed).
// Built once against the library before the change and once after, and run in turns:
//   g++ -O3 -std=c++20 -mavx512f -Iinclude -Isrc probe-shift.cc build/lib/libgemmtune.a \
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

// A 64-byte-aligned block with `offset` bytes in front of the operand.
float* placed(std::size_t floats, int offset) {
  auto* p = static_cast<float*>(std::aligned_alloc(64, (floats * 4 + 128 + 63) / 64 * 64));
  for (std::size_t i = 0; i < floats + 32; ++i) p[i] = float(int(i * 7 % 13) - 6) * 0.25f;
  return p + offset / 4;
}

// C (m × n) = A (m × k, row-major or with a_rs, a_ks) · B (row-major k × n, or W n × k).
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
  std::printf("tile kernel, B row-major (ldb = n rounded up to 16), A and C 16 bytes past a line: ns with B on a "
              "line, B 16 bytes past\n");
  struct TileCase {
    int m, n, k, vectors;
  };
  for (TileCase t : {TileCase{1, 64, 64, 4}, {2, 64, 64, 4}, {3, 64, 64, 4}, {1, 48, 64, 3}, {2, 48, 64, 3},
                     {1, 32, 64, 2}, {4, 64, 64, 4}, {1, 60, 64, 4}, {1, 56, 64, 4}, {2, 60, 64, 4}, {3, 60, 64, 4},
                     {4, 60, 64, 4}, {1, 40, 64, 3}, {1, 44, 64, 3}, {4, 40, 64, 3}, {2, 20, 32, 2}, {8, 24, 48, 2}}) {
    const int ldb = (t.n + 15) / 16 * 16;
    CpuGemmParams P;
    P.m = t.m, P.n = t.n, P.k = t.k, P.a_rs = t.k, P.a_ks = 1, P.b_ks = ldb, P.b_cs = 1, P.ldc = t.n;
    const CpuGemmFn tile = find_cpu_kernel(kIsaAvx512, kAlgoDirectTile, f32, f32, t.m, t.vectors);
    float* a = placed(std::size_t(t.m * t.k), 16);
    float* c = placed(std::size_t(t.m * t.n), 16);
    double ns[2], err[2];
    for (int off : {0, 16}) {
      float* b = placed(std::size_t(t.k * ldb), off);
      tile(P, a, b, c);
      err[off / 16] = max_error(P, a, b, c);
      ns[off / 16] = median_ns([&] { tile(P, a, b, c); });
    }
    std::printf("%2d x %2d x %2d on %d x %d: %6.1f %6.1f   (error %.1e %.1e)\n", t.m, t.n, t.k, t.m, t.vectors, ns[0],
                ns[1], err[0], err[1]);
  }
  std::printf("dot kernel on 64 x 1 x 64 (A 64 x 64 row-major, W 1 x 64): ns by A's and W's bytes past a line\n");
  CpuGemmParams D;
  D.m = 64, D.n = 1, D.k = 64, D.a_rs = 64, D.a_ks = 1, D.b_ks = 1, D.b_cs = 64, D.ldc = 1;
  float* c = placed(64, 16);
  for (int rows : {16, 8}) {
    const CpuGemmFn dot = find_cpu_kernel(kIsaAvx512, kAlgoDirectDot, f32, f32, rows, 1);
    for (int a_off : {0, 16, 32}) {
      for (int w_off : {0, 16}) {
        float* a = placed(64 * 64, a_off);
        float* w = placed(64, w_off);
        dot(D, a, w, c);
        const double err = max_error(D, a, w, c);
        std::printf("%2d x 1 tile, A +%2d, W +%2d: %6.1f   (error %.1e)\n", rows, a_off, w_off,
                    median_ns([&] { dot(D, a, w, c); }), err);
      }
    }
  }
}
