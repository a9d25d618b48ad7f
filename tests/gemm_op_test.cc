#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/device_call_timer.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "gemmtune/op.h"
#include "session/in_use_watch.h"
#include "store/route_record.h"
#include "store/store_entry.h"
#include "store/temp_dir.h"
#include "store/tuning_store.h"

namespace gemmtune {
namespace {

SessionOptions fast_options() {
  SessionOptions options;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 0;
  // No store: a pick or route left by an earlier run in the user's cache would be loaded
  // instead of decided here.
  options.store.mode = StoreMode::off;
  return options;
}

ProblemSpec square_family() {
  ProblemSpec family;
  family.m = family.n = family.k = kDynamic;
  return family;
}

TEST(NearestHint, PicksTheHintWithTheSmallestLog2Distance) {
  const std::vector<std::array<std::int64_t, 3>> hints = {{64, 64, 64}, {256, 256, 256}, {4096, 4096, 4096}};
  EXPECT_EQ(nearest_hint(hints, {64, 64, 64}), 0);
  EXPECT_EQ(nearest_hint(hints, {100, 100, 100}), 0);   // |6-6.64|·6 = 3.8 vs |8-6.64|·6 = 8.2
  EXPECT_EQ(nearest_hint(hints, {200, 200, 200}), 1);
  EXPECT_EQ(nearest_hint(hints, {1500, 1500, 1500}), 2);  // log2 1500 = 10.55: 1.45 from 4096, 2.55 from 256
  EXPECT_EQ(nearest_hint(hints, {0, 0, 0}), 0);           // dims below 1 count as 1
}

TEST(NearestHint, CountsEveryTensorDimOfAAndBAndC) {
  // m = 64 matches hint 0 exactly, n = k = 4096 match hint 2: distances 2·12·… decide.
  const std::vector<std::array<std::int64_t, 3>> hints = {{64, 64, 64}, {4096, 4096, 4096}};
  // hint 0: m 0, n 6, k 6 → each dim appears twice: 2·(0 + 6 + 6) = 24; hint 1: 2·(6 + 0 + 0) = 12.
  EXPECT_EQ(nearest_hint(hints, {64, 4096, 4096}), 1);
}

TEST(NearestHint, TiesGoToTheLowestIndex) {
  const std::vector<std::array<std::int64_t, 3>> hints = {{64, 64, 64}, {256, 256, 256}};
  EXPECT_EQ(nearest_hint(hints, {128, 128, 128}), 0);  // exactly between: 1 each way per dim
}

TEST(NearestHint, FallbackOrderIsNearestFirstWithTiesByIndex) {
  const std::vector<std::array<std::int64_t, 3>> hints = {{64, 64, 64}, {256, 256, 256}, {4096, 4096, 4096}};
  // 1500: 8.7 from 4096, 15.3 from 256, 27.3 from 64 (sums over the six tensor dims).
  EXPECT_EQ(hints_by_distance(hints, {1500, 1500, 1500}), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(hints_by_distance(hints, {100, 100, 100}), (std::vector<int>{0, 1, 2}));
  const std::vector<std::array<std::int64_t, 3>> two = {{64, 64, 64}, {256, 256, 256}};
  EXPECT_EQ(hints_by_distance(two, {128, 128, 128}), (std::vector<int>{0, 1}));  // a tie: lower index first
}

TEST(Route, ParsesEveryPolicyAndRejectsOthers) {
  EXPECT_EQ(Route::parse("benchmark")->policy, RoutePolicy::benchmark);
  EXPECT_EQ(Route::parse("distance")->policy, RoutePolicy::distance);
  EXPECT_EQ(Route::parse("autotune")->policy, RoutePolicy::autotune);
  EXPECT_EQ(Route::parse("fixed:2")->fixed_index, 2);
  EXPECT_FALSE(Route::parse("fixed:").is_ok());
  EXPECT_FALSE(Route::parse("fastest").is_ok());
  EXPECT_EQ(Route::parse("fixed:3")->to_string(), "fixed:3");
}

// A timer that says sub-kernel `fastest` runs in 1 unit and the others in `slower` units or
// more (10x slower by default); counts its calls. The unit is 1 ns by default: far below any
// real product's time, so the calls in use always read slower than the rival did and the
// in-use check always revisits. A unit of a second makes every route hold instead.
struct FavouringTimer {
  int calls = 0;
  std::size_t fastest = 0;
  double slower = 10.0;
  double unit_us = 1e-3;
  std::vector<Result<TimingStats>> operator()(const Problem&, const std::vector<GemmKernel*>& kernels) {
    ++calls;
    std::vector<Result<TimingStats>> stats;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      TimingStats t;
      t.median_us = unit_us * (i == fastest ? 1.0 : slower + double(i));
      t.samples = 1;
      stats.emplace_back(t);
    }
    return stats;
  }
};

// A session of our own CPU kernels, for ops with hints 32, 64 and 256: past the tile kernels'
// heights, so every sub-kernel can run 100³ and 200³ (a tile or libxsmm kernel picked for a tiny
// hint could not, and would not be timed).
std::unique_ptr<Session> own_kernels_session(SessionOptions options = fast_options()) {
  options.tuning.backends = {"cpu"};
  return *Session::create(options);
}

GemmOpOptions three_hints_timed_by(const std::shared_ptr<FavouringTimer>& timer) {
  GemmOpOptions options;
  options.hints = {32, 64, 256};
  options.timer = [timer](const Problem& p, const std::vector<GemmKernel*>& k) { return (*timer)(p, k); };
  return options;
}

// A session's options with a store in `dir`, as processes that share a tuning file have.
SessionOptions stored_options(const testing::TempDir& dir) {
  SessionOptions options = fast_options();
  options.store.mode = StoreMode::read_write;
  options.store.path = dir.file("tuning.sqlite");
  return options;
}

// The op, or null where every hint picked the same kernel on this machine: nothing to route
// between, and the caller skips.
std::unique_ptr<GemmOp> routing_op(Session& session, const GemmOpOptions& options) {
  auto op = GemmOp::create(session, square_family(), options);
  EXPECT_TRUE(op.is_ok()) << op.status().to_string();
  if (!op.is_ok() || (*op)->sub_kernels().size() < 2) return nullptr;
  return std::move(op).value();
}

// Two sub-kernels forced apart by restricting backends per hint is not possible through the
// API, so the injected timer decides among however many the hints produced.
TEST(GemmOp, BenchmarkRoutingKeepsTheSubKernelTheTimerSaysIsFastest) {
  auto session = own_kernels_session();
  auto timer = std::make_shared<FavouringTimer>();
  auto op = GemmOp::create(*session, square_family(), three_hints_timed_by(timer));
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  const std::size_t subs = (*op)->sub_kernels().size();
  timer->fastest = subs - 1;  // the timer favours the last sub-kernel
  auto route = (*op)->route(100, 100, 100);
  ASSERT_TRUE(route.is_ok()) << route.status().to_string();
  EXPECT_EQ(*route, int(timer->fastest));
  EXPECT_EQ(timer->calls, subs > 1 ? 1 : 0);
  // A known shape is not timed again.
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(timer->fastest));
  EXPECT_EQ(timer->calls, subs > 1 ? 1 : 0);
}

// The benchmark route decides as the tuner's final round does: sub-kernels the rounds leave
// close to the fastest are timed again among themselves, and the rounds (not one median each)
// decide. Here the first timing ties the first two sub-kernels; the second run separates them.
TEST(GemmOp, BenchmarkRoutingTimesACloseFinishAgainAndDecidesByTheRounds) {
  auto session = own_kernels_session();
  GemmOpOptions options;
  options.hints = {32, 64, 256};
  std::vector<std::size_t> timed;  // kernels per timer call
  options.timer = [&](const Problem&, const std::vector<GemmKernel*>& kernels) {
    timed.push_back(kernels.size());
    const bool close_finish = timed.size() == 2;
    std::vector<Result<TimingStats>> stats;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      TimingStats t;
      if (!close_finish) {
        // Sub-kernel 1 against 0, round by round: 1.03 0.98 1.01 0.99 1.02 1.00 0.99.
        const std::vector<double> tie = {10.3, 9.8, 10.1, 9.9, 10.2, 10.0, 9.9};
        t.sample_us = i == 0 ? std::vector<double>(7, 10.0) : i == 1 ? tie : std::vector<double>(7, 20.0);
      } else {
        t.sample_us = std::vector<double>(14, i == 0 ? 10.0 : 9.0);
      }
      t.median_us = median_of(t.sample_us);
      t.samples = int(t.sample_us.size());
      stats.emplace_back(t);
    }
    return stats;
  };
  auto op = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  const std::size_t subs = (*op)->sub_kernels().size();
  if (subs < 2) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
  auto route = (*op)->route(100, 100, 100);
  ASSERT_TRUE(route.is_ok()) << route.status().to_string();
  // Both sub-kernels of the tie, and no other, were timed again, and the second run decided.
  EXPECT_EQ(timed, (std::vector<std::size_t>{subs, 2}));
  EXPECT_EQ(*route, 1);
}

