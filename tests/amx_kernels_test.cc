// The amx backend: every config of both spaces, and configs made to hit every edge (ragged k
// within and across slices, rows and columns past whole tiles, one-step slices, narrow column
// blocks, more threads than blocks), against the reference for bf16 → f32, bf16 → bf16 and
// s8 → s32 in every layout it takes; its refusals and their reasons; its config space's
// invariants. On a CPU without AMX the runs skip with a notice, and the refusals are checked.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend_test_support.h"
#include "backends/cpu/amx_kernels.h"
#include "backends/cpu/cpu_backends.h"
#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"

namespace gemmtune {
namespace {

using namespace test_support;

const Backend& amx() {
  static const std::unique_ptr<Backend> backend = cpu::make_amx_backend(host_cpu());
  return *backend;
}

bool amx_runs_here() { return cpu::amx_unavailable_reason().empty() && host_cpu().avx512_bf16; }

#define REQUIRE_AMX()                                                                                              \
  if (!amx_runs_here()) {                                                                                          \
    GTEST_SKIP() << "NOTICE: the AMX kernels cannot run here (" << cpu::amx_unavailable_reason()                   \
                 << (host_cpu().avx512_bf16 ? "" : "; capped or no AVX512_BF16") << "): not checked on this machine"; \
  }

struct Types {
  DType in, out;
};
constexpr Types kTypes[] = {{DType::bf16, DType::f32}, {DType::bf16, DType::bf16}, {DType::s8, DType::s32}};

// Runs `c` on the problem against the reference; 1 if it ran, 0 if the backend refused it.
int check(const Problem& p, const KernelConfig& c, std::uint64_t seed) {
  if (!amx().can_implement(p, c).is_ok()) return 0;
  auto kernel = amx().prepare(p, c);
  EXPECT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().to_string();
  if (!kernel.is_ok()) return 0;
  TestBuffers buffers(p, seed);
  const Reference reference = compute_reference(p, buffers);
  return expect_run_matches(p, buffers, reference, **kernel, "amx " + c.to_string()) ? 1 : 0;
}

TEST(AmxKernels, EveryConfigOfBothSpacesMatchesTheReference) {
  REQUIRE_AMX();
  int ran = 0;
  std::uint64_t seed = 1;
  const std::int64_t shapes[][3] = {{1, 1, 1},    {16, 16, 32},  {17, 33, 65},   {64, 48, 96}, {5, 70, 1100},
                                    {70, 3, 600}, {100, 130, 70}, {33, 31, 2049}, {1, 40, 300}};
  for (const Types& t : kTypes) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      for (const auto& s : shapes) {
        const Problem p = padded_problem(s[0], s[1], s[2], t.in, t.out, layout, 3, 1.0, 0.0);
        for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
          for (const KernelConfig& c : amx().configs(p, space)) {
            EXPECT_TRUE(amx().can_implement(p, c).is_ok()) << c.to_string() << " offered but refused";
            ran += check(p, c, seed++);
          }
        }
      }
    }
  }
  // 3 dtypes × 9 shapes × (nn, tn: swap 0 or 1 only; nt: both; tt: swap 1): several hundred.
  EXPECT_GE(ran, 300) << "configs run";
  RecordProperty("configs_run", ran);
}

