// Every backend × dtype × layout against the reference, through the verifier the autotuner
// uses: random inputs, poisoned output, guard bytes, each element within its bound. Shapes are odd,
// tiny, zero-sized and padded, and every config of each backend's default list runs, and the
// per-call configs of the peers (libxsmm's lookup on every call).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>

#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "backends/cpu/cpu_config_space.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_offered_kernels.h"
#include "core/verify.h"
#include "backend_test_support.h"

namespace gemmtune {
namespace {

using namespace test_support;

struct Case {
  DType in, out;
  const char* layout;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(dtype_name(info.param.in)) + "_" + std::string(dtype_name(info.param.out)) + "_" +
         info.param.layout;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::pair<DType, DType> types[] = {{DType::f32, DType::f32},  {DType::f16, DType::f16},
                                           {DType::f16, DType::f32},  {DType::bf16, DType::bf16},
                                           {DType::bf16, DType::f32}, {DType::s8, DType::s32}};
  for (auto [in, out] : types) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) cases.push_back({in, out, layout});
  }
  return cases;
}

class BackendCorrectness : public testing::TestWithParam<Case> {
 protected:
  static const BackendList& backends() {
    static const BackendList list = create_backends(*find_device("cpu"));
    return list;
  }

  Problem make(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t pad, double alpha, double beta) {
    const Case& c = GetParam();
    return padded_problem(m, n, k, c.in, c.out, c.layout, pad, alpha, beta);
  }

  // f(backend, name, kernel) for every config of every backend that accepts the problem: the
  // candidates, and the per-call configs `gemmtune bench` times the peers with, prepared. A
  // config the backend says it can implement must prepare: a kernel that claims a problem is
  // held to it.
  template <class F>
  void for_each_claiming_kernel(const Problem& problem, F&& f) {
    for (const auto& backend : backends()) {
      std::vector<KernelConfig> configs = backend->configs(problem, SearchSpace::default_space);
      for (const KernelConfig& c : backend->per_call_configs(problem)) {
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
      }
      for (const KernelConfig& config : configs) {
        // e.g. oneDNN without f16, or with a saturating int8 path, on this CPU: a skip with a reason.
        if (!backend->can_implement(problem, config).is_ok()) continue;
        const std::string name = std::string(backend->name()) + " " + config.to_string();
        auto kernel = backend->prepare(problem, config);
        EXPECT_TRUE(kernel.is_ok()) << name << " claims " << problem.describe()
                                    << " but does not prepare: " << kernel.status().to_string();
        if (kernel.is_ok()) f(*backend, name, **kernel);
      }
    }
  }

  // Runs every kernel that claims the problem on random inputs (with the values `plant` puts
  // there, if given) and checks it against the reference; returns how many ran, the reference
  // backend not counted.
  int check_all_backends(const Problem& problem, std::uint64_t seed,
                         const std::function<void(TestBuffers&)>& plant = nullptr) {
    TestBuffers buffers(problem, seed);
    if (plant) plant(buffers);
    const Reference reference = compute_reference(problem, buffers);
    int ran = 0;
    for_each_claiming_kernel(problem, [&](const Backend& backend, const std::string& name, Kernel& kernel) {
      if (expect_run_matches(problem, buffers, reference, kernel, name) && backend.name() != "reference") ++ran;
    });
    return ran;
  }
};

TEST_P(BackendCorrectness, OddShapesMatchTheReference) {
  const std::int64_t shapes[][3] = {{1, 1, 1}, {3, 50, 7}, {17, 33, 65}, {64, 64, 64}, {1, 129, 300}, {37, 1, 19}, {70, 45, 3}};
  std::uint64_t seed = 1;
  for (auto& s : shapes) {
    const int ran = check_all_backends(make(s[0], s[1], s[2], 0, 1.0, 0.0), seed++);
    EXPECT_GE(ran, 1) << "gemmtune's own kernels at least";
  }
}

TEST_P(BackendCorrectness, PaddedLeadingDimensionsAndScalarsMatchTheReference) {
  const bool integer = GetParam().in == DType::s8;
  // Padding between rows must stay untouched (guard bytes), and beta != 0 reads C.
  check_all_backends(make(29, 31, 23, 5, integer ? 1.0 : 0.75, integer ? 1.0 : -0.5), 99);
  check_all_backends(make(29, 31, 23, 3, 1.0, 1.0), 100);
}