// Runs op at n³ `calls` times on real operands.
void run_calls(GemmOp& op, std::int64_t n, int calls) {
  auto problem = op.problem_at(n, n, n);
  ASSERT_TRUE(problem.is_ok());
  TestBuffers buffers(*problem, 5);
  std::vector<float> c(std::size_t(problem->c_elements()));
  for (int i = 0; i < calls; ++i) ASSERT_TRUE(op.run(n, n, n, buffers.a(), buffers.b(), c.data()).is_ok());
}

// A routed shape whose calls in use run slower than its rival did is routed once more after
// its revisit_after_calls-th call: when the timings then favour another sub-kernel it changes,
// and it is never revisited again.
TEST(GemmOp, ABenchmarkRouteIsRevisitedOnceWhenInUse) {
  auto session = own_kernels_session();
  auto timer = std::make_shared<FavouringTimer>();
  GemmOpOptions options = three_hints_timed_by(timer);
  options.revisit_after_calls = 5;
  auto op = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  const std::size_t subs = (*op)->sub_kernels().size();
  if (subs < 2) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
  // The first reading favours sub-kernel 0 by 1.5x or more, the revisit the last one by 10x:
  // both weighed together, the last one is faster.
  timer->slower = 1.5;
  EXPECT_EQ(*(*op)->route(100, 100, 100), 0);
  EXPECT_EQ(timer->calls, 1);
  timer->fastest = subs - 1;
  timer->slower = 10.0;
  run_calls(**op, 100, 4);  // route() counted no call: 4 runs are not yet the 5th call
  EXPECT_EQ(timer->calls, 1);
  EXPECT_EQ((*op)->routes_revisited(), 0);
  run_calls(**op, 100, 1);
  EXPECT_EQ(timer->calls, 2);
  EXPECT_EQ((*op)->routes_revisited(), 1);
  EXPECT_EQ((*op)->routes_changed_on_revisit(), 1);
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(subs - 1));
  // The new kernel computes C correctly.
  const Problem p = *(*op)->problem_at(100, 100, 100);
  TestBuffers buffers(p, 9);
  std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
  reference_gemm(p, buffers.a(), buffers.b(), expected.data());
  ASSERT_TRUE((*op)->run(100, 100, 100, buffers.a(), buffers.b(), c.data()).is_ok());
  for (std::size_t e = 0; e < c.size(); ++e) ASSERT_NEAR(c[e], expected[e], 1e-3) << "after the revisit, element " << e;
  // Never again, whatever the timings say later.
  timer->fastest = 0;
  run_calls(**op, 100, 20);
  EXPECT_EQ(timer->calls, 2);
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(subs - 1));
  // 0 turns revisits off.
  options.revisit_after_calls = 0;
  auto quiet = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(quiet.is_ok());
  const int before = timer->calls;
  run_calls(**quiet, 100, 20);
  EXPECT_EQ(timer->calls, before + 1);  // the first routing only
  EXPECT_EQ((*quiet)->routes_revisited(), 0);
}

