// Timed passes of the cpu_bounds probes: `threads` threads run `pass(t)` together, `repeats`
// times after one untimed pass (which pages buffers in and wakes the cores). The threads alone
// meet at the barriers and the first of them keeps the time: a timing thread of its own would
// be one more thread than cores, and late to read the clock. A pass ends when its last thread
// ends.
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

// Seconds of each timed pass, fastest first.
template <class Pass>
std::vector<double> timed_passes(int threads, int repeats, Pass pass) {
  std::barrier sync(threads);
  std::vector<double> seconds;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int r = 0; r <= repeats; ++r) {
        sync.arrive_and_wait();
        const auto begin = std::chrono::steady_clock::now();
        pass(t);
        sync.arrive_and_wait();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (t == 0 && r > 0) seconds.push_back(s);
      }
    });
  }
  for (auto& thread : pool) thread.join();
  std::sort(seconds.begin(), seconds.end());
  return seconds;
}
