// Host cost of a known-shape GEMM on a CUDA stream: Session::gemm and GemmOp::run against the
// picked kernel's own handle (GemmKernel::run: the one cuLaunchKernel or cublasLtMatmul of the
// pick), per call enqueued. A round enqueues kCalls calls, fewer than the launch queue holds and
// taking less host time than the GPU needs to run them, so the host never waits for the GPU
// inside the timed region; the three ways take turns round by round, and each reports the
// median of its rounds. The difference to the handle is gemmtune's dispatch on a GPU stream.
// A fourth way is the handle bracketed by the two CUDA events of a watched call (the in-use
// check of a benchmark route times a route's first calls so): what each of those calls adds.
//
//   gpu_dispatch_bench [M N K]      (default 1 4096 4096, bf16, B k-major: an LLM decode step)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/device_call_timer.h"
#include "gemmtune/op.h"

namespace {

using namespace gemmtune;
constexpr int kCalls = 256;
constexpr int kRounds = 31;

template <class Call>
double host_us_per_call(cudaStream_t stream, Call&& call) {
  cudaStreamSynchronize(stream);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) {
    if (!call().is_ok()) return -1;
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  cudaStreamSynchronize(stream);
  return us / kCalls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int fail(const Status& status) {
  std::fprintf(stderr, "gpu_dispatch_bench: %s\n", status.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t m = argc > 3 ? std::atoll(argv[1]) : 1;
  const std::int64_t n = argc > 3 ? std::atoll(argv[2]) : 4096;
  const std::int64_t k = argc > 3 ? std::atoll(argv[3]) : 4096;
  SessionOptions options;
  options.device = "cuda:0";
  auto session = Session::create(options);
  if (!session.is_ok()) return fail(session.status());
  auto problem = Problem::create(m, n, k, DType::bf16, "nt");
  if (!problem.is_ok()) return fail(problem.status());
  ProblemSpec family = problem->spec();
  family.m = kDynamic;
  family.lda = family.ldb = family.ldc = 0;  // an op with dynamic dims takes tight operands
  GemmOpOptions op_options;
  op_options.hints = {m};
  auto op = GemmOp::create(**session, family, op_options);
  if (!op.is_ok()) return fail(op.status());
  if (Status s = (*session)->prepare(*problem); !s.is_ok()) return fail(s);
  auto pick = (*session)->pick(*problem);
  if (!pick.is_ok()) return fail(pick.status());
  auto handle = (*session)->kernel(*problem, pick->backend, pick->config);
  if (!handle.is_ok()) return fail(handle.status());

  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, std::size_t(m * k) * 2);
  cudaMalloc(&b, std::size_t(k * n) * 2);
  cudaMalloc(&c, std::size_t(m * n) * 2);
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

  std::vector<double> direct, session_gemm, op_run, watched;
  for (int round = 0; round < kRounds + 1; ++round) {  // round 0 warms up and is dropped
    // A slot is bracketed once: each round's watched calls get a fresh timer (made untimed).
    auto timer = create_device_call_timer((*session)->device(), kCalls);
    if (!timer.is_ok()) return fail(timer.status());
    int slot = 0;
    const double d = host_us_per_call(stream, [&] { return (*handle)->run(a, b, c, stream); });
    const double s = host_us_per_call(stream, [&] { return (*session)->gemm(*problem, a, b, c, stream); });
    const double o = host_us_per_call(stream, [&] { return (*op)->run(m, n, k, a, b, c, stream); });
    const double w = host_us_per_call(stream, [&] {
      (*timer)->begin(slot, stream);
      Status status = (*handle)->run(a, b, c, stream);
      (*timer)->end(slot++, stream);
      return status;
    });
    if (d < 0 || s < 0 || o < 0 || w < 0) return fail(Status(ErrorCode::internal, "a call failed"));
    if (round == 0) continue;
    direct.push_back(d);
    session_gemm.push_back(s);
    op_run.push_back(o);
    watched.push_back(w);
  }
  // The GPU's own time per call, for scale: the handle's calls back to back, timed by events.
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int i = 0; i < kCalls; ++i) (void)(*handle)->run(a, b, c, stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);

  const double base = median(direct);
  std::printf("host time per call enqueued on a stream, %s, pick %s %s; median of %d rounds of %d calls\n",
              problem->describe().c_str(), pick->backend.c_str(), pick->config.to_string().c_str(), kRounds, kCalls);
  std::printf("%-28s %8.3f us\n", "kernel handle (bare launch)", base);
  std::printf("%-28s %8.3f us  (+%.3f)\n", "Session::gemm", median(session_gemm), median(session_gemm) - base);
  std::printf("%-28s %8.3f us  (+%.3f)\n", "GemmOp::run", median(op_run), median(op_run) - base);
  std::printf("%-28s %8.3f us  (+%.3f)\n", "handle in a watched call", median(watched), median(watched) - base);
  std::printf("%-28s %8.3f us\n", "GPU time per call", double(ms) * 1000.0 / kCalls);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