// The revisit weighs the first decision's rounds with its own: one reading that contradicts
// a clear first one does not move the route (on the 16-core Xeon host a revisit's single
// reading moved a right route of a 3 us product to a kernel 3.5x slower).
TEST(GemmOp, ARevisitDoesNotOverturnAClearFirstReadingOnAWeakerContraryOne) {
  auto session = own_kernels_session();
  auto timer = std::make_shared<FavouringTimer>();
  GemmOpOptions options = three_hints_timed_by(timer);
  options.revisit_after_calls = 2;
  auto op = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  const std::size_t subs = (*op)->sub_kernels().size();
  if (subs < 2) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
  EXPECT_EQ(*(*op)->route(100, 100, 100), 0);  // 10x faster than every other
  timer->fastest = subs - 1;
  timer->slower = 1.5;  // the revisit reads the last one 1.5x faster
  run_calls(**op, 100, 2);
  EXPECT_EQ(timer->calls, 2);
  EXPECT_EQ((*op)->routes_revisited(), 1);
  EXPECT_EQ((*op)->routes_changed_on_revisit(), 0);
  EXPECT_EQ(*(*op)->route(100, 100, 100), 0);
}

// Where both readings together leave a rival within the noise band of the serving sub-kernel,
// the serving one stays, even where the fixed order would favour the rival.
TEST(GemmOp, ARevisitKeepsTheServingSubKernelWithinTheNoiseBand) {
  auto session = own_kernels_session();
  GemmOpOptions options;
  options.hints = {32, 64, 256};
  options.revisit_after_calls = 1;
  int calls = 0;
  std::size_t subs = 0;
  options.timer = [&](const Problem&, const std::vector<GemmKernel*>& kernels) {
    ++calls;
    std::vector<Result<TimingStats>> stats;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const bool first = i == 0, last = i + 1 == kernels.size();
      double us = 10.0;  // sub-kernels between the first and the last: far behind
      if (calls == 1) us = last ? 1e-3 : first ? 1.02e-3 : us;  // the last 2 % ahead: routed there;
      // its rival's 1.02 ns is far below the calls in use, which then read slower
      if (calls == 2) us = first ? 1.0 : last ? 1.03 : us;  // the first 3 % ahead
      if (calls == 3) us = 1.0;                             // the close finish of the two: a tie
      TimingStats t;
      t.sample_us.assign(calls == 3 ? 14 : 7, us);
      t.median_us = us;
      t.samples = int(t.sample_us.size());
      stats.emplace_back(t);
    }
    return stats;
  };
  auto op = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  subs = (*op)->sub_kernels().size();
  if (subs < 2) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(subs - 1));
  EXPECT_EQ(calls, 1);
  // The revisit: 0.98 and 1.03 round by round, so the close finish times the two again (a
  // tie); over all 28 rounds sub-kernel 0 leads by less than the band, and the last one stays.
  run_calls(**op, 100, 1);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ((*op)->routes_revisited(), 1);
  EXPECT_EQ((*op)->routes_changed_on_revisit(), 0);
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(subs - 1));
}

