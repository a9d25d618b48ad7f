// Raw calls of the tile kernel (two builds of the header) against libxsmm's JIT kernel:
//   ./hdrmain M N K MR NV   (e.g. 8 8 1 8 1 for the fixed cost at k = 1)
#include <libxsmm.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cpu_kernels.h"
using namespace gemmtune::cpu;
extern "C" CpuGemmFn tile_orig(int, int);
extern "C" CpuGemmFn tile_mod(int, int);
int main(int argc, char** argv) {
  const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]); int mr = atoi(argv[4]), nv = atoi(argv[5]);
  CpuGemmParams P; P.m = M; P.n = N; P.k = K; P.a_rs = K; P.a_ks = 1; P.b_ks = N; P.b_cs = 1; P.ldc = N;
  float* A = (float*)aligned_alloc(64, 4096 * 64); float* B = (float*)aligned_alloc(64, 4096 * 64); float* C = (float*)aligned_alloc(64, 4096 * 64); float* C2 = (float*)aligned_alloc(64, 4096 * 64);
  for (int i = 0; i < 4096 * 16; ++i) { A[i] = (i % 7) * 0.25f; B[i] = (i % 5) * 0.5f; C[i] = C2[i] = 0; }
  libxsmm_init();
  float alpha = 1, beta = 0; int flags = 0, pf = 0; libxsmm_blasint mm = N, nn = M, kk = K, lda = N, ldb = K, ldc = N;
  libxsmm_smmfunction lx = libxsmm_smmdispatch(mm, nn, kk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
  CpuGemmFn fo = tile_orig(mr, nv), fm = tile_mod(mr, nv);
  fo(P, A, B, C); fm(P, A, B, C2);
  for (int i = 0; i < M * N; ++i) if (C[i] != C2[i]) { printf("mismatch at %d: %g vs %g\n", i, C[i], C2[i]); return 1; }
  const int calls = 20000;
  std::vector<double> t[3];
  for (int r = 0; r < 41; ++r)
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) { if (i == 0) lx(B, A, C); else if (i == 1) fo(P, A, B, C); else fm(P, A, B, C); asm volatile("" ::: "memory"); }
      auto t1 = std::chrono::steady_clock::now();
      t[i].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
  const char* names[] = {"libxsmm", "orig", "mod"};
  for (int i = 0; i < 3; ++i) { std::sort(t[i].begin(), t[i].end()); printf("%ldx%ldx%ld %-8s %6.1f ns (min %6.1f)\n", M, N, K, names[i], t[i][20], t[i][0]); }
}
