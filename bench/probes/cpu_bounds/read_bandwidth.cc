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

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

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
  // Each thread touches its own part first, so its pages are where it runs.
  const std::size_t part = floats / std::size_t(threads) / 64 * 64;
  std::vector<double> seconds;
  // The threads alone meet at the barriers and the first of them keeps the time: a timing
  // thread of its own would be a third thread on two cores, and late to read the clock.
  std::barrier sync(threads);
  std::atomic<float> sink{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      float* mine = data + std::size_t(t) * part;
      for (std::size_t i = 0; i < part; ++i) mine[i] = float(i & 7);
      for (int r = 0; r <= repeats; ++r) {
        sync.arrive_and_wait();  // start together
        const auto begin = std::chrono::steady_clock::now();
        sink.fetch_add(sum_floats(mine, part), std::memory_order_relaxed);
        sync.arrive_and_wait();  // the pass ends when the last thread ends
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (t == 0 && r > 0) seconds.push_back(s);  // the first pass pages the buffer in
      }
    });
  }
  for (auto& thread : pool) thread.join();
  std::sort(seconds.begin(), seconds.end());
  const double bytes = double(part) * threads * sizeof(float);
  const double best = seconds.front(), median = seconds[seconds.size() / 2];
  std::printf("read %zu MiB with %d threads, %d passes: best %.1f us (%.1f GB/s), median %.1f us (%.1f GB/s)%s\n",
              mib, threads, repeats, best * 1e6, bytes / best / 1e9, median * 1e6, bytes / median / 1e9,
              sink.load() < 0 ? " " : "");
  std::free(data);
  return 0;
}