// The revisit is written with the route: another process's op routes the shape from the store
// and does not revisit it.
TEST(GemmOp, ARevisitedRouteIsStoredAndNotRevisitedByTheNextProcess) {
  testing::TempDir dir;
  const SessionOptions session_options = stored_options(dir);
  auto timer = std::make_shared<FavouringTimer>();
  GemmOpOptions options = three_hints_timed_by(timer);
  options.revisit_after_calls = 3;
  std::size_t subs = 0;
  {
    auto session = own_kernels_session(session_options);
    auto op = GemmOp::create(*session, square_family(), options);
    ASSERT_TRUE(op.is_ok()) << op.status().to_string();
    subs = (*op)->sub_kernels().size();
    if (subs < 2) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
    timer->slower = 1.5;  // a first reading the revisit's outweighs
    EXPECT_EQ(*(*op)->route(100, 100, 100), 0);
    timer->fastest = subs - 1;
    timer->slower = 10.0;
    run_calls(**op, 100, 3);
    EXPECT_EQ((*op)->routes_changed_on_revisit(), 1);
    EXPECT_EQ(timer->calls, 2);
  }
  auto session = own_kernels_session(session_options);  // "the next process": a new session on the file
  auto op = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  ASSERT_EQ((*op)->sub_kernels().size(), subs);
  timer->fastest = 0;
  EXPECT_EQ(*(*op)->route(100, 100, 100), int(subs - 1));
  EXPECT_EQ((*op)->routes_from_store(), 1);
  run_calls(**op, 100, 10);
  EXPECT_EQ(timer->calls, 2);
  EXPECT_EQ((*op)->routes_revisited(), 0);
  // A stored route that was not revisited yet is revisited once by the process that loads it.
  auto other = GemmOp::create(*session, square_family(), options);
  ASSERT_TRUE(other.is_ok());
  EXPECT_EQ(*(*other)->route(200, 200, 200), 0);  // decided and stored now, not revisited
  EXPECT_EQ(timer->calls, 3);
  auto third = own_kernels_session(session_options);  // a third process
  auto next = GemmOp::create(*third, square_family(), options);
  ASSERT_TRUE(next.is_ok());
  timer->fastest = subs - 1;
  run_calls(**next, 200, 3);
  EXPECT_EQ((*next)->routes_from_store(), 1);
  EXPECT_EQ((*next)->routes_revisited(), 1);
  EXPECT_EQ(*(*next)->route(200, 200, 200), int(subs - 1));
}

// The record keeps the revisit; a record written before the field existed reads as not
// revisited, and a mistyped field is refused.
// A route whose calls in use run no slower than its fastest rival did is held: not timed again,
// recorded as held, and no later process checks it. Here the timer says the route's kernel
// takes 1 s and its rivals 10 s or more: any real call of 100³ holds against that.
TEST(GemmOp, ARouteWhoseCallsInUseHoldAgainstItsRivalIsNotRevisited) {
  testing::TempDir dir;
  auto timer = std::make_shared<FavouringTimer>();
  timer->unit_us = 1e6;
  GemmOpOptions options = three_hints_timed_by(timer);
  options.revisit_after_calls = 4;
  {
    auto session = own_kernels_session(stored_options(dir));
    auto op = routing_op(*session, options);
    if (!op) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
    EXPECT_FALSE(op->route_settled(100, 100, 100));  // not routed yet
    run_calls(*op, 100, 3);
    EXPECT_EQ(timer->calls, 1);
    EXPECT_EQ(op->routes_held_in_use(), 0);
    EXPECT_FALSE(op->route_settled(100, 100, 100));  // watched: its check is still to come
    run_calls(*op, 100, 1);  // the 4th call: checked, and held
    EXPECT_TRUE(op->route_settled(100, 100, 100));
    EXPECT_EQ(op->routes_held_in_use(), 1);
    EXPECT_EQ(op->routes_revisited(), 0);
    run_calls(*op, 100, 10);
    EXPECT_EQ(timer->calls, 1);
    EXPECT_EQ(op->routes_held_in_use(), 1);
    EXPECT_EQ(*op->route(100, 100, 100), 0);
  }
  // The next process routes the shape from the store and checks it no more, even where its
  // timer would now read every rival faster.
  timer->unit_us = 1e-3;
  auto session = own_kernels_session(stored_options(dir));
  auto op = routing_op(*session, options);
  ASSERT_NE(op, nullptr);
  run_calls(*op, 100, 10);
  EXPECT_TRUE(op->route_settled(100, 100, 100));  // checked by the first process: never watched here
  EXPECT_EQ(op->routes_from_store(), 1);
  EXPECT_EQ(op->routes_held_in_use(), 0);
  EXPECT_EQ(op->routes_revisited(), 0);
  EXPECT_EQ(timer->calls, 1);
}

// The rival's time is stored with the route: a process that loads a route it did not decide
// holds its calls in use against that time, without timing the sub-kernels.
TEST(GemmOp, AStoredRouteIsCheckedAgainstTheRivalTimeItWasDecidedOn) {
  testing::TempDir dir;
  auto timer = std::make_shared<FavouringTimer>();
  GemmOpOptions options = three_hints_timed_by(timer);
  for (const double unit_us : {1e6, 1e-3}) {  // a rival at 11 s, then at 11 ns
    const std::int64_t n = unit_us > 1 ? 100 : 120;
    {
      GemmOpOptions unchecked = options;
      unchecked.revisit_after_calls = 0;  // this process only decides and stores the route
      auto session = own_kernels_session(stored_options(dir));
      auto op = routing_op(*session, unchecked);
      if (!op) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
      timer->unit_us = unit_us;
      EXPECT_EQ(*op->route(n, n, n), 0);
    }
    const int timed_before = timer->calls;
    options.revisit_after_calls = 3;
    auto session = own_kernels_session(stored_options(dir));
    auto op = routing_op(*session, options);
    ASSERT_NE(op, nullptr);
    run_calls(*op, n, 3);
    EXPECT_EQ(op->routes_from_store(), 1);
    if (unit_us > 1) {
      EXPECT_EQ(op->routes_held_in_use(), 1) << "calls of " << n << "³ against a rival's 11 s";
      EXPECT_EQ(timer->calls, timed_before);
    } else {
      EXPECT_EQ(op->routes_revisited(), 1) << "calls of " << n << "³ against a rival's 11 ns";
      EXPECT_EQ(timer->calls, timed_before + 1);
    }
  }
}

