// Where the two-thread rows kernel's time goes at 64³ (and 48³): one call at a time, timed
// with the TSC, the worker's start and both threads' ends taken inside the task; the median
// call against the mean, and the calls that stalled for more than 4 µs, by size. Built from
// the library's header (AVX-512 flags of src/CMakeLists.txt) against libgemmtune.a:
//   g++ -O3 -std=c++20 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c
//       -Iinclude -Isrc -Isrc/backends/cpu probe-pool-stalls.cc build/lib/libgemmtune.a -lpthread
// and run as ./a.out M N K ROWS_ON_THE_CALLER THREADS (1 or 2) [PAUSE_US [CALLS]], A row-major,
// B row-major. PAUSE_US > 0 sleeps that long before each call (the workers fall asleep after
// 100 µs of spinning): the first call after a pause, as a program that calls sporadically
// sees it.
#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "cpu_direct_gemm.h"
#include <x86intrin.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <chrono>
#include <thread>
using namespace gemmtune;
using namespace gemmtune::cpu;
using namespace gemmtune::cpu::avx512;
struct Ctx { CpuGemmParams P; float *A, *B, *C; long rows0; unsigned long long start[2], end[2]; };
int main(int argc, char** argv) {
  const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]), rows0 = atol(argv[4]);
  const int threads = atoi(argv[5]);
  const long pause_us = argc > 6 ? atol(argv[6]) : 0, calls = argc > 7 ? atol(argv[7]) : 20000;
  Ctx x;
  x.P.m = M; x.P.n = N; x.P.k = K; x.P.a_rs = K; x.P.a_ks = 1; x.P.b_ks = N; x.P.b_cs = 1; x.P.ldc = N;
  x.P.alpha = 1; x.P.beta = 0; x.P.threads = 1; x.rows0 = rows0;
  x.A = (float*)aligned_alloc(64, 4096 * 64); x.B = (float*)aligned_alloc(64, 4096 * 64); x.C = (float*)aligned_alloc(64, 4096 * 64);
  for (int i = 0; i < 4096 * 16; ++i) { x.A[i] = (i % 7) * 0.25f; x.B[i] = (i % 5) * 0.5f; x.C[i] = 0; }
  // Rows [0, rows0) on the caller, the rest on the worker (4 × 4-vector tiles, as the tuner's pick).
  auto task = [](void* c, int t, int n) {
    Ctx& x = *static_cast<Ctx*>(c);
    x.start[t] = __rdtsc();
    const long i0 = n == 1 || t == 0 ? 0 : x.rows0, i1 = n == 1 ? x.P.m : t == 0 ? x.rows0 : x.P.m;
    rows_range<DType::f32, DType::f32, 4, 4, true>(x.P, x.A, x.B, x.C, i0, i1, 0, x.P.n);
    x.end[t] = __rdtsc();
  };
  const double ghz = 2.096;  // the TSC's rate on the development machine (BogoMIPS / 2)
  std::vector<double> total, start, end0, end1;
  for (long r = 0; r < calls; ++r) {
    if (pause_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
    const unsigned long long t0 = __rdtsc();
    parallel_run(threads, task, &x);
    total.push_back(double(__rdtsc() - t0) / ghz);
    if (threads == 2) {
      start.push_back((double(x.start[1]) - double(t0)) / ghz);
      end0.push_back((double(x.end[0]) - double(t0)) / ghz);
      end1.push_back((double(x.end[1]) - double(t0)) / ghz);
    }
  }
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  double sum = 0;
  std::vector<int> by_size(12);
  int stalls = 0;
  double stalled = 0;
  for (double ns : total) {
    sum += ns;
    if (ns > 4000) {
      ++stalls;
      stalled += ns;
      int b = 0;
      while (b < 11 && ns / 1000 > (4 << b)) ++b;
      by_size[b]++;
    }
  }
  printf("%ldx%ldx%ld, %d thread(s), caller rows [0, %ld), pause %ld us: median %.0f ns, mean %.0f ns\n", M, N, K,
         threads, threads == 2 ? rows0 : M, pause_us, median(total), sum / total.size());
  if (threads == 2) {
    printf("  medians: worker starts at %.0f ns, caller ends at %.0f ns, worker ends at %.0f ns\n", median(start),
           median(end0), median(end1));
  }
  printf("  calls over 4 us: %d of %zu, %.0f ns each on average; by size (up to N us):", stalls, total.size(),
         stalls ? stalled / stalls : 0.0);
  for (int b = 0; b < 12; ++b) if (by_size[b]) printf(" %d:%d", 4 << b, by_size[b]);
  printf("\n");
}
