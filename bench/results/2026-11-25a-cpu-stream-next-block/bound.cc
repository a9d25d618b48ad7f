// Built from the repository root like 2026-11-24g-cpu-stream-prefetch/packed-probe-tiles.cc
// (the avx512 kernel flags, -Isrc/backends/cpu -Iinclude -Isrc, build/lib/libgemmtune.a
// -lpthread), with -DTMR=8 -DTNV=3 for the tile; run as ./bound M BK [1: B on madvised huge pages].
// Is the stream kernel at 16 x 4096 x 4096 (nn) bound by memory or by its own loop?
// Times it with B as it is (b_ks = n) and with every row of B the same row (b_ks = 0: B in L1,
// same instructions), alternated, 25 rounds.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_stream_gemm.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <sys/mman.h>
#include <cstring>
using namespace gemmtune::cpu;
using namespace gemmtune;
int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 16, n = 4096, k = 4096;
  const int bk = argc > 2 ? std::atoi(argv[2]) : 256;
  std::vector<float> a(std::size_t(m) * k), bv(std::size_t(n) * k), c(std::size_t(m) * n);
  const bool huge = argc > 3 && std::atoi(argv[3]) == 1;
  float* bp = static_cast<float*>(std::aligned_alloc(2 << 20, std::size_t(n) * k * 4));
  if (huge) madvise(bp, std::size_t(n) * k * 4, MADV_HUGEPAGE);
  struct Span { float* p; std::size_t n; float* begin() { return p; } float* end() { return p + n; } float* data() { return p; } float& operator[](std::size_t i) { return p[i]; } } b{bp, std::size_t(n) * k};
  std::mt19937 g(1); std::uniform_real_distribution<float> d(-1, 1);
  for (auto& x : a) x = d(g); for (auto& x : b) x = d(g);
  (void)bv;
  CpuGemmParams P; P.m = m; P.n = n; P.k = k; P.a_rs = k; P.a_ks = 1; P.b_ks = n; P.b_cs = 1; P.ldc = n;
  P.threads = 2; P.block_k = bk;
  CpuGemmParams Q = P; Q.b_ks = 0;
  auto f83 = &avx512::gemm_direct_stream<DType::f32, DType::f32, TMR, TNV>;
  std::vector<double> t0, t1;
  for (int r = 0; r < 25; ++r) {
    auto s = std::chrono::steady_clock::now();
    f83(P, a.data(), b.data(), c.data());
    auto e = std::chrono::steady_clock::now();
    f83(Q, a.data(), b.data(), c.data());
    auto e2 = std::chrono::steady_clock::now();
    t0.push_back(std::chrono::duration<double, std::micro>(e - s).count());
    t1.push_back(std::chrono::duration<double, std::micro>(e2 - e).count());
  }
  std::sort(t0.begin(), t0.end()); std::sort(t1.begin(), t1.end());
  const double fl = 2.0 * m * n * k / 1e3;
  std::printf("huge=%d ", huge); std::printf("m=%d bk=%d  B streamed %.0f us (%.0f GF/s, %.1f GB/s)  B one row (L1) %.0f us (%.0f GF/s)\n", m, bk, t0[12],
              fl / t0[12], 4.0 * n * k / 1e3 / t0[12], t1[12], fl / t1[12]);
}