TEST(InUseWatch, TheMedianSkipsUnfinishedCallsAndKeepsTheLastSlots) {
  using std::chrono::microseconds;
  InUseWatch none(4);
  EXPECT_EQ(none.median_us(), 0.0);
  InUseWatch watch(3);
  watch.record(0, microseconds(30));
  EXPECT_DOUBLE_EQ(watch.median_us(), 30.0);  // slots 1 and 2 still running: skipped
  watch.record(1, microseconds(10));
  watch.record(2, microseconds(20));
  EXPECT_DOUBLE_EQ(watch.median_us(), 20.0);
  watch.record(3, microseconds(40));  // the 4th call takes the first call's slot
  EXPECT_DOUBLE_EQ(watch.median_us(), 20.0);
  watch.record(4, microseconds(50));
  EXPECT_DOUBLE_EQ(watch.median_us(), 40.0);  // 40, 50, 20
  InUseWatch many(1000);  // only the last kSlots calls are kept
  for (int c = 0; c < 1000; ++c) many.record(c, microseconds(c < 1000 - InUseWatch::kSlots ? 1 : 7));
  EXPECT_DOUBLE_EQ(many.median_us(), 7.0);
  InUseWatch tick(1);
  tick.record(0, std::chrono::nanoseconds(0));  // faster than the clock's tick: still a call
  EXPECT_GT(tick.median_us(), 0.0);
}

// A CPU call returns when its product is done: the host's clock times it, and no device call
// timer is made for it.
TEST(InUseWatch, TheCpuHasNoDeviceCallTimer) {
  auto cpu = find_device("cpu");
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().to_string();
  auto timer = create_device_call_timer(*cpu, 4);
  ASSERT_FALSE(timer.is_ok());
  EXPECT_EQ(timer.status().code(), ErrorCode::unsupported);
  EXPECT_NE(timer.status().message().find("host's clock"), std::string::npos) << timer.status().to_string();
}

TEST(InUseWatch, SlowerThanTheRivalMeansBeyondTheNoiseBand) {
  EXPECT_FALSE(InUseWatch::slower_than_rival(10.0, 10.0, 0.01));
  EXPECT_FALSE(InUseWatch::slower_than_rival(10.1, 10.0, 0.01));   // inside the band
  EXPECT_TRUE(InUseWatch::slower_than_rival(10.11, 10.0, 0.01));   // past it
  EXPECT_FALSE(InUseWatch::slower_than_rival(5.0, 10.0, 0.01));
  EXPECT_TRUE(InUseWatch::slower_than_rival(5.0, 0.0, 0.01));      // no rival time: revisit
  EXPECT_TRUE(InUseWatch::slower_than_rival(0.0, 10.0, 0.01));     // no call timed: revisit
}

TEST(RouteRecord, TheRevisitRoundTripsAndOldRecordsReadAsNotRevisited) {
  const std::string key = route_key("dev", "fam", "32,64", "benchmark", 100, 100, 100);
  RouteRecord record{"cpu", *KernelConfig::parse("mm=4 mn=2")};
  record.revisited = true;
  auto back = parse_route(key, serialize_route(key, record));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(back->revisited);
  EXPECT_EQ(back->config, record.config);
  record.revisited = false;
  const std::string plain = serialize_route(key, record);
  EXPECT_EQ(plain.find("revisited"), std::string::npos);
  EXPECT_FALSE(parse_route(key, plain)->revisited);
  std::string bad = serialize_route(key, RouteRecord{"cpu", record.config, true});
  bad.replace(bad.find("true"), 4, "\"yes\"");
  EXPECT_EQ(parse_route(key, bad).status().code(), ErrorCode::corrupt_data);
}

// The in-use check's fields: "held" and "rival_us" round-trip; records without them read as
// unchecked with no rival time; a mistyped or non-positive value is refused.
TEST(RouteRecord, HeldAndTheRivalTimeRoundTrip) {
  const std::string key = route_key("dev", "fam", "32,64", "benchmark", 100, 100, 100);
  RouteRecord record{"cpu", *KernelConfig::parse("mm=4 mn=2")};
  const std::string plain = serialize_route(key, record);
  EXPECT_EQ(plain.find("held"), std::string::npos);
  EXPECT_EQ(plain.find("rival_us"), std::string::npos);
  EXPECT_FALSE(parse_route(key, plain)->held);
  EXPECT_EQ(parse_route(key, plain)->rival_us, 0.0);
  record.held = true;
  record.rival_us = 12.5;
  auto back = parse_route(key, serialize_route(key, record));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(back->held);
  EXPECT_FALSE(back->revisited);
  EXPECT_DOUBLE_EQ(back->rival_us, 12.5);
  // Edited values, re-signed so that only the field's type or value is wrong.
  for (const std::string& value : {std::string("\"12.5\""), std::string("-1"), std::string("0")}) {
    nlohmann::json body = nlohmann::json::parse(serialize_route(key, record));
    body["rival_us"] = nlohmann::json::parse(value);
    body["checksum"] = "";
    body["checksum"] = json_checksum(body);
    EXPECT_EQ(parse_route(key, body.dump()).status().code(), ErrorCode::corrupt_data) << "rival_us " << value;
  }
  nlohmann::json body = nlohmann::json::parse(serialize_route(key, record));
  body["held"] = 1;
  body["checksum"] = "";
  body["checksum"] = json_checksum(body);
  EXPECT_EQ(parse_route(key, body.dump()).status().code(), ErrorCode::corrupt_data) << "held 1";
}

