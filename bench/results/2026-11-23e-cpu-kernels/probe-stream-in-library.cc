// The stream kernel as the library prepares it, W at a chosen offset, alternating with dnnl_sgemm.
#include <gemmtune/session.h>
#include <dnnl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace gemmtune;
void standalone_stream(long M, long N, long K, const float* a, const float* b, float* c);
int main(int argc, char** argv) {
  const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
  const char* cfg = argv[4];
  const int off = argc > 5 ? atoi(argv[5]) : 0;
  std::unique_ptr<Session> session;
  std::unique_ptr<GemmKernel> kern;
  if (!getenv("NOSESSION")) {
    session = std::move(Session::create()).value();
    auto pr = Problem::create(M, N, K, DType::f32); Problem p = *pr;
    auto config = KernelConfig::parse(cfg);
    kern = std::move((session)->kernel(p, "cpu", *config)).value();
  }
  auto* kernel = &kern;
  float* A = (float*)aligned_alloc(64, M * K * 4 + 256) + off;
  float* B = (float*)aligned_alloc(64, N * K * 4 + 256) + off;
  float* C = (float*)aligned_alloc(64, M * N * 4 + 256) + off;
  std::vector<float> C2(M * N);
  for (long i = 0; i < M * K; ++i) A[i] = float(rand() % 100) / 100.f;
  for (long i = 0; i < N * K; ++i) B[i] = float(rand() % 100) / 100.f;
  auto now = [] { return std::chrono::steady_clock::now(); };
  std::vector<double> ta, tb;
  const int rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 60; for (int r = 0; r < rounds; ++r) {
    auto t0 = now(); if (getenv("STANDALONE")) standalone_stream(M, N, K, A, B, C); else (void)(*kernel)->run(A, B, C); auto t1 = now();
    if (!getenv("NO_DNNL")) dnnl_sgemm('N', 'N', M, N, K, 1.f, A, K, B, N, 0.f, C2.data(), N); auto t2 = now();
    ta.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    tb.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  std::sort(ta.begin(), ta.end()); std::sort(tb.begin(), tb.end());
  double err = 0; for (long j = 0; j < M * N; ++j) err = std::max(err, (double)std::abs(C[j] - C2[j]) / (1 + std::abs(C2[j])));
  printf("%ldx%ldx%ld %s off=%d: ours %.0f us, dnnl_sgemm %.0f us, ratio %.2f relerr %g\n", M, N, K, cfg, off, ta[ta.size()/2], tb[tb.size()/2], tb[tb.size()/2] / ta[ta.size()/2], err);
}
