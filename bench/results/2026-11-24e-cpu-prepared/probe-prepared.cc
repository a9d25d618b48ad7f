// Probe: what deciding the window when the kernel is prepared saves per call. 1 × 64 × k, B
// row-major with rows ldb elements apart, 16 bytes past a line; the AVX-512 1 × 4-vector tile
// and rows kernels, single thread, called through their pointers, medians of 21 rounds of 5000
// calls. Against the library of abc04ad (built with its headers), the kernels decide on every
// call whether B's lines stay in L1; against the library after (-DPREPARED), the parameters
// carry the answer, as the backend's prepare sets it (b_lines_in_l1).
//   g++ -O3 -std=c++20 -mavx512f [-DPREPARED] -Iinclude -Isrc probe-prepared.cc \
//     build/lib/libgemmtune.a -lpthread -ldl -lm -lrt
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
  for (int r = 0; r < 21; ++r) { auto t0 = clk::now(); for (int i = 0; i < 5000; ++i) { f(); asm volatile("" ::: "memory"); }
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 5000); }
  std::sort(t.begin(), t.end()); return t[10];
}
float* placed(std::size_t floats, int offset) {
  auto* p = static_cast<float*>(std::aligned_alloc(64, (floats * 4 + 128 + 63) / 64 * 64));
  for (std::size_t i = 0; i < floats + 32; ++i) p[i] = float(int(i * 7 % 13) - 6) * 0.25f;
  return p + offset / 4;
}
int main() {
  auto tile = find_cpu_kernel(kIsaAvx512, kAlgoDirectTile, gemmtune::DType::f32, gemmtune::DType::f32, 1, 4);
  auto rows = find_cpu_kernel(kIsaAvx512, kAlgoDirectRows, gemmtune::DType::f32, gemmtune::DType::f32, 1, 4);
  for (int k : {64, 128}) for (int ldb : {64, 80, 128, 208, 256, 1024}) {
    CpuGemmParams P; P.m = 1; P.n = 64; P.k = k; P.a_rs = k; P.a_ks = 1; P.b_ks = ldb; P.b_cs = 1; P.ldc = 64;
#ifdef PREPARED
    P.b_lines_in_l1 = b_lines_in_l1(l1_geometry(), k, std::int64_t(ldb) * 4);
#endif
    float* a = placed(k, 16); float* c = placed(64, 16); float* b = placed(std::size_t(k) * ldb, 16);
    double err = 0;
    std::vector<float> want(64, 0.f);
    for (int p = 0; p < k; ++p) for (int j = 0; j < 64; ++j) want[j] += a[p] * b[std::size_t(p) * ldb + j];
    tile(P, a, b, c); for (int j = 0; j < 64; ++j) err = std::max(err, double(std::abs(c[j] - want[j])));
    rows(P, a, b, c); for (int j = 0; j < 64; ++j) err = std::max(err, double(std::abs(c[j] - want[j])));
    std::printf("1 x 64 x %3d ldb %4d, B 16 bytes past a line: tile %6.1f rows %6.1f ns (error %g)\n", k, ldb,
      median_ns([&] { tile(P, a, b, c); }), median_ns([&] { rows(P, a, b, c); }), err);
  }
}