// "alone" round-trips, is absent from records without it, and must be a boolean.
TEST(RouteRecord, AloneRoundTrips) {
  const std::string key = route_key("dev", "fam", "32,64", "benchmark", 100, 100, 100);
  RouteRecord record{"cpu", *KernelConfig::parse("mm=4 mn=2")};
  const std::string plain = serialize_route(key, record);
  EXPECT_EQ(plain.find("alone"), std::string::npos);
  EXPECT_FALSE(parse_route(key, plain)->alone);
  record.alone = true;
  auto back = parse_route(key, serialize_route(key, record));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(back->alone);
  EXPECT_FALSE(back->held);
  EXPECT_FALSE(back->revisited);
  nlohmann::json body = nlohmann::json::parse(serialize_route(key, record));
  body["alone"] = "yes";
  body["checksum"] = "";
  body["checksum"] = json_checksum(body);
  EXPECT_EQ(parse_route(key, body.dump()).status().code(), ErrorCode::corrupt_data) << "alone \"yes\"";
}

// A route decided where no rival could be timed (here the timer fails every sub-kernel but the
// first) has nothing to be held against: it is not watched, its calls are not checked, and the
// record says so, so the next process does not check it either. A revisit would only time the
// one kernel again.
TEST(GemmOp, ARouteNoRivalCouldRunIsNotCheckedInUse) {
  testing::TempDir dir;
  auto timer = std::make_shared<FavouringTimer>();
  GemmOpOptions options;
  options.hints = {32, 64, 256};
  options.revisit_after_calls = 3;
  options.timer = [timer](const Problem& p, const std::vector<GemmKernel*>& kernels) {
    std::vector<Result<TimingStats>> stats = (*timer)(p, kernels);
    for (std::size_t i = 1; i < stats.size(); ++i) stats[i] = unsupported("this rival cannot run the shape");
    return stats;
  };
  for (int process = 0; process < 2; ++process) {
    auto session = own_kernels_session(stored_options(dir));
    auto op = routing_op(*session, options);
    if (!op) GTEST_SKIP() << "every hint picked the same kernel on this machine: nothing to route between";
    EXPECT_EQ(*op->route(100, 100, 100), 0);
    EXPECT_TRUE(op->route_settled(100, 100, 100)) << "process " << process;
    run_calls(*op, 100, 6);
    EXPECT_EQ(op->routes_held_in_use(), 0);
    EXPECT_EQ(op->routes_revisited(), 0);
    EXPECT_EQ(op->routes_from_store(), process);
    EXPECT_EQ(op->routes_alone(), 1);
    EXPECT_EQ(timer->calls, 1) << "process " << process << ": the route was timed again";
  }
}

TEST(GemmOp, DistanceRoutingFollowsTheNearestHint) {
  // Our own kernels only, at hints they serve with kernels for any shape: a tile kernel (rows
  // fixed at compile time, ≤ 24) or libxsmm's JIT code (one shape) picked for a tiny hint
  // cannot run a neighbouring shape, and the route then falls back to the next nearest hint.
  SessionOptions session_options = fast_options();
  session_options.tuning.backends = {"cpu"};
  auto session = *Session::create(session_options);
  GemmOpOptions options;
  options.hints = {32, 128};
  options.route = *Route::parse("distance");
  auto op = *GemmOp::create(*session, square_family(), options);
  const auto& subs = op->sub_kernels();
  auto sub_of_hint = [&](std::int64_t hint) {
    for (std::size_t s = 0; s < subs.size(); ++s) {
      for (std::int64_t h : subs[s].hints) {
        if (h == hint) return int(s);
      }
    }
    return -1;
  };
  EXPECT_EQ(*op->route(33, 33, 33), sub_of_hint(32));
  EXPECT_EQ(*op->route(100, 100, 100), sub_of_hint(128));
}

// Our kernels' pick for 8³ is usually a tile kernel, whose rows are fixed at compile time: it
// cannot run 9³, nor can any other sub-kernel here. Such a shape is tuned instead of failing.
TEST(GemmOp, AShapeNoSubKernelCanRunGetsATuningOfItsOwn) {
  SessionOptions session_options = fast_options();
  session_options.tuning.backends = {"cpu"};
  auto session = *Session::create(session_options);
  for (const char* route : {"distance", "benchmark"}) {
    GemmOpOptions options;
    options.hints = {8};
    options.route = *Route::parse(route);
    auto op = *GemmOp::create(*session, square_family(), options);
    const Problem p = *op->problem_at(9, 9, 9);
    TestBuffers buffers(p, 9);
    std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
    reference_gemm(p, buffers.a(), buffers.b(), expected.data());
    ASSERT_TRUE(op->run(9, 9, 9, buffers.a(), buffers.b(), c.data()).is_ok()) << route;
    for (std::size_t e = 0; e < c.size(); ++e) ASSERT_NEAR(c[e], expected[e], 1e-4) << route << " element " << e;
  }
}

