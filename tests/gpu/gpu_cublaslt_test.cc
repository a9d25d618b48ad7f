// The cublaslt family's kernels on the GPU: its choices keep split-k's partial sums in f32
// (cublaslt_plan.h, Reductions), its padded kernel reads copies of rows that are not 16-byte
// multiples (in the device's buffer for copies, which wgmma's padded kernels share), and a
// kernel with a workspace runs from several streams at once.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/verify.h"
#include "gemmtune/config.h"
#include "gemmtune/session.h"
#include "gpu_test_support.h"

namespace gemmtune {
namespace {

const Backend& cublaslt(const BackendList& backends) {
  for (const auto& b : backends) {
    if (b->name() == "cublaslt") return *b;
  }
  ADD_FAILURE() << "no cublaslt backend";
  std::abort();
}

// Whether the kernel's algorithm adds split-k's partial sums in the output type (cuBLASLt's
// reduction schemes INPLACE, 1, and OUTPUT_TYPE, 4), as its detail() names it.
bool rounds_partials(const Kernel& kernel) {
  const std::string detail = kernel.detail();
  return detail.find("reduction=1 ") != std::string::npos || detail.find("reduction=4 ") != std::string::npos;
}

// Shapes where cuBLASLt's own preferences offer algorithms that add partial sums in bf16 (the
// H200's heuristics: split-k at m <= 300). No choice gemmtune offers may; where A's rows are not
// a multiple of 16 bytes (tn, m = 300, 100, 37) the padded kernel is offered too, and each of
// its choices, prepared and run on device operands, must match the reference.
TEST(GpuCublasLt, ChoicesKeepF32PartialSumsAndPadUnalignedRows) {
  REQUIRE_GPU();
  const BackendList backends = create_backends(*find_device("cuda:0"));
  const Backend& backend = cublaslt(backends);
  int choices = 0, padded = 0, checked = 0, peer_rounding = 0;
  for (const Problem& p : {*Problem::create(300, 1024, 512, DType::bf16, "tn"),
                           *Problem::create(100, 4096, 4096, DType::bf16, "tn"),
                           *Problem::create(37, 4096, 4096, DType::f16, "tn"),
                           *Problem::create(64, 4096, 14336, DType::bf16, "nt")}) {
    SCOPED_TRACE(p.describe());
    const bool unaligned = p.a_layout() == Layout::col_major && (p.m() * 2) % 16 != 0;
    int padded_here = 0;
    for (const KernelConfig& config : backend.configs(p, SearchSpace::default_space)) {
      auto kernel = backend.prepare(p, config);
      ASSERT_TRUE(kernel.is_ok()) << config.to_string() << ": " << kernel.status().to_string();
      EXPECT_FALSE(rounds_partials(**kernel)) << config.to_string() << ": " << (*kernel)->detail();
      ++choices;
      if (config.kernel != kKernelPadded) continue;
      ++padded_here;
      DeviceOperands operands(p, 99);
      GemmArgs args{operands.a(), operands.b(), operands.c(), nullptr};
      ASSERT_TRUE((*kernel)->run(args).is_ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const VerifyOutcome outcome = operands.check();
      EXPECT_TRUE(outcome.ok) << config.to_string() << " " << (*kernel)->detail() << ": " << outcome.reason;
      ++checked;
    }
    EXPECT_EQ(padded_here > 0, unaligned);
    padded += padded_here;
    // The peer's configs are cuBLASLt's own: counted, not required (the heuristics decide).
    for (const KernelConfig& config : backend.peer_configs(p, SearchSpace::default_space)) {
      EXPECT_EQ(config.kernel, kKernelAnyReduction);
      auto kernel = backend.prepare(p, config);
      ASSERT_TRUE(kernel.is_ok()) << config.to_string() << ": " << kernel.status().to_string();
      peer_rounding += rounds_partials(**kernel);
    }
  }
  std::printf("cublaslt: %d choices, %d padded (each checked: %d), peer configs adding partials in bf16: %d\n",
              choices, padded, checked, peer_rounding);
  EXPECT_GE(padded, 3);
  EXPECT_EQ(checked, padded);
}

// A tuning of a tn product with unaligned rows lists every cublaslt choice, main and padded, as
// verified: none is wrong, whatever its split.
TEST(GpuCublasLt, ATuningVerifiesEveryMainAndPaddedChoice) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  int main_choices = 0, padded = 0;
  for (const Problem& p : {*Problem::create(300, 1024, 512, DType::bf16, "tn"),
                           *Problem::create(100, 4096, 4096, DType::bf16, "tn")}) {
    auto report = session->tune(p);
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    for (const ChoiceReport& c : report->choices) {
      if (c.backend != "cublaslt") continue;
      const bool verified = c.status == ChoiceStatus::ok || c.status == ChoiceStatus::pruned;
      EXPECT_TRUE(verified) << p.describe() << ": " << c.config.to_string() << ": " << c.reason;
      (c.config.kernel == kKernelPadded ? padded : main_choices) += verified;
    }
    DeviceOperands operands(p, 5);
    ASSERT_TRUE(session->gemm(p, operands.a(), operands.b(), operands.c()).is_ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const VerifyOutcome outcome = operands.check();
    EXPECT_TRUE(outcome.ok) << p.describe() << " via " << session->pick(p)->config.to_string() << ": " << outcome.reason;
  }
  EXPECT_GE(main_choices, 2);
  EXPECT_GE(padded, 2);
}

// One prepared kernel whose algorithm needs a workspace, called from more threads, each on a
// stream of its own, than it keeps workspaces for (four): the later ones take turns on a shared
// one. Every C must match; two calls adding partial sums in one workspace at once would not.
TEST(GpuCublasLt, AKernelWithAWorkspaceRunsFromManyStreamsAtOnce) {
  REQUIRE_GPU();
  const BackendList backends = create_backends(*find_device("cuda:0"));
  const Backend& backend = cublaslt(backends);
  const Problem p = *Problem::create(64, 4096, 8192, DType::bf16, "nt");
  std::unique_ptr<Kernel> kernel;
  for (const KernelConfig& config : backend.configs(p, SearchSpace::default_space)) {
    auto prepared = backend.prepare(p, config);
    if (prepared.is_ok() && (*prepared)->workspace_bytes() > 0) {
      kernel = std::move(prepared).value();
      break;
    }
  }
  if (kernel == nullptr) GTEST_SKIP() << "no algorithm with a workspace for " << p.describe() << " here";
  constexpr int kThreads = 7, kCalls = 30;
  std::vector<std::unique_ptr<DeviceOperands>> operands;
  for (int t = 0; t < kThreads; ++t) operands.push_back(std::make_unique<DeviceOperands>(p, std::uint64_t(40 + t)));
  const std::vector<Status> failed = call_from_threads(kThreads, kCalls, [&](int t, cudaStream_t stream) {
    DeviceOperands& o = *operands[std::size_t(t)];
    return kernel->run(GemmArgs{o.a(), o.b(), o.c(), stream});
  });
  int checked = 0;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(failed[std::size_t(t)].is_ok()) << failed[std::size_t(t)].to_string();
    const VerifyOutcome outcome = operands[std::size_t(t)]->check();
    EXPECT_TRUE(outcome.ok) << "thread " << t << " " << kernel->detail() << ": " << outcome.reason;
    ++checked;
  }
  EXPECT_EQ(checked, kThreads);
}

// Padded kernels of both families and of several problems, whose copies differ in size, called
// at once from threads on streams of their own: they take turns on the device's one buffer for
// copies, which grows while calls of other kernels may still read it. Every C must match.
TEST(GpuCublasLt, PaddedKernelsOfSeveralProblemsShareTheDevicesCopiesBuffer) {
  REQUIRE_GPU();
  const BackendList backends = create_backends(*find_device("cuda:0"));
  std::vector<Problem> problems;
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (const Problem& p : {*Problem::create(100, 512, 384, DType::bf16, "tn"),
                           *Problem::create(136, 1001, 520, DType::f16, "nn"),
                           *Problem::create(300, 1024, 2048, DType::bf16, "tn")}) {
    for (const auto& b : backends) {
      if (b->name() != "wgmma" && b->name() != "cublaslt") continue;
      for (const KernelConfig& config : b->configs(p, SearchSpace::default_space)) {
        if (b->name() == "cublaslt" && config.kernel != kKernelPadded) continue;
        auto kernel = b->prepare(p, config);
        ASSERT_TRUE(kernel.is_ok()) << b->name() << " " << config.to_string() << ": " << kernel.status().to_string();
        problems.push_back(p);
        kernels.push_back(std::move(kernel).value());
        break;  // one kernel of each family a problem
      }
    }
  }
  ASSERT_EQ(kernels.size(), 6u);
  const int threads = int(kernels.size());
  std::vector<std::unique_ptr<DeviceOperands>> operands;
  for (int t = 0; t < threads; ++t) {
    operands.push_back(std::make_unique<DeviceOperands>(problems[std::size_t(t)], std::uint64_t(70 + t)));
  }
  const std::vector<Status> failed = call_from_threads(threads, 25, [&](int t, cudaStream_t stream) {
    DeviceOperands& o = *operands[std::size_t(t)];
    return kernels[std::size_t(t)]->run(GemmArgs{o.a(), o.b(), o.c(), stream});
  });
  int checked = 0;
  for (int t = 0; t < threads; ++t) {
    EXPECT_TRUE(failed[std::size_t(t)].is_ok()) << failed[std::size_t(t)].to_string();
    const VerifyOutcome outcome = operands[std::size_t(t)]->check();
    EXPECT_TRUE(outcome.ok) << problems[std::size_t(t)].describe() << " kernel " << t << ": " << outcome.reason;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace
}  // namespace gemmtune
