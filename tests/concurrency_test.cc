// Many threads at once through every entry point: Session::gemm, GemmOp::run and the C ABI,
// on shapes nobody has seen (all threads on the same new shape at the same moment, racing to
// tune it, and each thread on one of its own) and on shapes tuned before. Every result is
// checked against the reference. The same test is built under ThreadSanitizer (tests/tsan,
// run by .ci/run), where a data race fails it even when every product comes out right.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cmath>
#include <mutex>
#include <thread>

#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "gemmtune/gemmtune.h"
#include "gemmtune/op.h"
#include "gemmtune/session.h"
#include "store/temp_dir.h"

namespace gemmtune {
namespace {

constexpr int kThreads = 6;
constexpr int kRounds = 3;
constexpr std::int64_t kN = 12, kK = 10;  // the op's static dims; its family varies m

SessionOptions options_with_store(const std::string& path) {
  SessionOptions options;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 0;
  // A store of the test's own: tunings write it from several threads, and lookups read it.
  options.store.path = path;
  options.store.mode = StoreMode::read_write;
  options.store.redis_url = "";
  return options;
}

// Results that are wrong or calls that fail, by what was called; empty when all were right.
class Failures {
 public:
  void add(const std::string& what) {
    std::lock_guard lock(mutex_);
    if (list_.size() < 20) list_.push_back(what);
    ++count_;
  }
  int count() const { return count_; }
  std::string first() const { return list_.empty() ? "" : list_.front(); }