TEST(AmxKernels, ConfigsMadeForTheEdgesMatchTheReference) {
  REQUIRE_AMX();
  int ran = 0;
  std::uint64_t seed = 100;
  // Slices of one step and of a few, column blocks of one and three tiles, 1 to 3 threads,
  // every tile shape, R in place and copied (the operands lie off their lines: padded rows,
  // data 16 bytes past a line); k ragged inside a slice and at a slice's end; alpha and beta set.
  const std::int64_t shapes[][3] = {{47, 81, 97}, {32, 32, 128}, {15, 100, 33}, {130, 17, 257}};
  for (const Types& t : kTypes) {
    const std::int64_t step = cpu::amx_k_step(t.in);
    for (const char* layout : {"nn", "nt"}) {
      for (const auto& s : shapes) {
        // s8 takes alpha 1 and beta 0 or 1 (Problem::create).
        const Problem p = padded_problem(s[0], s[1], s[2], t.in, t.out, layout, 5, t.in == DType::s8 ? 1.0 : 0.75,
                                         t.in == DType::s8 ? 1.0 : 0.5);
        for (int swap : {0, 1}) {
          for (int tiles : {0, 1, 2, 3}) {
            for (std::int64_t block_k : {step, 3 * step, 1024 / std::int64_t(dtype_size(t.in))}) {
              for (std::int64_t block_n : {16, 48}) {
                for (int threads : {1, 2, 3}) {
                  for (int copy : {0, 1}) {
                    KernelConfig c;
                    c.micro_m = tiles & 1 ? 32 : 16;
                    c.micro_n = tiles & 2 ? 32 : 16;
                    c.block_k = std::int32_t(block_k);
                    c.block_n = std::int32_t(block_n);
                    c.threads = threads;
                    c.swap_ab = swap;
                    c.copy_r = copy;
                    ran += check(p, c, seed++);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // nn takes swap 0 only, nt both: 3 dtypes × 4 shapes × 3 orientations × 144 configs.
  EXPECT_EQ(ran, 3 * 4 * 3 * 4 * 3 * 2 * 3 * 2);
}

TEST(AmxBackend, RefusesWhatItCannotRunAndSaysWhy) {
  const Problem f32 = padded_problem(64, 64, 64, DType::f32, DType::f32, "nn", 0, 1.0, 0.0);
  EXPECT_TRUE(amx().configs(f32, SearchSpace::exhaustive).empty());
  KernelConfig c;
  c.micro_m = c.micro_n = 32, c.block_n = 256, c.block_k = 512, c.threads = 1;
  const std::string why = amx().can_implement(f32, c).message();
  if (!amx_runs_here()) {
    EXPECT_NE(why.find("AMX"), std::string::npos) << why;
    std::cout << "NOTICE: AMX cannot run here; only the refusal was checked: " << why << "\n";
    return;
  }
  EXPECT_NE(why.find("not f32 into f32"), std::string::npos) << why;
  const Problem tn = padded_problem(64, 64, 64, DType::bf16, DType::f32, "tn", 0, 1.0, 0.0);
  EXPECT_NE(amx().can_implement(tn, c).message().find("A's rows do not run along k"), std::string::npos);
  c.swap_ab = 1;
  EXPECT_NE(amx().can_implement(tn, c).message().find("B's columns do not run along k"), std::string::npos);
  EXPECT_TRUE(amx().configs(tn, SearchSpace::exhaustive).empty()) << "tn has neither operand along k";
  const Problem nt = padded_problem(64, 64, 64, DType::bf16, DType::f32, "nt", 0, 1.0, 0.0);
  c.block_k = 48;
  EXPECT_NE(amx().can_implement(nt, c).message().find("bk must be a multiple of 32"), std::string::npos);
  c.block_k = 512, c.micro_m = 48;
  EXPECT_NE(amx().can_implement(nt, c).message().find("tiles are 16 or 32"), std::string::npos);
  c.micro_m = 32, c.copy_r = 2;
  EXPECT_NE(amx().can_implement(nt, c).message().find("copy must be 0 or 1"), std::string::npos);
}

TEST(AmxBackend, ACapBelowAvx512Bf16TurnsItOff) {
  CpuInfo capped = host_cpu();
  capped.cap_isa(cpu::kIsaAvx512Vnni);
  const std::unique_ptr<Backend> backend = cpu::make_amx_backend(capped);
  const Problem p = padded_problem(64, 64, 64, DType::bf16, DType::f32, "nn", 0, 1.0, 0.0);
  EXPECT_TRUE(backend->configs(p, SearchSpace::exhaustive).empty());
  KernelConfig c;
  c.micro_m = c.micro_n = 32, c.block_n = 256, c.block_k = 512, c.threads = 1;
  const std::string why = backend->can_implement(p, c).message();
  EXPECT_FALSE(why.empty());
  if (amx_runs_here()) EXPECT_NE(why.find("GEMMTUNE_CPU_ISA caps"), std::string::npos) << why;
}

// The space is small (no cost model ranks it, so `--fast` times all of it), distinct, and
// every config in it can run; it offers each orientation the layout allows and no other. Without
// AMX the backend offers nothing, so the property skips with a notice (a RapidCheck precondition
// that never holds fails as "gave up after 0 tests").
TEST(AmxBackend, ItsSpaceIsSmallDistinctAndRunnable) {
  REQUIRE_AMX();
  EXPECT_TRUE(rc::check("the amx space is small, distinct and runnable", [] {
    // Small extents as often as large: 1 is where the layouts stop deciding the strides.
    const auto extent = [](std::int64_t hi) {
      return *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 4), rc::gen::inRange<std::int64_t>(1, hi));
    };
    const std::int64_t m = extent(5000), n = extent(5000), k = extent(9000);
    const Types t = *rc::gen::elementOf(std::vector<Types>(std::begin(kTypes), std::end(kTypes)));
    const std::string layout = *rc::gen::elementOf(std::vector<std::string>{"nn", "nt", "tn", "tt"});
    const Problem p = padded_problem(m, n, k, t.in, t.out, layout.c_str(), 0, 1.0, 0.0);
    for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
      const std::vector<KernelConfig> configs = amx().configs(p, space);
      RC_ASSERT(configs.size() <= (space == SearchSpace::exhaustive ? 48u : 8u));
      for (std::size_t i = 0; i < configs.size(); ++i) {
        RC_ASSERT(amx().can_implement(p, configs[i]).is_ok());
        RC_ASSERT(std::count(configs.begin(), configs.end(), configs[i]) == 1);
        // R copied onto its lines is offered beside R in place, never alone, and by default only
        // where a block of R's rows serves two column tiles of P or more.
        if (configs[i].copy_r == 1) {
          KernelConfig in_place = configs[i];
          in_place.copy_r = 0;
          RC_ASSERT(std::count(configs.begin(), configs.end(), in_place) == 1);
          const std::int64_t cols = configs[i].swap_ab ? m : n;
          if (space == SearchSpace::default_space) RC_ASSERT(std::min<std::int64_t>(configs[i].block_n, cols) >= 64);
        }
      }
      // Unpadded, a single row of a column-major A (lda = m = 1) and a single column of a row-major
      // B (ldb = n = 1) are contiguous along k too; so is everything where k is 1.
      const bool a_k = layout[0] == 'n' || k == 1 || m == 1, b_k = layout[1] == 't' || k == 1 || n == 1;
      const auto has = [&](int swap) {
        return std::any_of(configs.begin(), configs.end(), [&](const KernelConfig& c) { return c.swap_ab == swap; });
      };
      RC_ASSERT(has(0) == a_k);
      RC_ASSERT(has(1) == b_k);
    }
  }));
}

}  // namespace
}  // namespace gemmtune
