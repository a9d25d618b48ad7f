// A GPU route checked in use: CUDA events on the caller's stream time the watched calls, and
// the check holds or revisits the route by them (GemmOpOptions::revisit_after_calls).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/device_call_timer.h"
#include "core/verify.h"
#include "gemmtune/op.h"
#include "gemmtune/session.h"
#include "gpu_test_support.h"

namespace gemmtune {
namespace {

struct Stream {
  Stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t stream = nullptr;
};

TEST(GpuCallTimer, BracketsOneCallPerSlotOnItsStream) {
  REQUIRE_GPU();
  auto device = find_device("cuda:0");
  ASSERT_TRUE(device.is_ok()) << device.status().to_string();
  auto timer = create_device_call_timer(*device, 4);
  ASSERT_TRUE(timer.is_ok()) << timer.status().to_string();
  Stream stream;
  const std::size_t bytes = std::size_t(256) << 20;
  DeviceBytes buffer(bytes);
  (*timer)->begin(0, stream.stream);
  ASSERT_EQ(cudaMemsetAsync(buffer.ptr, 1, bytes, stream.stream), cudaSuccess);
  (*timer)->end(0, stream.stream);
  const std::int64_t first = (*timer)->elapsed_ns(0);  // waits for the memset
  EXPECT_GT(first, 0);
  // A slot is bracketed once: a second call on it leaves the first call's time.
  (*timer)->begin(0, stream.stream);
  ASSERT_EQ(cudaMemsetAsync(buffer.ptr, 2, bytes, stream.stream), cudaSuccess);
  (*timer)->end(0, stream.stream);
  EXPECT_EQ((*timer)->elapsed_ns(0), first);
  // Not bracketed, begun only, or out of range: no time.
  EXPECT_EQ((*timer)->elapsed_ns(1), 0);
  (*timer)->begin(1, stream.stream);
  EXPECT_EQ((*timer)->elapsed_ns(1), 0);
  (*timer)->begin(-1, stream.stream);
  (*timer)->end(4, stream.stream);
  EXPECT_EQ((*timer)->elapsed_ns(-1), 0);
  EXPECT_EQ((*timer)->elapsed_ns(4), 0);
  // A stream being captured into a graph is left alone, and its capture still succeeds.
  Stream captured;
  ASSERT_EQ(cudaStreamBeginCapture(captured.stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  (*timer)->begin(2, captured.stream);
  ASSERT_EQ(cudaMemsetAsync(buffer.ptr, 3, bytes, captured.stream), cudaSuccess);
  (*timer)->end(2, captured.stream);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(captured.stream, &graph), cudaSuccess);
  if (graph) cudaGraphDestroy(graph);
  EXPECT_EQ((*timer)->elapsed_ns(2), 0);
  EXPECT_EQ(cudaStreamSynchronize(stream.stream), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A timer that says sub-kernel 0 runs in one unit and its rivals in ten.
struct FavouringFirst {
  int calls = 0;
  double unit_us = 1e6;
  std::vector<Result<TimingStats>> operator()(const Problem&, const std::vector<GemmKernel*>& kernels) {
    ++calls;
    std::vector<Result<TimingStats>> stats;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      TimingStats t;
      t.median_us = unit_us * (i == 0 ? 1.0 : 10.0);
      t.samples = 1;
      stats.emplace_back(t);
    }
    return stats;
  }
};

// Runs the op `calls` times at m × 4096 × 4096 on `stream` and checks the last call's C.
void run_on_stream(GemmOp& op, std::int64_t m, int calls, cudaStream_t stream) {
  auto problem = op.problem_at(m, 4096, 4096);
  ASSERT_TRUE(problem.is_ok()) << problem.status().to_string();
  DeviceOperands operands(*problem, 7);
  for (int i = 0; i < calls; ++i) {
    Status status = op.run(m, 4096, 4096, operands.a(), operands.b(), operands.c(), stream);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  VerifyOutcome outcome = operands.check();
  EXPECT_TRUE(outcome.ok) << problem->describe() << ": " << outcome.reason;
}

// The injected timer decides the route (sub-kernel 0) and the rival's time it is held against:
// 10 s, which any real call of 16 × 4096 × 4096 beats, and then 10 ns, which none does. The
// route holds only where the events timed the calls: a call not timed reads as slower. The
// choices are cuBLASLt's algorithms and the skinny family, and the routed size is the first
// hint's: both sub-kernels run it, so both are timed (a kernel tuned for 4096 rows may not run
// 16, and a route with no rival timed is revisited whatever its calls read).
TEST(GpuRoute, ACheckInUseHoldsOrRevisitsByTheCallsTimedOnTheStream) {
  REQUIRE_GPU();
  SessionOptions session_options = gpu_options();
  session_options.store.mode = StoreMode::off;
  session_options.tuning.backends = {"cublaslt", "skinny"};
  auto session = Session::create(session_options);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  ProblemSpec family;
  family.m = kDynamic;
  family.n = family.k = 4096;
  family.a_type = family.b_type = family.c_type = DType::bf16;
  family.b_layout = Layout::col_major;  // weights stored n × k, as a decoder's are
  Stream stream;
  for (const double unit_us : {1e6, 1e-3}) {
    auto timer = std::make_shared<FavouringFirst>();
    timer->unit_us = unit_us;
    GemmOpOptions options;
    options.hints = {16, 4096};
    options.revisit_after_calls = 6;
    options.timer = [timer](const Problem& p, const std::vector<GemmKernel*>& k) { return (*timer)(p, k); };
    auto op = GemmOp::create(**session, family, options);
    ASSERT_TRUE(op.is_ok()) << op.status().to_string();
    std::string subs;
    for (const SubKernel& sub : (*op)->sub_kernels()) subs += " " + sub.backend + " " + sub.config.to_string() + ";";
    SCOPED_TRACE("sub-kernels:" + subs);
    if ((*op)->sub_kernels().size() < 2) GTEST_SKIP() << "both hints picked one kernel: nothing to route";
    auto routed = (*op)->problem_at(16, 4096, 4096);
    ASSERT_TRUE(routed.is_ok());
    for (const SubKernel& sub : (*op)->sub_kernels()) {
      // A cuBLASLt rank found at 4096 rows may not be among the heuristic's answers at 16.
      if (!(*session)->kernel(*routed, sub.backend, sub.config).is_ok()) {
        GTEST_SKIP() << sub.backend << " " << sub.config.to_string() << " cannot run 16 rows: no rival to hold against";
      }
    }
    run_on_stream(**op, 16, 5, stream.stream);
    EXPECT_FALSE((*op)->route_settled(16, 4096, 4096));  // the 6th call checks
    run_on_stream(**op, 16, 1, stream.stream);
    EXPECT_TRUE((*op)->route_settled(16, 4096, 4096));
    if (unit_us > 1) {
      EXPECT_EQ((*op)->routes_held_in_use(), 1) << "calls timed by events against a rival's 10 s";
      EXPECT_EQ((*op)->routes_revisited(), 0);
      EXPECT_EQ(timer->calls, 1);
    } else {
      EXPECT_EQ((*op)->routes_held_in_use(), 0);
      EXPECT_EQ((*op)->routes_revisited(), 1) << "calls timed by events against a rival's 10 ns";
      EXPECT_EQ(timer->calls, 2);
    }
    run_on_stream(**op, 16, 3, stream.stream);  // settled: no more checks
    EXPECT_EQ((*op)->routes_held_in_use() + (*op)->routes_revisited(), 1);
  }
}

}  // namespace
}  // namespace gemmtune