 private:
  std::mutex mutex_;
  std::vector<std::string> list_;
  std::atomic<int> count_{0};
};

// Runs `call` on fresh operands of `p` and checks C against the reference.
template <class Call>
void run_and_check(const Problem& p, std::uint64_t seed, const std::string& what, Failures& failures, Call call) {
  TestBuffers buffers(p, seed);
  std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
  reference_gemm(p, buffers.a(), buffers.b(), expected.data());
  if (Status status = call(buffers.a(), buffers.b(), c.data()); !status.is_ok()) {
    failures.add(what + " " + p.describe() + ": " + status.to_string());
    return;
  }
  for (std::size_t e = 0; e < c.size(); ++e) {
    if (!(std::fabs(c[e] - expected[e]) <= 1e-4f)) {
      failures.add(what + " " + p.describe() + ": element " + std::to_string(e) + " is " + std::to_string(c[e]) +
                   ", expected " + std::to_string(expected[e]));
      return;
    }
  }
}

// The session's shape that every thread meets for the first time in round `round`, all at once.
Problem shared_shape(int round) { return *Problem::create(3 + round, 7, 9, DType::f32); }
// Thread `t`'s own new shape of round `round`.
Problem own_shape(int t, int round) { return *Problem::create(16 + t, 2 + round, 5, DType::f32); }

TEST(Concurrency, ManyThreadsThroughSessionGemmOpAndCAbiOnNewAndKnownShapesAllGetCorrectResults) {
  gemmtune::testing::TempDir dir;
  auto session = Session::create(options_with_store(dir.file("store.sqlite")));
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  ProblemSpec family;
  family.m = kDynamic;
  family.n = kN;
  family.k = kK;
  GemmOpOptions op_options;
  op_options.hints = {4, 32};
  // The in-use check at the 3rd call: it reads the calls' times while other threads still
  // record theirs, and may swap the kernel they run.
  op_options.revisit_after_calls = 3;
  auto op = GemmOp::create(**session, family, op_options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  gemmtune_session* c_session = nullptr;
  ASSERT_EQ(gemmtune_session_create("cpu", &c_session), 0) << gemmtune_last_error();

  Failures failures;
  std::atomic<int> session_calls{0}, op_calls{0}, c_calls{0};
  std::barrier round_start(kThreads);
  auto worker = [&](int t) {
    for (int round = 0; round < kRounds; ++round) {
      round_start.arrive_and_wait();
      const std::uint64_t seed = std::uint64_t(1000 * round + t);
      // New for every thread at once, then each thread's own, then every earlier round's.
      std::vector<Problem> shapes = {shared_shape(round), own_shape(t, round)};
      for (int known = 0; known < round; ++known) shapes.push_back(shared_shape(known));
      for (const Problem& p : shapes) {
        run_and_check(p, seed, "Session::gemm", failures, [&](const void* a, const void* b, void* c) {
          return (*session)->gemm(p, a, b, c);
        });
        ++session_calls;
      }
      // The op: a shape new to all threads at once, one of this thread's own, a hint's.
      for (std::int64_t m : {std::int64_t(9 + round), std::int64_t(40 + kThreads * round + t), std::int64_t(4)}) {
        const Problem p = *(*op)->problem_at(m, kN, kK);
        run_and_check(p, seed, "GemmOp::run", failures, [&](const void* a, const void* b, void* c) {
          return (*op)->run(m, kN, kK, a, b, c);
        });
        ++op_calls;
      }
      // The C ABI: the round's new shared shape, then the first round's, known by now.
      for (int r : {round, 0}) {
        const Problem p = shared_shape(r);
        const gemmtune_problem cp = gemmtune_problem_make(p.m(), p.n(), p.k(), GEMMTUNE_F32);
        run_and_check(p, seed, "gemmtune_gemm", failures, [&](const void* a, const void* b, void* c) {
          const int code = gemmtune_gemm(c_session, &cp, a, b, c);
          return code == 0 ? Status::ok() : Status(ErrorCode(code), gemmtune_last_error());
        });
        ++c_calls;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& thread : threads) thread.join();
  gemmtune_session_destroy(c_session);

  EXPECT_EQ(failures.count(), 0) << failures.first();
  // Every call was made: none was skipped by an early return.
  EXPECT_EQ(session_calls.load(), kThreads * (2 * kRounds + kRounds * (kRounds - 1) / 2));
  EXPECT_EQ(op_calls.load(), kThreads * kRounds * 3);
  // Each round's shared shape and the hint's were called 3 times or more: each was checked
  // once, or was routed where no rival could run it (alone: nothing to check). A thread's own
  // shapes, once each, were not checked.
  if ((*op)->sub_kernels().size() > 1) {
    const std::int64_t checked = (*op)->routes_held_in_use() + (*op)->routes_revisited();
    EXPECT_LE(checked, kRounds + 1);
    EXPECT_GE(checked + (*op)->routes_alone(), kRounds + 1);
    for (int round = 0; round < kRounds; ++round) EXPECT_TRUE((*op)->route_settled(9 + round, kN, kK)) << round;
    EXPECT_TRUE((*op)->route_settled(4, kN, kK));
  }
  EXPECT_EQ(c_calls.load(), kThreads * kRounds * 2);
  // Whichever thread won the race to tune a shared shape, its pick is installed.
  for (int round = 0; round < kRounds; ++round) {
    auto pick = (*session)->pick(shared_shape(round));
    EXPECT_TRUE(pick.is_ok()) << shared_shape(round).describe();
  }
}

// Session::gemm's routing with the benchmark route: threads run routed shapes through the
// family's op while its in-use check reads their times, may route a shape again, and the
// session then installs the settled kernel in place of the op, under the calls of the others.
TEST(Concurrency, ManyThreadsOnRoutedShapesWhileTheirRoutesAreCheckedAndSettled) {
  gemmtune::testing::TempDir dir;
  SessionOptions options = options_with_store(dir.file("store.sqlite"));
  options.routing.route = *Route::parse("benchmark");
  options.routing.dynamic_dims = "m";
  options.routing.hints = {4, 32};
  options.routing.revisit_after_calls = 3;
  auto session = Session::create(options);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  Failures failures;
  std::atomic<int> calls{0};
  std::barrier start(kThreads);
  auto worker = [&](int t) {
    start.arrive_and_wait();
    for (int call = 0; call < 8; ++call) {
      const Problem p = *Problem::create(9 + call % 3, kN, kK, DType::f32);  // three routed shapes, shared
      run_and_check(p, std::uint64_t(100 * t + call), "routed Session::gemm", failures,
                    [&](const void* a, const void* b, void* c) { return (*session)->gemm(p, a, b, c); });
      ++calls;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.count(), 0) << failures.first();
  EXPECT_EQ(calls.load(), kThreads * 8);
  for (std::int64_t m : {9, 10, 11}) EXPECT_TRUE((*session)->pick(*Problem::create(m, kN, kK, DType::f32))->routed) << m;
}

}  // namespace
}  // namespace gemmtune