TEST_P(BackendCorrectness, ZeroSizedDimsAreHandled) {
  check_all_backends(make(0, 8, 8, 0, 1.0, 0.0), 5);
  check_all_backends(make(8, 0, 8, 0, 1.0, 0.0), 6);
  // k == 0: C = beta·C, or zeros.
  check_all_backends(make(8, 9, 0, 0, 1.0, 0.0), 7);
  check_all_backends(make(8, 9, 0, 0, 1.0, 1.0), 8);
}

TEST_P(BackendCorrectness, SizesAcrossCacheBlocksMatchTheReference) {
  // Larger than one k block (256) and one m block, so the blocked loops wrap.
  check_all_backends(make(150, 200, 600, 0, 1.0, 0.0), 11);
}

// alpha other than 1 with C not read (beta = 0), and alpha = 0 with C zeroed or scaled: the
// product vanishes, and C's poison must not survive it. s8 problems take alpha = 1 and beta in
// {0, 1} only (exact integer arithmetic, no rounding rule to agree on): those run, and
// Problem::create refuses the others with the reason.
TEST_P(BackendCorrectness, AlphaOtherThanOneAndAlphaZeroMatchTheReference) {
  const Case& c = GetParam();
  const bool integer = c.in == DType::s8;
  const std::vector<std::pair<double, double>> scalars =
      integer ? std::vector<std::pair<double, double>>{{1.0, 0.0}, {1.0, 1.0}}
              : std::vector<std::pair<double, double>>{{0.75, 0.0}, {-2.0, 0.0}, {0.0, 0.0}, {0.0, -0.5}};
  std::uint64_t seed = 200;
  for (auto [m, n, k] : {std::tuple{3, 50, 7}, std::tuple{17, 33, 65}}) {
    for (auto [alpha, beta] : scalars) {
      EXPECT_GE(check_all_backends(make(m, n, k, 0, alpha, beta), seed++), 1) << "alpha=" << alpha << " beta=" << beta;
    }
  }
  if (!integer) return;
  for (auto [alpha, beta] : {std::pair{0.75, 0.0}, std::pair{0.0, 0.0}, std::pair{0.0, 1.0}, std::pair{1.0, 0.5},
                             std::pair{2.0, 1.0}}) {
    const auto refused = Problem::create(padded_spec(3, 50, 7, c.in, c.out, c.layout, 0, alpha, beta));
    ASSERT_FALSE(refused.is_ok()) << "s8 with alpha=" << alpha << " beta=" << beta;
    EXPECT_EQ(refused.status().code(), ErrorCode::unsupported);
    EXPECT_NE(refused.status().message().find("alpha = 1 and beta in {0, 1}"), std::string::npos)
        << refused.status().message();
  }
}

// NaN and infinities in A and in B reach C as the reference computes them (every product, in
// double): a NaN in row i of A makes row i of C NaN, one in column j of B column j; an
// infinity times a nonzero is an infinity of the product's sign, times zero NaN, and
// infinities of both signs meet in NaN. Planted in the first and last rows, columns and steps
// of k, where kernels mask, pad and run tails; with C not read, and read with scalars that
// flip the infinities' signs. Floats only: s8 has neither.
TEST_P(BackendCorrectness, NanAndInfinityInAAndBPropagateAsTheReferenceComputes) {
  if (GetParam().in == DType::s8) GTEST_SKIP() << "s8 has no NaN or infinity";
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t seed = 300;
  for (auto [m, n, k] : {std::tuple{3, 50, 7}, std::tuple{17, 33, 65}}) {
    auto plant = [&, m = m, n = n, k = k](TestBuffers& buffers) {
      buffers.set_a(0, k / 2, nan);      // row 0: NaN
      buffers.set_a(m - 1, k - 1, inf);  // row m-1: infinities,
      buffers.set_b(k - 1, 1, 0.0);      // but NaN in column 1 (inf·0)
      buffers.set_b(0, n - 1, -inf);     // column n-1: infinities,
      buffers.set_a(1, 0, 0.0);          // but NaN in row 1 (0·inf)
      buffers.set_b(k / 2, n / 2, nan);  // column n/2: NaN
    };
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-0.75, 0.5}}) {
      const Problem problem = make(m, n, k, 0, alpha, beta);
      // The reference holds the pattern above, so the kernels are held to it.
      TestBuffers planted(problem, seed);
      plant(planted);
      const std::vector<double> products = compute_reference(problem, planted).products;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          const double product = products[std::size_t(i * n + j)];
          const bool nan_row = i == 0, nan_column = j == n / 2, inf_row = i == m - 1, inf_column = j == n - 1;
          if (nan_row || nan_column || (inf_row && j == 1) || (inf_column && i == 1)) {
            EXPECT_TRUE(std::isnan(product)) << i << ", " << j << ": " << product;
          } else if (inf_row && inf_column) {
            EXPECT_FALSE(std::isfinite(product)) << i << ", " << j << ": " << product;
          } else if (inf_row || inf_column) {
            EXPECT_TRUE(std::isinf(product)) << i << ", " << j << ": " << product;
          } else {
            EXPECT_TRUE(std::isfinite(product)) << i << ", " << j << ": " << product;
          }
        }
      }
      EXPECT_GE(check_all_backends(problem, seed++, plant), 1) << problem.describe();
    }
  }
}

