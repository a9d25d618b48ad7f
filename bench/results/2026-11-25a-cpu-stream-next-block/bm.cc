// Built from the repository root like 2026-11-24g-cpu-stream-prefetch/packed-probe-tiles.cc (the avx512
// kernel flags, -Isrc/backends/cpu -Iinclude -Isrc, build/lib/libgemmtune.a -lpthread); run as
// ./bm M N BM1 BM2 [1: nt (default), 0: nn].
// Packed kernel (6 x 4, bn 512, bk 1024, two threads, grid 1 x 2) at M x N x 4096 nt:
// block_m 96 (the default list's) against block_m = M rounded up to whole tiles (one row
// block per thread), alternated, 9 rounds.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_packed_gemm.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
using namespace gemmtune::cpu;
using namespace gemmtune;
static double us(CpuGemmParams P, const float* a, const float* b, float* c) {
  auto s = std::chrono::steady_clock::now();
  avx512::PackedGemm<DType::f32, DType::f32, 6, 4>::run(P, a, b, c);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
}
int main(int argc, char** argv) {
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = 4096;
  const int bm1 = std::atoi(argv[3]), bm2 = std::atoi(argv[4]);
  const bool nt = argc <= 5 || std::atoi(argv[5]) == 1;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(n) * k), c(std::size_t(m) * n);
  std::mt19937 g(1); std::uniform_real_distribution<float> d(-1, 1);
  for (auto& x : a) x = d(g); for (auto& x : b) x = d(g);
  CpuGemmParams P; P.m = m; P.n = n; P.k = k; P.a_rs = k; P.a_ks = 1; P.ldc = n;
  if (nt) { P.b_ks = 1; P.b_cs = k; } else { P.b_ks = n; P.b_cs = 1; }
  P.threads = 2; P.grid_m = 1; P.grid_n = 2; P.block_n = 512; P.block_k = 1024;
  CpuGemmParams Q = P; P.block_m = bm1; Q.block_m = bm2;
  std::vector<double> t0, t1, r;
  for (int i = 0; i < 9; ++i) {
    t0.push_back(us(P, a.data(), b.data(), c.data()));
    t1.push_back(us(Q, a.data(), b.data(), c.data()));
    r.push_back(t0.back() / t1.back());
  }
  std::sort(t0.begin(), t0.end()); std::sort(t1.begin(), t1.end()); std::sort(r.begin(), r.end());
  const double fl = 2.0 * m * n * k / 1e3;
  std::printf("%dx%dx%d %s  bm=%d %.0f us (%.0f GF/s) | bm=%d %.0f us (%.0f GF/s) | first/second by round %.3f (%.3f-%.3f)\n",
              m, n, k, nt ? "nt" : "nn", bm1, t0[4], fl / t0[4], bm2, t1[4], fl / t1[4], r[4], r[2], r[6]);
}
