// The CPU kernels' fork/join (src/backends/cpu/cpu_thread_pool.h): every share runs once,
// before the call returns, whether the workers are spinning, asleep, or late.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_thread_pool.h"

namespace gemmtune::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// What each share of one call saw.
struct Shares {
  std::vector<std::atomic<int>> runs;
  std::vector<std::thread::id> ran_on;
  std::atomic<int> wrong_count{0};
  explicit Shares(int threads) : runs(std::size_t(threads)), ran_on(std::size_t(threads)) {}
};

void count_share(void* context, int thread, int threads) {
  auto& shares = *static_cast<Shares*>(context);
  if (threads != int(shares.runs.size())) shares.wrong_count.fetch_add(1);
  shares.ran_on[std::size_t(thread)] = std::this_thread::get_id();
  shares.runs[std::size_t(thread)].fetch_add(1);
}

// The threads a call gets: what it asks for, capped at the workers and the caller.
int granted(int asked) { return std::max(1, std::min(asked, pool_workers() + 1)); }

RC_GTEST_PROP(ThreadPool, EveryShareRunsExactlyOnceBeforeTheCallReturns, ()) {
  // Pauses between calls that leave the workers spinning (0), about to sleep, and asleep.
  const int calls = *rc::gen::inRange(1, 40);
  for (int call = 0; call < calls; ++call) {
    const int asked = *rc::gen::inRange(1, 9);
    const int pause_us = *rc::gen::element(0, 0, 90, 400);
    if (pause_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
    // The pool may cap the count; the shares are then what it granted. Run with the grant so
    // the test can check every share.
    Shares shares(granted(asked));
    parallel_run(granted(asked), count_share, &shares);
    RC_ASSERT(shares.wrong_count.load() == 0);
    for (const std::atomic<int>& runs : shares.runs) RC_ASSERT(runs.load() == 1);
  }
}

TEST(ThreadPool, AWorkerAwakeRunsItsShareAlongsideTheCaller) {
  if (pool_workers() < 1) GTEST_SKIP() << "one logical core: no pool workers";
  // Share 0 waits (up to a second) for share 1 to start: it can only see that if share 1 runs
  // on a worker at the same time, which a worker does whether it was spinning or asleep.
  struct Meeting {
    std::atomic<bool> second_started{false};
    bool met = false;
  };
  for (int trial = 0; trial < 5; ++trial) {
    Meeting meeting;
    parallel_run(
        2,
        [](void* context, int thread, int) {
          auto& m = *static_cast<Meeting*>(context);
          if (thread == 1) {
            m.second_started.store(true);
            return;
          }
          const auto deadline = Clock::now() + std::chrono::seconds(1);
          while (!m.second_started.load() && Clock::now() < deadline) std::this_thread::yield();
          m.met = m.second_started.load();
        },
        &meeting);
    EXPECT_TRUE(meeting.met) << "trial " << trial;
    std::this_thread::sleep_for(std::chrono::milliseconds(trial % 2 ? 2 : 0));
  }
}

TEST(ThreadPool, AShareItsSleepingWorkerHasNotTakenRunsOnTheCaller) {
  if (pool_workers() < 1) GTEST_SKIP() << "one logical core: no pool workers";
  // After a pause far longer than the workers spin, the worker is asleep: the caller's own
  // share (nothing) ends long before the worker wakes, and the caller runs share 1 itself. A
  // worker that wakes first on some trial is not wrong (on a loaded machine the caller can lose
  // its core for a while), so one trial of up to two hundred is asked for.
  int on_caller = 0;
  for (int trial = 0; trial < 200 && on_caller == 0; ++trial) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    Shares shares(2);
    parallel_run(2, count_share, &shares);
    ASSERT_EQ(shares.runs[0].load(), 1);
    ASSERT_EQ(shares.runs[1].load(), 1);
    on_caller += shares.ran_on[1] == std::this_thread::get_id();
  }
  EXPECT_GE(on_caller, 1);
}

}  // namespace
}  // namespace gemmtune::cpu
