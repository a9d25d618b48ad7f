// GPU tests: they need a CUDA device, so CI (no GPU) skips them with a visible notice;
// scripts/gpu-check runs them on the lent H100.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/pad_copy_kernel.h"
#include "core/backend.h"
#include "core/harness.h"
#include "core/operand_grid.h"
#include "core/operand_relocation.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "gemmtune/op.h"
#include "gemmtune/session.h"
#include "gpu_test_support.h"

namespace gemmtune {
namespace {

// The worker inherits the environment it is started with, and an earlier test may start it:
// the fault-injection configs are allowed from the outset so the worker accepts them too.
const bool fault_configs_allowed_for_the_worker = [] {
  setenv("GEMMTUNE_ALLOW_FAULT_CONFIGS", "1", 1);
  return true;
}();

// Runs Session::gemm on device copies of random operands and compares with the host reference.
void expect_session_matches_reference(Session& session, const Problem& p) {
  DeviceOperands operands(p, 1234);
  Status status = session.gemm(p, operands.a(), operands.b(), operands.c());
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  VerifyOutcome outcome = operands.check();
  EXPECT_TRUE(outcome.ok) << p.describe() << " via " << session.pick(p)->backend << " "
                          << session.pick(p)->config.to_string() << ": " << outcome.reason;
}

TEST(Gpu, DeviceIsDetectedWithItsLimits) {
  REQUIRE_GPU();
  auto device = find_device("cuda:0");
  ASSERT_TRUE(device.is_ok()) << device.status().to_string();
  EXPECT_GT(device->cuda.sm_count, 0);
  EXPECT_GT(device->cuda.shared_memory_per_block_optin, 0);
  EXPECT_NE(device->fingerprint().find(device->cuda.name), std::string::npos);
  EXPECT_EQ(find_device("cuda:999").status().code(), ErrorCode::not_found);
}

TEST(Gpu, EveryDtypeAndLayoutTunesAndMatchesTheReference) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  for (DType type : {DType::f16, DType::bf16, DType::s8, DType::f32}) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      for (auto [m, n, k] : {std::tuple{128, 256, 64}, std::tuple{33, 65, 96}, std::tuple{1, 4096, 512}}) {
        auto p = Problem::create(m, n, k, type, layout);
        ASSERT_TRUE(p.is_ok());
        expect_session_matches_reference(*session, *p);
      }
    }
  }
}

TEST(Gpu, ScalarsAndPaddedLeadingDimensionsMatchTheReference) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  ProblemSpec spec;
  spec.m = 70;
  spec.n = 90;
  spec.k = 130;
  spec.a_type = spec.b_type = spec.c_type = DType::bf16;
  spec.lda = 136;
  spec.ldb = 96;
  spec.ldc = 96;
  spec.alpha = 0.5;
  spec.beta = -1.25;
  expect_session_matches_reference(*session, *Problem::create(spec));
}

TEST(Gpu, TuningListsEveryCublasLtAlgorithmAsAVerifiedChoice) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  auto report = session->tune(*Problem::create(256, 4096, 4096, DType::bf16, "nt"));
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  int algorithms = 0;
  for (const ChoiceReport& c : report->choices) {
    if (c.backend == "cublaslt") {
      ++algorithms;
      EXPECT_NE(c.status, ChoiceStatus::wrong_result) << c.config.to_string() << ": " << c.reason;
    }
  }
  EXPECT_GE(algorithms, 2);
  EXPECT_NE(report->best_choice(), nullptr);
}

// Leading dimensions that are not a multiple of 16 bytes (tn with m = 300: lda = 600 bytes; nn
// with n = 1001): wgmma reads padded copies of them, and every such choice of a tuning must
// pass the harness's check, as the session's pick must match the reference.
TEST(Gpu, OperandsWithUnalignedLeadingDimensionsAreTunedOnPaddedCopies) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  int wgmma = 0;
  for (const Problem& p : {*Problem::create(300, 1024, 512, DType::bf16, "tn"),
                           *Problem::create(136, 1001, 520, DType::f16, "nn")}) {
    auto report = session->tune(p);
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    for (const ChoiceReport& c : report->choices) {
      if (c.backend != "wgmma") continue;
      // Verified: timed in full, or pruned after a first short sample (correct, far slower).
      const bool verified = c.status == ChoiceStatus::ok || c.status == ChoiceStatus::pruned;
      EXPECT_TRUE(verified) << p.describe() << ": " << c.backend << " " << c.config.to_string() << ": " << c.reason;
      wgmma += verified;
    }
    expect_session_matches_reference(*session, p);
  }
  EXPECT_GE(wgmma, 2);
}

