// Reads a 4096 x 4096 f32 matrix (64 MiB) with two threads, each its half of every row,
// U rows at once (U streams per thread); prints the median of 15 runs and GB/s.
//   g++ -O3 -mavx512f -o bw bw.cc -lpthread && for u in 1 2 4 8 16 32; do ./bw $u; done
#include <immintrin.h>
#include <thread>
#include <vector>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
int main(int argc, char** argv) {
  const int U = argc > 1 ? atoi(argv[1]) : 1;
  const int n = 4096, k = 4096;
  std::vector<float> b(size_t(n) * k, 1.0f);
  std::vector<double> ts;
  volatile float sink;
  for (int r = 0; r < 15; ++r) {
    auto s = std::chrono::steady_clock::now();
    auto body = [&](int t) {
      __m512 acc = _mm512_setzero_ps();
      for (int p = 0; p < k; p += U)
        for (int j = t * 2048; j < t * 2048 + 2048; j += 16)
          for (int u = 0; u < U; ++u) acc = _mm512_max_ps(acc, _mm512_loadu_ps(&b[size_t(p + u) * n + j]));
      sink = _mm512_reduce_add_ps(acc);
    };
    std::thread th(body, 1);
    body(0);
    th.join();
    ts.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(ts.begin(), ts.end());
  printf("U=%d median %.0f us = %.1f GB/s\n", U, ts[7], 64.0 * 1048576 / ts[7] / 1e3);
}
