// The memory bound of a skinny product on this CPU: how long `threads` threads take to read a
// buffer of `mib` MiB once, each its own contiguous half, again and again as a benchmark of
// one GEMM re-reads its weights. A 1 × 4096 × 4096 f32 product reads 64 MiB of B, so its time
// can be no lower than this probe's at 64 MiB (the rest of its traffic is a few KiB).
//
//   read_bandwidth [mib] [threads] [repeats]      defaults 64 2 50
//
// Prints the best and the median time of a pass and the bandwidth they mean. 256-bit loads
// summed into eight accumulators: the loop is bound by loads, not by the adds' latency.
#include <immintrin.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "passes.h"

namespace {

__attribute__((target("avx2"))) float sum_floats(const float* p, std::size_t n) {
  __m256 s[8];
  for (auto& v : s) v = _mm256_setzero_ps();
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    for (int u = 0; u < 8; ++u) s[u] = _mm256_add_ps(s[u], _mm256_load_ps(p + i + 8 * u));
  }
  for (int u = 1; u < 8; ++u) s[0] = _mm256_add_ps(s[0], s[u]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s[0]);
  float total = 0;
  for (float x : lanes) total += x;
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 50;
  if (mib == 0 || threads <= 0 || repeats <= 0) {
    std::fprintf(stderr, "usage: read_bandwidth [mib > 0] [threads > 0] [repeats > 0]\n");
    return 2;
  }
  const std::size_t floats = mib << 18;
  auto* data = static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float)));
  if (data == nullptr) {
    std::fprintf(stderr, "read_bandwidth: cannot allocate %zu MiB\n", mib);
    return 1;
  }
  const std::size_t part = floats / std::size_t(threads) / 64 * 64;
  // Each thread writes its own part in its untimed first pass, so its pages are where it runs.
  std::vector<char> touched(threads, 0);  // char, not bool: each thread writes its own
  std::atomic<float> sink{0};
  const std::vector<double> seconds = timed_passes(threads, repeats, [&](int t) {
    float* mine = data + std::size_t(t) * part;
    if (!touched[t]) {
      for (std::size_t i = 0; i < part; ++i) mine[i] = float(i & 7);
      touched[t] = 1;
    }
    sink.fetch_add(sum_floats(mine, part), std::memory_order_relaxed);
  });
  const double bytes = double(part) * threads * sizeof(float);
  const double best = seconds.front(), median = seconds[seconds.size() / 2];
  std::printf("read %zu MiB with %d threads, %d passes: best %.1f us (%.1f GB/s), median %.1f us (%.1f GB/s)%s\n",
              mib, threads, repeats, best * 1e6, bytes / best / 1e9, median * 1e6, bytes / median / 1e9,
              sink.load() < 0 ? " " : "");
  std::free(data);
  return 0;
}