// Operands that lie where views into larger buffers do: 16 bytes past cudaMalloc's 256-byte
// grid (TMA's grid still, not cuBLASLt's assumed one) and one element past it (off TMA's). Every
// session call must match the reference, whatever family the tuning picked: the session copies
// an A or B off TMA's grid onto it for the picked kernel (and a C off it goes to wgmma's staged
// stores or to cuBLASLt's algorithm for that alignment). Each cuBLASLt algorithm on its own,
// picked for 256-byte alignment, must run at 16 bytes off and match; one element off it may
// refuse (s8).
TEST(Gpu, OperandsAtAnyAddressMatchTheReference) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  int session_calls = 0, algorithm_calls = 0, algorithm_refusals = 0;
  for (const Problem& p : {*Problem::create(256, 512, 384, DType::bf16, "nt"),
                           *Problem::create(136, 264, 200, DType::f16, "nn"),
                           *Problem::create(128, 256, 256, DType::s8, "nt"),
                           *Problem::create(100, 300, 200, DType::f32, "tn")}) {
    ASSERT_TRUE(session->tune(p).is_ok()) << p.describe();
    const std::size_t in = dtype_size(p.a_type()), out = dtype_size(p.c_type());
    for (OperandOffsets at : {OperandOffsets{0, 0, 0}, OperandOffsets{16, 16, 16}, OperandOffsets{in, 0, 0},
                              OperandOffsets{0, in, 0}, OperandOffsets{0, 0, out}, OperandOffsets{in, in, out}}) {
      const std::string where = " with A, B, C " + std::to_string(at.a) + ", " + std::to_string(at.b) + ", " +
                                std::to_string(at.c) + " bytes past the grid";
      DeviceOperands operands(p, 99, at);
      const Status status = session->gemm(p, operands.a(), operands.b(), operands.c());
      EXPECT_TRUE(status.is_ok()) << p.describe() << where << ": " << status.to_string();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (status.is_ok()) {
        const VerifyOutcome outcome = operands.check();
        EXPECT_TRUE(outcome.ok) << p.describe() << where << " via " << session->pick(p)->backend << ": "
                                << outcome.reason;
      }
      ++session_calls;
      const bool on_tma_grid = at.a % 16 == 0 && at.b % 16 == 0 && at.c % 16 == 0;
      for (int rank = 1;; ++rank) {
        KernelConfig config;
        config.rank = rank;
        auto kernel = session->kernel(p, "cublaslt", config);
        if (!kernel.is_ok()) break;  // past the heuristics' last rank
        DeviceOperands fresh(p, 99, at);
        const Status ran = (*kernel)->run(fresh.a(), fresh.b(), fresh.c(), nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ++algorithm_calls;
        if (!on_tma_grid && ran.code() == ErrorCode::unsupported) {
          ++algorithm_refusals;
          continue;
        }
        EXPECT_TRUE(ran.is_ok()) << p.describe() << where << ", cuBLASLt rank " << rank << ": " << ran.to_string();
        const VerifyOutcome checked = fresh.check();
        EXPECT_TRUE(checked.ok) << p.describe() << where << ", cuBLASLt rank " << rank << " ("
                                << (*kernel)->detail() << "): " << checked.reason;
      }
    }
  }
  EXPECT_EQ(session_calls, 24);
  EXPECT_GE(algorithm_calls, 48);
  std::printf("checked %d session calls and %d cuBLASLt algorithm calls at shifted addresses (%d refused)\n",
              session_calls, algorithm_calls, algorithm_refusals);
}