TEST(GemmOp, FixedRoutingAlwaysUsesItsSubKernelAndAutotuneTunesAfresh) {
  auto session = *Session::create(fast_options());
  GemmOpOptions options;
  // 64 rows: no tile kernel (made for one exact height, at most 24 rows) can be the pick, so
  // sub-kernel 0 runs 33³ whichever kernel wins the tuning.
  options.hints = {64};
  options.route = *Route::parse("fixed:0");
  auto fixed = *GemmOp::create(*session, square_family(), options);
  EXPECT_EQ(*fixed->route(33, 33, 33), 0);
  options.route = *Route::parse("fixed:5");
  EXPECT_EQ(GemmOp::create(*session, square_family(), options).status().code(), ErrorCode::invalid_argument);
  options.route = *Route::parse("autotune");
  auto tuned = *GemmOp::create(*session, square_family(), options);
  EXPECT_EQ(*tuned->route(33, 33, 33), -1);
  EXPECT_TRUE(session->pick(*Problem::create(33, 33, 33, DType::f32)).is_ok());
}

TEST(GemmOp, StaticDimsMustMatchAndBadOptionsAreRejected) {
  auto session = *Session::create(fast_options());
  ProblemSpec family;
  family.m = kDynamic;
  family.n = 48;
  family.k = 32;
  GemmOpOptions options;
  options.hints = {4, 16};
  auto op = *GemmOp::create(*session, family, options);
  float buffer[4096] = {};
  Status wrong = op->run(4, 49, 32, buffer, buffer, buffer);
  EXPECT_EQ(wrong.code(), ErrorCode::invalid_argument);
  EXPECT_NE(wrong.message().find("n is static"), std::string::npos);
  options.hints = {};
  EXPECT_FALSE(GemmOp::create(*session, family, options).is_ok());
  options.hints = {0};
  EXPECT_FALSE(GemmOp::create(*session, family, options).is_ok());
  options.hints = {4};
  options.revisit_after_calls = -1;
  auto negative = GemmOp::create(*session, family, options);
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.status().message().find("revisit_after_calls must be >= 0"), std::string::npos);
  options.revisit_after_calls = 64;
  family.lda = 64;
  options.hints = {4};
  EXPECT_FALSE(GemmOp::create(*session, family, options).is_ok());
}