// Every kernel that claims the problem with A, B and C in turn at every element offset within a
// 64-byte vector (C with its guard bytes), the rows of each a whole number of vectors apart so
// that they share the offset: a kernel that aligns its loads to an operand's offset, or
// assumes one, meets every case. beta = 1, so C is read there as well as written (and libxsmm,
// which takes alpha = 1 and beta in {0, 1} only, runs).
TEST_P(BackendCorrectness, OperandsAtEveryOffsetWithinAVectorMatchTheReference) {
  const Case& c = GetParam();
  ProblemSpec spec = padded_spec(13, 37, 21, c.in, c.out, c.layout, 0, 1.0, 1.0);
  spec.lda = spec.ldb = spec.ldc = 64;  // elements: whole 64-byte vectors in every dtype, above m, n and k
  const auto problem = Problem::create(spec);
  ASSERT_TRUE(problem.is_ok()) << problem.status().to_string();
  TestBuffers buffers(*problem, 400);
  const Reference reference = compute_reference(*problem, buffers);
  int kernels = 0, runs = 0;
  for_each_claiming_kernel(*problem, [&](const Backend& backend, const std::string& name, Kernel& kernel) {
    if (backend.name() == "reference") return;
    ++kernels;
    for (Operand operand : {Operand::a, Operand::b, Operand::c}) {
      runs += expect_kernel_matches_with_operand_at_every_offset(*problem, buffers, reference, kernel, name, operand);
    }
  });
  EXPECT_GE(kernels, 1) << "gemmtune's own kernels at least";
  int offsets = 0;
  for (Operand operand : {Operand::a, Operand::b, Operand::c}) offsets += offsets_within_a_vector(*problem, operand);
  EXPECT_EQ(runs, kernels * offsets);
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndLayouts, BackendCorrectness, testing::ValuesIn(all_cases()), case_name);

// A kernel that computes C right and then writes one element `stray` elements past the end of
// C (1: just past it) or, for negative `stray`, before its start (-1: just before it); none
// for 0.
class StrayWriteKernel : public Kernel {
 public:
  StrayWriteKernel(const Problem& problem, std::int64_t stray) : problem_(problem), stray_(stray) {}
  Status run(const GemmArgs& args) override {
    reference_gemm(problem_, args.a, args.b, args.c);
    auto* c = static_cast<float*>(args.c);
    if (stray_ != 0) c[stray_ < 0 ? stray_ : problem_.c_elements() - 1 + stray_] = 0.0f;
    return Status::ok();
  }

 private:
  Problem problem_;
  std::int64_t stray_;
};

