// Standalone tile kernels against libxsmm's JIT kernel (raw calls, no handles), to find why
// the library's 16-row tile ran 1.3x libxsmm's time: tileA takes A's row stride at run time
// (GCC keeps a pointer per row and parks them in vector registers), tileB unrolls a constant
// k, tileC and tileF have the stride as a constant (libxsmm's case; tileF without tileC's
// zeroed stack array), tileE copies each 16-wide chunk of A to the stack first (slower: the
// broadcasts wait on the copies' stores), tileG addresses rows by threes (what
// cpu_direct_gemm.h now does). The last column is chosen in main (tileG as committed).
//   g++ -O3 -mavx512f -mavx512vl -mavx512bw -mavx512dq -mfma -mprefer-vector-width=512 \
//       -std=c++20 probe-tile-addressing.cc /usr/lib/libxsmm.a /usr/lib/libxsmmnoblas.a -lpthread -ldl -lm
//   ./a.out 16 16 16
#include <immintrin.h>
#include <cstdint>
#include <libxsmm.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
struct P { long m, n, k, lda, ldb, ldc; };
template <int MR>
__attribute__((noinline)) void tileA(const P& p, const float* a, const float* b, float* c) {
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long k = p.k, lda = p.lda, ldb = p.ldb;
  #pragma GCC unroll 4
  for (long q = 0; q < k; ++q) {
    __m512 bv = _mm512_maskz_loadu_ps(m, b + q * ldb);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + q]), bv, acc[r]);
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]);
}
template <int MR, int K>
__attribute__((noinline)) void tileB(const P& p, const float* a, const float* b, float* c) {
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long lda = p.lda, ldb = p.ldb;
  #pragma GCC unroll 64
  for (long q = 0; q < K; ++q) {
    __m512 bv = _mm512_maskz_loadu_ps(m, b + q * ldb);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + q]), bv, acc[r]);
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]);
}
template <int MR, int LDA>
__attribute__((noinline)) void tileC(const P& p, const float* a, const float* b, float* c) {
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long k = p.k, ldb = p.ldb;
  #pragma GCC unroll 4
  for (long q = 0; q < k; ++q) {
    __m512 bv = _mm512_maskz_loadu_ps(m, b + q * ldb);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * LDA + q]), bv, acc[r]);
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]);
}
// Rows of A at constant offsets from a stack copy of each 16-wide chunk of k.
template <int MR>
__attribute__((noinline)) void tileE(const P& p, const float* a, const float* b, float* c) {
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long k = p.k, lda = p.lda, ldb = p.ldb;
  alignas(64) float buf[MR][16];
  for (long q0 = 0; q0 < k; q0 += 16) {
    const int cnt = k - q0 >= 16 ? 16 : int(k - q0);
    const __mmask16 km = __mmask16((1u << cnt) - 1);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) _mm512_store_ps(buf[r], _mm512_maskz_loadu_ps(km, a + r * lda + q0));
    const float* bp = b + q0 * ldb;
    if (cnt == 16) {
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q) {
        __m512 bv = _mm512_maskz_loadu_ps(m, bp + q * ldb);
#pragma GCC unroll 32
        for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(buf[r][q]), bv, acc[r]);
      }
    } else {
      for (int q = 0; q < cnt; ++q) {
        __m512 bv = _mm512_maskz_loadu_ps(m, bp + q * ldb);
#pragma GCC unroll 32
        for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(buf[r][q]), bv, acc[r]);
      }
    }
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]);
}
template <int MR, int LDA, bool MASK>
__attribute__((noinline)) void tileF(const P& p, const float* a, const float* b, float* c) {
  __m512 acc[MR];
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long k = p.k, ldb = p.ldb;
  #pragma GCC unroll 4
  for (long q = 0; q < k; ++q) {
    __m512 bv = MASK ? _mm512_maskz_loadu_ps(m, b + q * ldb) : _mm512_loadu_ps(b + q * ldb);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * LDA + q]), bv, acc[r]);
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) if (MASK) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]); else _mm512_storeu_ps(c + r * p.ldc, acc[r]);
}
// Rows of A as base + {0,1,2}·lda: one pointer per three rows, the others by scaled index.
template <int MR>
__attribute__((noinline)) void tileG(const P& p, const float* a, const float* b, float* c) {
  constexpr int NB = (MR + 2) / 3;
  __m512 acc[MR];
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  const __mmask16 m = __mmask16((1u << p.n) - 1);
  const long k = p.k, ldb = p.ldb, lda = p.lda;
  const float* base[NB];
#pragma GCC unroll 16
  for (int j = 0; j < NB; ++j) base[j] = a + 3 * j * lda;
  const float* bp = b;
  #pragma GCC unroll 4
  for (long q = 0; q < k; ++q) {
    __m512 bv = _mm512_maskz_loadu_ps(m, bp);
    bp += ldb;
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(base[r / 3][(r % 3) * lda]), bv, acc[r]);
#pragma GCC unroll 16
    for (int j = 0; j < NB; ++j) ++base[j];
  }
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_ps(c + r * p.ldc, m, acc[r]);
}
using Fn = void (*)(const P&, const float*, const float*, float*);
int main(int argc, char** argv) {
  const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
  P p{M, N, K, K, N, N};
  float* A = (float*)aligned_alloc(64, 4096 * 64); float* B = (float*)aligned_alloc(64, 4096 * 64); float* C = (float*)aligned_alloc(64, 4096 * 64);
  for (int i = 0; i < 4096 * 16; ++i) A[i] = B[i] = C[i] = 0.5f;
  libxsmm_init();
  float alpha = 1, beta = 0; int flags = 0, pf = 0; libxsmm_blasint mm = N, nn = M, kk = K, lda = N, ldb = K, ldc = N;
  libxsmm_smmfunction lx = libxsmm_smmdispatch(mm, nn, kk, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
  Fn fa = M == 8 ? tileA<8> : M == 16 ? tileA<16> : tileA<13>;
  Fn fb = M == 8 ? (K == 8 ? tileB<8, 8> : tileB<8,16>) : M == 16 ? tileB<16, 16> : tileB<13, 29>;
  Fn fc = M == 8 ? tileG<8> : M == 16 ? tileG<16> : tileG<13>;
  const int calls = 20000;
  std::vector<double> t[4];
  for (int r = 0; r < 41; ++r) {
    for (int i = 0; i < 4; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) {
        if (i == 0) lx(B, A, C); else if (i == 1) fa(p, A, B, C); else if (i == 2) fb(p, A, B, C); else fc(p, A, B, C);
        asm volatile("" ::: "memory");
      }
      auto t1 = std::chrono::steady_clock::now();
      t[i].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
  }
  const char* names[] = {"libxsmm raw", "tileA runtime k", "tileB const K", "tileG 3-row bases"};
  for (int i = 0; i < 4; ++i) { std::sort(t[i].begin(), t[i].end()); printf("%ldx%ldx%ld %-20s %6.1f ns (min %6.1f)\n", M, N, K, names[i], t[i][20], t[i][0]); }
}