TEST(GemmOp, ManyThreadsRunningNewAndKnownShapesGetCorrectResults) {
  auto session = *Session::create(fast_options());
  GemmOpOptions options;
  options.hints = {8, 32};
  ProblemSpec family = square_family();
  family.n = 24;
  auto op = *GemmOp::create(*session, family, options);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        const std::int64_t m = 1 + (i * 7 + t) % 40, k = 1 + (i * 3 + t) % 50;
        const Problem p = *op->problem_at(m, 24, k);
        TestBuffers buffers(p, std::uint64_t(t * 1000 + i));
        std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
        reference_gemm(p, buffers.a(), buffers.b(), expected.data());
        if (!op->run(m, 24, k, buffers.a(), buffers.b(), c.data()).is_ok()) ++failures;
        for (std::size_t e = 0; e < c.size(); ++e) {
          if (std::fabs(c[e] - expected[e]) > 1e-4) ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// Session::gemm with routing on: the family's first shape builds its op; later new shapes are
// served by the op's sub-kernels without a tuning of their own, and compute the right product.
TEST(SessionRouting, NewShapesOfAFamilyAreRoutedToTheHintSubKernels) {
  SessionOptions options = fast_options();
  options.store.mode = StoreMode::off;
  options.routing.route = *Route::parse("distance");
  options.routing.dynamic_dims = "m";
  options.routing.hints = {8, 64};
  auto session = *Session::create(options);
  for (std::int64_t m : {8, 20, 64, 3, 100}) {
    const Problem p = *Problem::create(m, 24, 40, DType::f32, "nt");
    TestBuffers buffers(p, std::uint64_t(m));
    std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
    reference_gemm(p, buffers.a(), buffers.b(), expected.data());
    ASSERT_TRUE(session->gemm(p, buffers.a(), buffers.b(), c.data()).is_ok()) << "m=" << m;
    for (std::size_t e = 0; e < c.size(); ++e) ASSERT_NEAR(c[e], expected[e], 1e-4) << "m=" << m << " element " << e;
  }
  // The hints were tuned (picks of their own); the other shapes were routed.
  EXPECT_FALSE(session->pick(*Problem::create(8, 24, 40, DType::f32, "nt"))->routed);
  EXPECT_FALSE(session->pick(*Problem::create(64, 24, 40, DType::f32, "nt"))->routed);
  for (std::int64_t m : {20, 3, 100}) {
    auto pick = session->pick(*Problem::create(m, 24, 40, DType::f32, "nt"));
    ASSERT_TRUE(pick.is_ok()) << pick.status().message();
    EXPECT_TRUE(pick->routed) << "m=" << m;
  }
  // Another n is another family: it gets an op of its own.
  const Problem other = *Problem::create(20, 32, 40, DType::f32, "nt");
  TestBuffers buffers(other, 7);
  std::vector<float> c(std::size_t(other.c_elements()));
  ASSERT_TRUE(session->gemm(other, buffers.a(), buffers.b(), c.data()).is_ok());
  EXPECT_TRUE(session->pick(other)->routed);
}

// A shape the benchmark policy routed for Session::gemm runs through the family's op: its first
// calls are checked in use as GemmOp::run's are, and the outcome is stored with its route. With
// the check off, the routed kernel is installed directly and the route never checked.
TEST(SessionRouting, BenchmarkRoutedShapesAreCheckedInUse) {
  for (const std::int64_t revisit : {std::int64_t(3), std::int64_t(0)}) {
    testing::TempDir dir;
    SessionOptions options = stored_options(dir);
    options.tuning.backends = {"cpu"};
    options.routing.route = *Route::parse("benchmark");
    options.routing.dynamic_dims = "m";
    options.routing.hints = {32, 256};
    options.routing.revisit_after_calls = revisit;
    auto session = *Session::create(options);
    const Problem p = *Problem::create(100, 48, 64, DType::f32, "nt");
    ASSERT_TRUE(session->prepare(p).is_ok());  // tunes the hints, then routes p
    auto hint_32 = session->pick(*Problem::create(32, 48, 64, DType::f32, "nt"));
    auto hint_256 = session->pick(*Problem::create(256, 48, 64, DType::f32, "nt"));
    ASSERT_TRUE(hint_32.is_ok() && hint_256.is_ok());
    if (hint_32->backend == hint_256->backend && hint_32->config == hint_256->config) {
      GTEST_SKIP() << "both hints picked the same kernel on this machine: nothing to route between";
    }
    TestBuffers buffers(p, 11);
    std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
    reference_gemm(p, buffers.a(), buffers.b(), expected.data());
    // The check comes after the 3rd call and may change the route; from the next call on, the
    // session runs the kernel the op settled on, installed directly.
    for (int call = 0; call < 8; ++call) {
      std::fill(c.begin(), c.end(), 0.0f);
      ASSERT_TRUE(session->gemm(p, buffers.a(), buffers.b(), c.data()).is_ok()) << "call " << call;
      for (std::size_t e = 0; e < c.size(); ++e) ASSERT_NEAR(c[e], expected[e], 1e-3) << "call " << call << ", element " << e;
    }
    auto pick = session->pick(p);
    ASSERT_TRUE(pick.is_ok()) << pick.status().to_string();
    EXPECT_TRUE(pick->routed);
    session.reset();  // the store's file is read below, as another process would
    auto store = open_sqlite_store(dir.file("tuning.sqlite"));
    ASSERT_TRUE(store.is_ok()) << store.status().to_string();
    auto records = (*store)->list();
    ASSERT_TRUE(records.is_ok()) << records.status().to_string();
    int routes = 0, checked = 0;
    for (const StoreRecord& record : *records) {
      if (!is_route_key(record.key) || record.key.find("/100x48x64") == std::string::npos) continue;
      ++routes;
      auto route = parse_route(record.key, record.value);
      ASSERT_TRUE(route.is_ok()) << route.status().to_string();
      if (route->held || route->revisited) ++checked;
      EXPECT_GT(route->rival_us, 0.0) << "the rival's time is stored with the route";
      EXPECT_EQ(route->backend, pick->backend);
      EXPECT_EQ(route->config, pick->config) << "Session::pick names the sub-kernel serving now";
    }
    EXPECT_EQ(routes, 1) << "revisit_after_calls " << revisit;
    EXPECT_EQ(checked, revisit > 0 ? 1 : 0) << "revisit_after_calls " << revisit;
  }
}

TEST(SessionRouting, PaddedOperandsAlongADynamicDimAreTunedInsteadOfRouted) {
  SessionOptions options = fast_options();
  options.store.mode = StoreMode::off;
  options.routing.route = *Route::parse("distance");
  options.routing.dynamic_dims = "k";
  options.routing.hints = {8};
  auto session = *Session::create(options);
  ProblemSpec spec;
  spec.m = 5;
  spec.n = 6;
  spec.k = 7;
  spec.lda = 16;  // A row-major m×k with k dynamic: padded, so it fits no family
  const Problem p = *Problem::create(spec);
  TestBuffers buffers(p, 3);
  std::vector<float> c(std::size_t(p.c_elements()));
  ASSERT_TRUE(session->gemm(p, buffers.a(), buffers.b(), c.data()).is_ok());
  EXPECT_FALSE(session->pick(p)->routed);
  EXPECT_FALSE(family_of(p, "k").has_value());
  EXPECT_TRUE(family_of(p, "n").has_value());
}

TEST(SessionRouting, BadRoutingOptionsAreRejectedAtCreate) {
  for (const char* dims : {"", "x", "mm", "mnkq"}) {
    SessionOptions options = fast_options();
    options.routing.dynamic_dims = dims;
    auto session = Session::create(options);
    ASSERT_FALSE(session.is_ok()) << dims;
    EXPECT_NE(session.status().message().find("dynamic_dims"), std::string::npos) << session.status().message();
  }
  SessionOptions options = fast_options();
  options.routing.hints = {64, 0};
  EXPECT_FALSE(Session::create(options).is_ok());
  options.routing.hints = {64};
  options.routing.revisit_after_calls = -1;
  auto negative = Session::create(options);
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.status().message().find("revisit_after_calls must be >= 0"), std::string::npos)
      << negative.status().message();
}

}  // namespace
}  // namespace gemmtune