// A multi-kernel op's calls with A or B off the grid are copied onto it too, as the session's.
TEST(Gpu, AMultiKernelOpRunsOperandsOffTheGridOnCopies) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  ProblemSpec family;
  family.m = kDynamic;
  family.n = 512;
  family.k = 384;
  family.a_type = family.b_type = family.c_type = DType::bf16;
  family.b_layout = Layout::col_major;  // nt
  GemmOpOptions options;
  options.hints = {64, 256};
  options.persist_routes = false;
  auto op = GemmOp::create(*session, family, options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  int checked = 0;
  for (std::int64_t m : {64, 100, 256}) {
    const Problem p = *(*op)->problem_at(m, 512, 384);
    for (OperandOffsets at : {OperandOffsets{2, 0, 0}, OperandOffsets{0, 2, 2}}) {
      DeviceOperands operands(p, std::uint64_t(m), at);
      const Status status = (*op)->run(m, 512, 384, operands.a(), operands.b(), operands.c());
      ASSERT_TRUE(status.is_ok()) << p.describe() << ": " << status.to_string();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const VerifyOutcome outcome = operands.check();
      EXPECT_TRUE(outcome.ok) << p.describe() << " with A, B, C " << at.a << ", " << at.b << ", " << at.c
                              << " bytes past the grid: " << outcome.reason;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6);
}

// The session's one buffer for copies, shared by threads on their own streams with problems of
// growing size (the buffer grows while others' calls may still read it): every C must match.
TEST(Gpu, OffGridCallsFromSeveralThreadsOnTheirStreamsShareTheCopiesBuffer) {
  REQUIRE_GPU();
  auto session = *Session::create(gpu_options());
  constexpr int kThreads = 4, kCalls = 20;
  std::vector<Problem> problems;
  for (int t = 0; t < kThreads; ++t) problems.push_back(*Problem::create(64 << t, 512, 384, DType::bf16, "nt"));
  for (const Problem& p : problems) ASSERT_TRUE(session->tune(p).is_ok()) << p.describe();
  std::vector<std::unique_ptr<DeviceOperands>> operands;
  for (int t = 0; t < kThreads; ++t) {
    operands.push_back(
        std::make_unique<DeviceOperands>(problems[std::size_t(t)], std::uint64_t(t), OperandOffsets{2, 2, 0}));
  }
  const std::vector<Status> failed = call_from_threads(kThreads, kCalls, [&](int t, cudaStream_t stream) {
    DeviceOperands& o = *operands[std::size_t(t)];
    return session->gemm(problems[std::size_t(t)], o.a(), o.b(), o.c(), stream);
  });
  int checked = 0;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(failed[std::size_t(t)].is_ok()) << failed[std::size_t(t)].to_string();
    const VerifyOutcome outcome = operands[std::size_t(t)]->check();
    EXPECT_TRUE(outcome.ok) << problems[std::size_t(t)].describe() << ": " << outcome.reason;
    ++checked;
  }
  EXPECT_EQ(checked, kThreads);
}