// The harness that moves C to every offset checks the bytes around it there: a write just
// before or just past a moved C fails the run, and the same kernel without the stray write
// passes at every offset.
TEST(OffsetHarness, AWriteNextToAMovedCIsCaught) {
  const Problem problem = padded_problem(5, 7, 3, DType::f32, "nn", 2, 1.0, 0.0);
  TestBuffers buffers(problem, 1);
  const Reference reference = compute_reference(problem, buffers);
  for (auto [stray, message] : {std::pair{1, "wrote past the end of C"}, std::pair{-1, "bytes before C"}}) {
    StrayWriteKernel kernel(problem, stray);
    for (std::size_t offset : {0, 4, 60}) {
      auto storage = std::make_unique_for_overwrite<std::uint8_t[]>(buffers.c_bytes_with_guards() + 128);
      std::uint8_t* line = storage.get() + (64 - reinterpret_cast<std::uintptr_t>(storage.get()) % 64) % 64;
      EXPECT_NONFATAL_FAILURE(
          expect_run_matches(problem, buffers, reference, kernel, "stray", {Operand::c, line + offset, offset}),
          message);
    }
  }
  StrayWriteKernel in_bounds(problem, 0);
  EXPECT_EQ(expect_kernel_matches_with_operand_at_every_offset(problem, buffers, reference, in_bounds, "in bounds",
                                                               Operand::c),
            offsets_within_a_vector(problem, Operand::c));
}


// oneDNN's int8 kernels on a CPU without a VNNI dot product add pairs of u8·s8 products in
// saturating 16-bit lanes (vpmaddubsw), which its s8·s8 matmul reaches by shifting A into u8:
// the backend must refuse s8 there, with that reason, rather than be dropped as wrong later.
TEST(Onednn, S8IsRefusedWithTheReasonWhereItsInt8PathSaturates) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend* onednn = nullptr;
  for (const auto& b : backends) {
    if (b->name() == "onednn") onednn = b.get();
  }
  if (onednn == nullptr) GTEST_SKIP() << "oneDNN is not built in";
  const Problem p = *Problem::create(3, 50, 7, DType::s8, "nn");
  KernelConfig primitive;
  primitive.threads = 1;
  const Status s = onednn->can_implement(p, primitive);
  // The CPU's own flags, not host_cpu()'s, which GEMMTUNE_CPU_ISA caps for gemmtune's kernels
  // only; /proc/cpuinfo names the AVX-512 form "avx512_vnni" and the VEX one "avx_vnni". oneDNN's
  // own cap, DNNL_MAX_CPU_ISA, at a level below VNNI turns it off for oneDNN (the capped runs of
  // bench/results emulate an AVX2 CPU so).
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  std::string onednn_cap = std::getenv("DNNL_MAX_CPU_ISA") != nullptr ? std::getenv("DNNL_MAX_CPU_ISA") : "";
  std::transform(onednn_cap.begin(), onednn_cap.end(), onednn_cap.begin(), [](unsigned char ch) { return std::toupper(ch); });
  const bool capped_below_vnni =
      onednn_cap == "SSE41" || onednn_cap == "AVX" || onednn_cap == "AVX2" || onednn_cap == "AVX512_CORE";
  const bool vnni =
      !capped_below_vnni && (text.find(" avx512_vnni") != std::string::npos || text.find(" avx_vnni") != std::string::npos);
  if (vnni) {
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  } else {
    EXPECT_EQ(s.code(), ErrorCode::unsupported);
    EXPECT_NE(s.message().find("saturating"), std::string::npos) << s.message();
    EXPECT_TRUE(onednn->configs(p, SearchSpace::default_space).empty()) << "no s8 config is offered";
  }
}

// backend_correctness_avx2 runs this binary with GEMMTUNE_CPU_ISA=avx2: the run must show that
// the cap took effect, or a CPU with AVX-512 would pass it on its AVX-512 kernels.
TEST(CpuIsa, TheCapInTheEnvironmentTakesEffect) {
  const char* cap = std::getenv("GEMMTUNE_CPU_ISA");
  if (cap == nullptr || *cap == '\0') GTEST_SKIP() << "no cap set here (backend_correctness_avx2 sets avx2)";
  int level = -1;
  for (int isa = 0; isa <= cpu::kIsaAvx512Bf16; ++isa) {
    if (cpu_isa_name(isa) == cap) level = isa;
  }
  ASSERT_GE(level, 0) << cap;
  EXPECT_LE(host_cpu().best_isa(), level);
  const BackendList backends = create_backends(*find_device("cpu"));
  int offered = 0;
  for (DType type : {DType::f32, DType::bf16, DType::s8}) {
    const Problem p = *Problem::create(64, 64, 64, type, "nn");
    for (const KernelConfig& c : backends.front()->configs(p, SearchSpace::exhaustive)) {
      EXPECT_LE(c.isa, level) << c.to_string();
      ++offered;
    }
  }
  EXPECT_GT(offered, 0);
}

}  // namespace
}  // namespace gemmtune