// An operand past 64 MiB off the grid is copied onto it too, up to a 64th of the device's
// memory: bf16 4096 × 14336 (117 MB) one element off, where cuBLASLt's algorithm for that
// alignment ran 8x slower than the copy and the aligned one together. The kernel is handed a copy
// on the 256-byte grid that holds the operand byte for byte, and B, on the grid, where it lies.
TEST(Gpu, AnOperandPast64MiBOffTheGridIsCopiedOntoIt) {
  REQUIRE_GPU();
  const DeviceInfo device = *find_device("cuda:0");
  const Problem p = *Problem::create(4096, 64, 14336, DType::bf16, "nt");
  const std::size_t a_bytes = std::size_t(p.a_elements()) * 2;
  ASSERT_GT(a_bytes, std::size_t(64) << 20);
  if (std::int64_t(a_bytes) > max_relocated_operand_bytes(device.cuda.global_memory_bytes)) {
    GTEST_SKIP() << "this device's cap on a copy (a 64th of its memory) is below " << a_bytes << " bytes";
  }
  std::vector<std::uint16_t> host(a_bytes / 2);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::uint16_t((i * 2654435761u) >> 13);
  char *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, a_bytes + 256), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, std::size_t(p.b_elements()) * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, std::size_t(p.c_elements()) * 2), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a + 2, host.data(), a_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  std::unique_ptr<OperandRelocation> relocation = create_operand_relocation(device);
  ASSERT_NE(relocation, nullptr);
  GemmArgs args;
  args.a = a + 2;
  args.b = b;
  args.c = c;
  const void* seen_a = nullptr;
  const void* seen_b = nullptr;
  const Status ran = relocation->run(p, args, pack_grid_masks({255, 255}), [&](const GemmArgs& moved) {
    seen_a = moved.a;
    seen_b = moved.b;
    return Status::ok();
  });
  ASSERT_TRUE(ran.is_ok()) << ran.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NE(seen_a, args.a);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(seen_a) % 256, 0u);
  EXPECT_EQ(seen_b, args.b);
  std::vector<std::uint16_t> copied(host.size());
  ASSERT_EQ(cudaMemcpy(copied.data(), seen_a, a_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(copied.data(), host.data(), a_bytes), 0);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// The pad-copy kernel byte for byte: lines of odd and even lengths from every source offset
// within 16 bytes, into copies whose lines start on 16-byte boundaries (the shifted 16-byte
// chunks) and into copies at the source's own odd pitch (the narrow chunks).
TEST(Gpu, ThePadCopyKernelCopiesLinesFromAnyOffset) {
  REQUIRE_GPU();
  const DeviceInfo device = *find_device("cuda:0");
  auto function = cuda::pad_copy_function(device.cuda);
  ASSERT_TRUE(function.is_ok()) << function.status().to_string();
  int checked = 0;
  for (std::int64_t line_bytes : {600, 2002, 1001, 48, 33, 16, 15, 1}) {
    for (std::int64_t offset = 0; offset < 16; ++offset) {
      for (bool padded : {true, false}) {
        const std::int64_t lines = 37, caller_pitch = line_bytes + 3;
        const std::int64_t copy_pitch = padded ? (line_bytes + 15) / 16 * 16 : caller_pitch;
        const cuda::PaddedCopyShape shape{lines, line_bytes, caller_pitch, copy_pitch};
        // The operand ends where its allocation does: a read past it would be memcheck's.
        const std::size_t source_bytes = std::size_t(offset + (lines - 1) * caller_pitch + line_bytes);
        std::vector<unsigned char> host(source_bytes);
        for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 7 + 3);
        DeviceBytes source(source_bytes), copy(std::size_t(lines * copy_pitch));
        ASSERT_EQ(cudaMemcpy(source.ptr, host.data(), source_bytes, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemset(copy.ptr, 0, std::size_t(lines * copy_pitch)), cudaSuccess);
        const unsigned char* caller = static_cast<unsigned char*>(source.ptr) + offset;
        ASSERT_TRUE(cuda::enqueue_pad_copy(*function, shape, caller, copy.ptr, nullptr, device.cuda.sm_count).is_ok());
        std::vector<unsigned char> back(std::size_t(lines * copy_pitch));
        ASSERT_EQ(cudaMemcpy(back.data(), copy.ptr, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        int wrong = 0;
        for (std::int64_t l = 0; l < lines; ++l) {
          for (std::int64_t b = 0; b < line_bytes; ++b) {
            wrong += back[std::size_t(l * copy_pitch + b)] != host[std::size_t(offset + l * caller_pitch + b)];
          }
        }
        EXPECT_EQ(wrong, 0) << "lines of " << line_bytes << " bytes from offset " << offset << ", chunk "
                            << cuda::pad_copy_chunk_bytes(shape, caller, copy.ptr);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * 16 * 2);
}

// A JIT kernel that faults or hangs is caught in the worker; the caller's context survives.
// A kernel that does to C whatever the test says, for the harness's own checks.
class WritingKernel final : public Kernel {
 public:
  explicit WritingKernel(std::function<void(const GemmArgs&)> body) : body_(std::move(body)) {}
  Status run(const GemmArgs& args) override {
    body_(args);
    return Status::ok();
  }

 private:
  std::function<void(const GemmArgs&)> body_;
};

// The CUDA harness resets C on the device and brings back only C's guard bytes (all of C where
// rows are padded): it must still find a C left unwritten, a wrong C, and a write before C,
// past it or into a row's padding, and a correct kernel after each must pass again.
TEST(Gpu, TheHarnessFindsUnwrittenWrongAndOutOfBoundsC) {
  REQUIRE_GPU();
  const DeviceInfo device = *find_device("cuda:0");
  const BackendList backends = create_backends(device);
  int checked = 0;
  for (std::int64_t ldc : {136, 144}) {
    ProblemSpec spec = Problem::create(200, 136, 64, DType::bf16, "nt")->spec();
    spec.ldc = ldc;
    const Problem p = *Problem::create(spec);
    SCOPED_TRACE(p.describe() + " ldc=" + std::to_string(ldc));
    auto harness = create_harness(device);
    ASSERT_TRUE(harness.is_ok()) << harness.status().message();
    Harness& h = **harness;
    ASSERT_TRUE(h.prepare(p, 7).is_ok());
    std::unique_ptr<Kernel> right;
    for (const auto& b : backends) {
      if (b->name() == "cublaslt") right = *b->prepare(p, b->configs(p, SearchSpace::default_space).at(0));
    }
    ASSERT_NE(right, nullptr);
    const std::size_t size = dtype_size(p.c_type());
    const std::size_t c_bytes = std::size_t(p.c_elements()) * size;
    auto bytes = [](const GemmArgs& a) { return static_cast<char*>(a.c); };
    auto stream = [](const GemmArgs& a) { return static_cast<cudaStream_t>(a.stream); };
    const std::vector<std::pair<std::string, std::function<void(const GemmArgs&)>>> cases = {
        {"not written", [](const GemmArgs&) {}},
        {"expected",
         [&](const GemmArgs& a) {
           cudaMemset2DAsync(a.c, std::size_t(ldc) * size, 0, std::size_t(p.n()) * size, std::size_t(p.m()), stream(a));
         }},
        {"before C",
         [&](const GemmArgs& a) {
           (void)right->run(a);
           cudaMemsetAsync(bytes(a) - 1, 0, 1, stream(a));
         }},
        {"past the end",
         [&](const GemmArgs& a) {
           (void)right->run(a);
           cudaMemsetAsync(bytes(a) + c_bytes, 0, 1, stream(a));
         }},
        {"padding",
         [&](const GemmArgs& a) {
           (void)right->run(a);
           if (ldc > p.n()) cudaMemsetAsync(bytes(a) + std::size_t(p.n()) * size, 0, size, stream(a));
         }},
    };
    for (const auto& [reason, body] : cases) {
      if (reason == "padding" && ldc == p.n()) continue;
      WritingKernel kernel(body);
      h.reset_c();
      ASSERT_TRUE(kernel.run(h.args()).is_ok());
      const VerifyOutcome wrong = h.check();
      EXPECT_FALSE(wrong.ok) << reason;
      EXPECT_NE(wrong.reason.find(reason), std::string::npos) << "expected \"" << reason << "\" in: " << wrong.reason;
      h.reset_c();
      ASSERT_TRUE(right->run(h.args()).is_ok());
      const VerifyOutcome fine = h.check();
      EXPECT_TRUE(fine.ok) << "after \"" << reason << "\": " << fine.reason;
      checked += !wrong.ok && wrong.reason.find(reason) != std::string::npos && fine.ok ? 1 : 0;
    }
  }
  EXPECT_EQ(checked, 9);
}

TEST(Gpu, TheWorkerCatchesAFaultingAndAHangingKernel) {
  REQUIRE_GPU();
  setenv("GEMMTUNE_WORKER_TIMEOUT_S", "5", 1);
  auto device = *find_device("cuda:0");
  const BackendList backends = create_backends(device);
  const Backend* jit = nullptr;
  for (const auto& b : backends) {
    if (b->name() == "mma") jit = b.get();
  }
  ASSERT_NE(jit, nullptr);
  const Problem p = *Problem::create(64, 64, 64, DType::f16);
  // The exhaustive space: on Hopper the default one leaves this family out where wgmma serves.
  std::vector<KernelConfig> configs = jit->configs(p, SearchSpace::exhaustive);
  ASSERT_FALSE(configs.empty());
  KernelConfig faulting = configs.front();
  faulting.kernel = kKernelFaultAddress;
  auto crashed = jit->prepare(p, faulting);
  ASSERT_FALSE(crashed.is_ok());
  EXPECT_NE(crashed.status().message().find("worker"), std::string::npos) << crashed.status().message();
  EXPECT_NE(crashed.status().message().find("illegal"), std::string::npos) << crashed.status().message();
  KernelConfig hanging = configs.front();
  hanging.kernel = kKernelFaultSpin;
  auto hung = jit->prepare(p, hanging);
  ASSERT_FALSE(hung.is_ok());
  EXPECT_NE(hung.status().message().find("timed out"), std::string::npos) << hung.status().message();
  // The caller's context is intact: a normal tuning and run still work.
  auto session = *Session::create(gpu_options());
  expect_session_matches_reference(*session, p);
}

}  // namespace
}  // namespace gemmtune
