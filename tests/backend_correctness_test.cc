// Every backend × dtype × layout against the reference, through the verifier the autotuner
// uses: random inputs, poisoned output, guard bytes, each element within its bound. Shapes are odd,
// tiny, zero-sized and padded, and every config of each backend's default list runs, and the
// per-call configs of the peers (libxsmm's lookup on every call).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
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
#include <thread>
#include <tuple>

#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "backends/cpu/cpu_config_space.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_offered_kernels.h"
#include "core/verify.h"

namespace gemmtune {
namespace {

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

// The spec of a problem with `pad` elements between the rows (or columns) of every operand.
ProblemSpec padded_spec(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out, const char* layout,
                        std::int64_t pad, double alpha, double beta) {
  auto layouts = *parse_layout_letters(layout);
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.a_type = spec.b_type = in;
  spec.c_type = out;
  spec.a_layout = layouts.first;
  spec.b_layout = layouts.second;
  if (pad > 0) {
    spec.lda = (spec.a_layout == Layout::row_major ? k : m) + pad;
    spec.ldb = (spec.b_layout == Layout::row_major ? n : k) + pad;
    spec.ldc = n + pad;
  }
  spec.alpha = alpha;
  spec.beta = beta;
  return spec;
}

// That problem, which must be valid.
Problem padded_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out, const char* layout,
                       std::int64_t pad, double alpha, double beta) {
  auto problem = Problem::create(padded_spec(m, n, k, in, out, layout, pad, alpha, beta));
  EXPECT_TRUE(problem.is_ok()) << problem.status().to_string();
  return *problem;
}

// The same with C of the input dtype (s32 for s8).
Problem padded_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout,
                       std::int64_t pad, double alpha, double beta) {
  return padded_problem(m, n, k, type, type == DType::s8 ? DType::s32 : type, layout, pad, alpha, beta);
}

enum class Operand { a, b, c };

const char* operand_name(Operand operand) {
  switch (operand) {
    case Operand::a: return "A";
    case Operand::b: return "B";
    case Operand::c: return "C";
  }
  return "?";
}

// Where a run finds its operands: where TestBuffers holds them, or with one of them copied to
// `at`, `offset` bytes past a 64-byte boundary.
struct Placement {
  std::optional<Operand> moved;
  std::uint8_t* at = nullptr;
  std::size_t offset = 0;
};

// The bytes a moved operand takes: A's or B's elements, or C with its guard bytes.
std::size_t moved_bytes(const Problem& problem, const TestBuffers& buffers, Operand operand) {
  switch (operand) {
    case Operand::a: return std::size_t(problem.a_elements()) * dtype_size(problem.a_type());
    case Operand::b: return std::size_t(problem.b_elements()) * dtype_size(problem.b_type());
    case Operand::c: return buffers.c_bytes_with_guards();
  }
  return 0;
}

// Runs the kernel once on the buffers (C reset first) with its operands where `placement`
// puts them, and checks C against the reference: guard bytes intact, every element within its
// bound. A moved C takes its guard bytes along (whole 64-byte lines, so C lands at the offset)
// and is copied back for the check, so a write next to it is caught there too. False if the
// kernel did not run.
bool expect_run_matches(const Problem& problem, TestBuffers& buffers, const Reference& reference, Kernel& kernel,
                        const std::string& what, Placement placement = {}) {
  buffers.reset_c();
  GemmArgs args{buffers.a(), buffers.b(), buffers.c(), nullptr};
  std::string where;
  if (placement.moved) {
    const Operand operand = *placement.moved;
    const std::size_t bytes = moved_bytes(problem, buffers, operand);
    switch (operand) {
      case Operand::a: args.a = std::memcpy(placement.at, buffers.a(), bytes); break;
      case Operand::b: args.b = std::memcpy(placement.at, buffers.b(), bytes); break;
      case Operand::c:
        std::memcpy(placement.at, buffers.c_with_guards(), bytes);
        args.c = placement.at + TestBuffers::kGuardBytes;
        break;
    }
    where = std::string(" with ") + operand_name(operand) + " at byte " + std::to_string(placement.offset) +
            " of a vector";
  }
  const Status status = kernel.run(args);
  if (placement.moved == Operand::c) {
    std::memcpy(buffers.c_with_guards(), placement.at, buffers.c_bytes_with_guards());
  }
  EXPECT_TRUE(status.is_ok()) << what << where << ": " << status.to_string();
  if (!status.is_ok()) return false;
  const VerifyOutcome outcome = check_output(problem, buffers, reference);
  EXPECT_TRUE(outcome.ok) << what << " on " << problem.describe() << where << ": " << outcome.reason;
  return true;
}

// The element offsets within a 64-byte vector where an operand can start: one per element.
int offsets_within_a_vector(const Problem& problem, Operand operand) {
  const DType type = operand == Operand::a   ? problem.a_type()
                     : operand == Operand::b ? problem.b_type()
                                             : problem.c_type();
  return int(64 / dtype_size(type));
}

// The kernel run with `operand` at each of those offsets, C checked each time; returns the runs.
int expect_kernel_matches_with_operand_at_every_offset(const Problem& problem, TestBuffers& buffers,
                                                       const Reference& reference, Kernel& kernel,
                                                       const std::string& what, Operand operand) {
  const auto storage = std::make_unique_for_overwrite<std::uint8_t[]>(moved_bytes(problem, buffers, operand) + 128);
  const std::size_t to_vector = (64 - reinterpret_cast<std::uintptr_t>(storage.get()) % 64) % 64;
  const std::size_t step = 64 / std::size_t(offsets_within_a_vector(problem, operand));
  int runs = 0;
  for (std::size_t offset = 0; offset < 64; offset += step) {
    runs += expect_run_matches(problem, buffers, reference, kernel, what,
                               {operand, storage.get() + to_vector + offset, offset});
  }
  return runs;
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

// Runs one cpu config on a problem and checks its output against the reference.
void expect_cpu_config_matches(const Backend& cpu, const Problem& problem, TestBuffers& buffers,
                               const Reference& reference, const KernelConfig& c) {
  auto kernel = cpu.prepare(problem, c);
  ASSERT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().to_string();
  expect_run_matches(problem, buffers, reference, **kernel, c.to_string());
}

// The packed kernels for every ISA level this CPU has (not only the best: the levels below
// are the fallbacks of CPUs without VNNI, BF16 or AVX-512), every tile compiled for the level,
// every layout (each operand is packed along k or across it), blocks small enough that every
// loop wraps, and scalars that read C.
TEST(CpuKernels, EveryIsaAndRegisterTileMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  ASSERT_EQ(cpu.name(), "cpu");
  const int best = host_cpu().best_isa();
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8}) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const bool integer = type == DType::s8;
      for (const Problem& problem : {padded_problem(45, 77, 130, type, layout, 0, 1.0, 0.0),
                                     padded_problem(29, 31, 23, type, layout, 3, integer ? 1.0 : 0.75,
                                                    integer ? 1.0 : -0.5)}) {
        TestBuffers buffers(problem, std::uint64_t(problem.m() * 7 + problem.k()));
        const Reference reference = compute_reference(problem, buffers);
        for (int isa = 0; isa <= best; ++isa) {
          for (const auto& tile : cpu::kMicroTiles) {
            if (!cpu::kernel_compiled(isa, cpu::kAlgoPacked, type, problem.c_type(), {tile.micro_m, tile.micro_nv})) {
              continue;
            }
            KernelConfig c;
            c.isa = isa;
            c.micro_m = tile.micro_m;
            c.micro_n = tile.micro_nv * cpu::vector_lanes(isa);
            c.block_m = c.micro_m * 3;
            c.block_n = c.micro_n * 2;
            c.block_k = 64;
            c.threads = 2;
            expect_cpu_config_matches(cpu, problem, buffers, reference, c);
          }
        }
      }
    }
  }
}

// A config no kernel can run on the problem is refused with a reason naming `why`, by
// can_implement and by prepare.
void expect_refused(const Backend& cpu, const Problem& problem, const KernelConfig& c, const std::string& why) {
  const Status status = cpu.can_implement(problem, c);
  EXPECT_FALSE(status.is_ok()) << problem.describe() << " " << c.to_string();
  EXPECT_NE(status.message().find(why), std::string::npos) << c.to_string() << ": " << status.message();
  EXPECT_FALSE(cpu.prepare(problem, c).is_ok()) << c.to_string();
}

// A compiled tile of a direct kernel, as its X-macro list names it.
struct DirectTile {
  int algo, rows, columns;
  int block_k = 0;  // the stream kernel's rows of B per block
};

// Every direct tile compiled for inputs of `type` (the extra f32 rows tiles for f32 only).
std::vector<DirectTile> direct_tiles(DType type) {
  std::vector<DirectTile> tiles;
#define ROWS_TILE(mr, nv) tiles.push_back({cpu::kAlgoDirectRows, mr, nv});
#define DOT_TILE(mr, nc) tiles.push_back({cpu::kAlgoDirectDot, mr, nc});
#define COLUMNS_TILE(mj, nv) tiles.push_back({cpu::kAlgoDirectColumns, nv, mj});
#define STREAM_TILE(mr, nv)                                                                   \
  for (int depth : cpu::kStreamBlockDepths) tiles.push_back({cpu::kAlgoDirectStream, mr, nv, depth});
#define AXPY_TILE(mr, u) tiles.push_back({cpu::kAlgoDirectAxpy, mr, u});
  GEMMTUNE_CPU_STREAM_TILES(STREAM_TILE)
  GEMMTUNE_CPU_AXPY_TILES(AXPY_TILE)
  GEMMTUNE_CPU_DIRECT_TILES(ROWS_TILE)
  if (type == DType::f32) {
    GEMMTUNE_CPU_DIRECT_F32_TILES(ROWS_TILE)
  }
  GEMMTUNE_CPU_DOT_TILES(DOT_TILE)
  GEMMTUNE_CPU_COLUMNS_TILES(COLUMNS_TILE)
#undef ROWS_TILE
#undef DOT_TILE
#undef COLUMNS_TILE
#undef STREAM_TILE
#undef AXPY_TILE
  return tiles;
}

// The two-thread config of a direct tile at an ISA level. Rows and columns of C: the columns
// kernel counts its rows in vectors, the rows and stream kernels their columns, the dot
// kernel and the axpy kernel (rows of C and of B) neither.
KernelConfig direct_config(const DirectTile& tile, int isa) {
  const int lanes = cpu::vector_lanes(isa);
  const bool column_vectors = tile.algo == cpu::kAlgoDirectRows || tile.algo == cpu::kAlgoDirectStream;
  KernelConfig c;
  c.algo = tile.algo;
  c.isa = isa;
  c.micro_m = tile.algo == cpu::kAlgoDirectColumns ? tile.rows * lanes : tile.rows;
  c.micro_n = column_vectors ? tile.columns * lanes : tile.columns;
  c.block_k = tile.block_k;
  c.threads = 2;
  return c;
}

// The direct (unpacked) kernels: every tile, every ISA level, in the layouts each one serves,
// on shapes whose edges cut through the tiles, with one-wide dims whose strides do not matter.
TEST(CpuKernels, EveryDirectKernelTileMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int best = host_cpu().best_isa();
  // Rows both above and below every tile height, with last rows of every kind: tiles of
  // halving height (35 on a 24-row tile: 24, 8, 2, 1), a tile overlapping the one before (35
  // on 12), a zero-padded tile (3 on 4); for the stream kernel, k past its deep block and more
  // columns per thread than one group of its accumulators; for the axpy kernel, k not a whole
  // number of passes and more columns per thread than one chunk.
  const std::tuple<int, int, int> shapes[] = {{1, 70, 37}, {19, 33, 65}, {3, 129, 8},  {37, 1, 19}, {21, 45, 1},
                                              {30, 20, 9},  {35, 20, 9},  {4, 40, 300}, {1, 9000, 20}};
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8}) {
    for (const char* layout : {"nn", "tn", "nt", "tt"}) {
      for (auto [m, n, k] : shapes) {
        const bool integer = type == DType::s8;
        const Problem problem = padded_problem(m, n, k, type, layout, 2, integer ? 1.0 : 1.5, integer ? 1.0 : 0.5);
        TestBuffers buffers(problem, std::uint64_t(m * 1000 + n));
        const Reference reference = compute_reference(problem, buffers);
        for (int isa = 0; isa <= best; ++isa) {
          for (const DirectTile& tile : direct_tiles(type)) {
            const KernelConfig c = direct_config(tile, isa);
            // The other layout's kernel, or the columns kernel on s8.
            if (!cpu.can_implement(problem, c).is_ok()) continue;
            expect_cpu_config_matches(cpu, problem, buffers, reference, c);
          }
        }
      }
    }
  }
}

// Configs no kernel can run are refused with the reason, before anything is prepared: an
// unknown algorithm, a stream kernel on a B that is not contiguous along n or with no rows
// of B per block (which would never advance), a rows or axpy kernel on a column-major B.
TEST(CpuKernels, ConfigsNoKernelCanRunAreRefusedWithTheReason) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int isa = host_cpu().best_isa();
  const Problem row_b = padded_problem(4, 256, 64, DType::f32, "nn", 0, 1.0, 0.0);
  const Problem column_b = padded_problem(4, 256, 64, DType::f32, "nt", 0, 1.0, 0.0);
  auto refused = [&](const Problem& problem, const KernelConfig& c, const std::string& why) {
    expect_refused(cpu, problem, c, why);
  };
  KernelConfig stream = direct_config({cpu::kAlgoDirectStream, 4, 2, 8}, isa);  // fits every level's registers
  ASSERT_TRUE(cpu.can_implement(row_b, stream).is_ok());
  refused(column_b, stream, "contiguous along n");
  stream.block_k = 0;
  refused(row_b, stream, "bk must be at least 1");
  KernelConfig unknown = stream;
  unknown.algo = 9;
  refused(row_b, unknown, "unknown cpu algo 9");
  refused(column_b, direct_config({cpu::kAlgoDirectRows, 4, 2}, isa), "contiguous along n");
  refused(column_b, direct_config({cpu::kAlgoDirectAxpy, 1, 8}, isa), "contiguous along n");
}

// Each config run on the problem with each of `operands` in turn copied to every offset
// within a 64-byte vector that its element size allows, and C checked against the reference
// each time; returns the runs.
int expect_configs_match_with_operands_at_every_offset(const Backend& cpu, const Problem& problem,
                                                       TestBuffers& buffers, const Reference& reference,
                                                       const std::vector<KernelConfig>& configs,
                                                       const std::vector<Operand>& operands) {
  int runs = 0;
  for (const KernelConfig& c : configs) {
    auto kernel = cpu.prepare(problem, c);
    EXPECT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().to_string();
    if (!kernel.is_ok()) continue;
    for (Operand operand : operands) {
      runs += expect_kernel_matches_with_operand_at_every_offset(problem, buffers, reference, **kernel,
                                                                 c.to_string(), operand);
    }
  }
  return runs;
}

// The dot kernels start k with a shorter step when the rows of one operand share an offset
// within a vector (A's when a tile loads more rows of it than columns of W and A is not
// packed, W's otherwise), and the stream and axpy kernels their columns with a narrower vector
// when B's rows do, so that every later load of that operand is aligned: B, A for the dot
// kernels, and C (whose stores follow those heads) in turn at every element offset of a
// 64-byte vector, the others at their harness offset, the rows of A and B a whole number of
// vectors apart; k or n shorter than the head, across it, and many vectors long; for the dot
// kernels enough columns that A is packed, and too few, with whole tiles of rows and only
// last ones; for the stream kernel more columns than one block of its accumulators.
TEST(CpuKernels, StreamingKernelsReadTheirOperandAtEveryOffsetWithinAVector) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int best = host_cpu().best_isa();
  const std::tuple<int, int, int> shapes[] = {{1, 70, 37}, {3, 9, 5}, {5, 130, 100}, {2, 1100, 19}, {20, 9, 40}};
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8}) {
    for (Layout b_layout : {Layout::col_major, Layout::row_major}) {
      const std::vector<int> algos = b_layout == Layout::col_major
                                         ? std::vector<int>{cpu::kAlgoDirectDot}
                                         : std::vector<int>{cpu::kAlgoDirectStream, cpu::kAlgoDirectAxpy};
      std::map<int, int> ran;
      const bool integer = type == DType::s8;
      for (auto [m, n, k] : shapes) {
        ProblemSpec spec;
        spec.m = m;
        spec.n = n;
        spec.k = k;
        spec.a_type = spec.b_type = type;
        spec.c_type = integer ? DType::s32 : type;
        spec.b_layout = b_layout;
        spec.lda = spec.ldb = 1152;  // elements: a whole number of 64-byte vectors for every dtype, above k and n
        spec.alpha = integer ? 1.0 : 1.5;
        spec.beta = integer ? 1.0 : 0.5;
        auto problem = Problem::create(spec);
        ASSERT_TRUE(problem.is_ok()) << problem.status().to_string();
        TestBuffers buffers(*problem, std::uint64_t(m * 100 + k));
        const Reference reference = compute_reference(*problem, buffers);
        std::vector<KernelConfig> configs;
        for (int isa = 0; isa <= best; ++isa) {
          for (const DirectTile& tile : direct_tiles(type)) {
            if (std::find(algos.begin(), algos.end(), tile.algo) == algos.end()) continue;
            const KernelConfig c = direct_config(tile, isa);
            if (!cpu.can_implement(*problem, c).is_ok()) continue;
            configs.push_back(c);
            ++ran[tile.algo];
          }
        }
        const std::vector<Operand> moved = b_layout == Layout::col_major
                                               ? std::vector<Operand>{Operand::b, Operand::a, Operand::c}
                                               : std::vector<Operand>{Operand::b, Operand::c};
        int offsets = 0;
        for (Operand operand : moved) offsets += offsets_within_a_vector(*problem, operand);
        EXPECT_EQ(expect_configs_match_with_operands_at_every_offset(cpu, *problem, buffers, reference, configs, moved),
                  int(configs.size()) * offsets)
            << problem->describe();
      }
      for (int algo : algos) EXPECT_GT(ran[algo], 0) << dtype_name(type) << ": no kernel of algo " << algo << " ran";
    }
  }
}

// f(shape, lanes, config) for every compiled tile kernel shape at every ISA level this CPU has:
// its vector's lanes and its one-thread config.
template <class F>
void for_every_tile_kernel(F&& f) {
  const int best = host_cpu().best_isa();
  for (const auto& shape : cpu::kTileShapes) {
    for (int isa = 0; isa <= best; ++isa) {
      if (!cpu::kernel_compiled(isa, cpu::kAlgoDirectTile, DType::f32, DType::f32, {shape.micro_m, shape.micro_nv})) {
        continue;
      }
      KernelConfig c;
      c.algo = cpu::kAlgoDirectTile;
      c.isa = isa;
      c.micro_m = shape.micro_m;
      c.micro_n = shape.micro_nv * cpu::vector_lanes(isa);
      c.threads = 1;
      f(shape, cpu::vector_lanes(isa), c);
    }
  }
}

// The tile kernels (all of C in registers): every height and width compiled, on the problems
// each one takes, with C padded and scalars that read it.
TEST(CpuKernels, EveryTileKernelMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  for_every_tile_kernel([&](const cpu::MicroTile& shape, int lanes, const KernelConfig& c) {
    for (const char* layout : {"nn", "tn"}) {
      const int n = shape.micro_nv * lanes - lanes / 2;  // a masked last vector
      const Problem problem = padded_problem(shape.micro_m, n, 19, DType::f32, layout, 1, 0.5, 2.0);
      TestBuffers buffers(problem, std::uint64_t(shape.micro_m * 10 + shape.micro_nv));
      const Reference reference = compute_reference(problem, buffers);
      expect_cpu_config_matches(cpu, problem, buffers, reference, c);
    }
  });
}

// m × n × 19 with B's rows ldb elements apart (a whole number of 64-byte vectors, so that
// they share one offset within a vector) and scalars that read C: the problems of the
// window tests below.
Problem b_offset_problem(int m, int n, Layout a_layout, std::int64_t ldb) {
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = 19;
  spec.a_layout = a_layout;
  spec.ldb = ldb;
  spec.alpha = 0.5;
  spec.beta = 2.0;
  auto problem = Problem::create(spec);
  EXPECT_TRUE(problem.is_ok()) << problem.status().to_string();
  return *problem;
}

// The tile kernels with B's rows at every element offset within a 64-byte vector, a whole
// number of vectors apart: with AVX-512, where a row of C spans a vector boundary of B, they
// read B from the boundary before its rows and move the sums back, in the tile's vectors when
// they hold the window, in one vector more for one-row tiles, and otherwise read B where it
// lies. Every height and width compiled, C a whole number of vectors wide and not,
// A both ways round, scalars that read C.
TEST(CpuKernels, TileKernelsReadBAtEveryOffsetWithinAVector) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  for_every_tile_kernel([&](const cpu::MicroTile& shape, int lanes, const KernelConfig& c) {
    for (Layout a_layout : {Layout::row_major, Layout::col_major}) {
      for (int n : {shape.micro_nv * lanes - lanes / 2, shape.micro_nv * lanes}) {
        const Problem problem = b_offset_problem(shape.micro_m, n, a_layout, 1152);
        TestBuffers buffers(problem, std::uint64_t(shape.micro_m * 10 + n));
        const Reference reference = compute_reference(problem, buffers);
        const int runs = expect_configs_match_with_operands_at_every_offset(cpu, problem, buffers, reference, {c},
                                                                            {Operand::b});
        EXPECT_EQ(runs, offsets_within_a_vector(problem, Operand::b));
      }
    }
  });
}

// The rows kernels (and the rows-dots kernels' rows part) with B's rows at every element offset
// within a 64-byte vector: every rows tile at every ISA level. Those of one-row tiles read B
// through the tile kernels' window, column tile by column tile, where B's lines stay in L1:
// rows 72 lines apart take it, rows 64 lines (4 KiB) apart, which share one L1 set, do not.
// Rows: one tile, and two and a bit (halving tails, and a one-row tile after taller ones);
// columns: two full column tiles and a part one, which holds the window in its own vectors
// for large offsets and needs none for small ones; two threads, so that the second's columns
// start past the first's. A both ways round, scalars that read C.
TEST(CpuKernels, RowsKernelsReadBAtEveryOffsetWithinAVector) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int best = host_cpu().best_isa();
  std::map<int, int> ran;
  for (const DirectTile& tile : direct_tiles(DType::f32)) {
    if (tile.algo != cpu::kAlgoDirectRows) continue;
    for (int isa = 0; isa <= best; ++isa) {
      const int lanes = cpu::vector_lanes(isa);
      const int width = tile.columns * lanes;
      for (int m : {tile.rows, 2 * tile.rows + 1}) {
        for (int n : {2 * width + lanes / 2 + 1, 2 * width + 1}) {
          for (auto [a_layout, ldb] : {std::pair{Layout::row_major, 1152}, std::pair{Layout::col_major, 1152},
                                       std::pair{Layout::row_major, 1024}}) {
            const Problem problem = b_offset_problem(m, n, a_layout, ldb);
            std::vector<KernelConfig> configs;
            for (int algo : {cpu::kAlgoDirectRows, cpu::kAlgoDirectRowsDots}) {
              KernelConfig c = direct_config(tile, isa);
              c.algo = algo;
              if (!cpu.can_implement(problem, c).is_ok()) continue;
              configs.push_back(c);
              ++ran[algo];
            }
            TestBuffers buffers(problem, std::uint64_t(m * 1000 + n));
            const Reference reference = compute_reference(problem, buffers);
            EXPECT_EQ(expect_configs_match_with_operands_at_every_offset(cpu, problem, buffers, reference, configs,
                                                                         {Operand::b}),
                      int(configs.size()) * offsets_within_a_vector(problem, Operand::b));
          }
        }
      }
    }
  }
  for (int algo : {cpu::kAlgoDirectRows, cpu::kAlgoDirectRowsDots}) EXPECT_GT(ran[algo], 0) << "no kernel of algo " << algo << " ran";
}

// The pairs kernels (all of C in registers, two steps of k to a vector): every height
// compiled, against every width up to half a vector, with k even (whole pairs), odd (a last
// step alone) and shorter than one set of accumulators, A and C padded, plain and with
// scalars that read C. The kernels the pairs tile does not take are refused with the reason.
TEST(CpuKernels, EveryPairsKernelMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  if (host_cpu().best_isa() < cpu::kIsaAvx512) GTEST_SKIP() << "no AVX-512 here: the pairs kernels are AVX-512 only";
  int ran = 0;
  for (int rows = 1; rows <= cpu::kMaxPairsRows; ++rows) {
    for (int n : {1, 5, 8}) {
      for (int k : {1, 2, 7, 20}) {
        for (auto [pad, alpha, beta] : {std::tuple{0, 1.0, 0.0}, std::tuple{3, 0.5, 2.0}}) {
          const Problem problem = padded_problem(rows, n, k, DType::f32, "nn", pad, alpha, beta);
          TestBuffers buffers(problem, std::uint64_t(rows * 1000 + n * 100 + k));
          const Reference reference = compute_reference(problem, buffers);
          KernelConfig c;
          c.algo = cpu::kAlgoDirectPairs;
          c.isa = cpu::kIsaAvx512;
          c.micro_m = rows;
          c.micro_n = 8;
          c.threads = 1;
          expect_cpu_config_matches(cpu, problem, buffers, reference, c);
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(ran, cpu::kMaxPairsRows * 3 * 4 * 2);

  KernelConfig pairs;
  pairs.algo = cpu::kAlgoDirectPairs;
  pairs.isa = cpu::kIsaAvx512;
  pairs.micro_m = 4;
  pairs.micro_n = 8;
  pairs.threads = 1;
  auto refused = [&](const Problem& problem, const KernelConfig& c) {
    expect_refused(cpu, problem, c, "the direct pairs kernel holds all of C");
  };
  ASSERT_TRUE(cpu.can_implement(padded_problem(4, 8, 9, DType::f32, "nn", 0, 1.0, 0.0), pairs).is_ok());
  refused(padded_problem(4, 8, 9, DType::f32, "tn", 0, 1.0, 0.0), pairs);  // A column-major: no adjacent pairs
  refused(padded_problem(4, 8, 9, DType::f32, "nt", 0, 1.0, 0.0), pairs);  // B column-major
  refused(padded_problem(4, 9, 9, DType::f32, "nn", 0, 1.0, 0.0), pairs);  // wider than half a vector
  refused(padded_problem(5, 8, 9, DType::f32, "nn", 0, 1.0, 0.0), pairs);  // rows other than the tile's
  KernelConfig threaded = pairs;
  threaded.threads = 2;
  refused(padded_problem(4, 8, 9, DType::f32, "nn", 0, 1.0, 0.0), threaded);
  KernelConfig avx2 = pairs;
  avx2.isa = cpu::kIsaAvx2;  // 8 lanes: half a vector is 4 columns, not the tile's 8
  refused(padded_problem(4, 8, 9, DType::f32, "nn", 0, 1.0, 0.0), avx2);
  expect_refused(cpu, padded_problem(4, 8, 9, DType::bf16, "nn", 0, 1.0, 0.0), pairs, "no kernel compiled");
}

// The rows-dots kernels (rows tiles on C's whole vectors, dots on the last columns): every
// ISA level, every tail width each takes, one and two whole vectors, rows below, at and above
// the tile height, k of one step and of several with a masked last one, one and two threads,
// A and C padded, scalars that read C. Shapes the kernel does not take are refused.
TEST(CpuKernels, RowsDotsKernelsMatchTheReferenceAtEveryTailWidth) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int best = host_cpu().best_isa();
  const std::pair<int, int> tiles[] = {{4, 2}, {8, 1}, {3, 4}, {12, 2}};  // (rows, vectors)
  for (int isa = 0; isa <= std::min(best, cpu::kIsaAvx512); ++isa) {
    const int lanes = cpu::vector_lanes(isa);
    int ran = 0;
    for (int tail = 1; tail <= cpu::max_dots_tail(lanes); ++tail) {
      for (int whole : {1, 2}) {
        for (int m : {1, 7, 19}) {
          for (int k : {1, 65}) {
            for (auto [pad, alpha, beta] : {std::tuple{0, 1.0, 0.0}, std::tuple{2, 1.5, 0.5}}) {
              const int n = whole * lanes + tail;
              const Problem problem = padded_problem(m, n, k, DType::f32, "nn", pad, alpha, beta);
              TestBuffers buffers(problem, std::uint64_t(m * 1000 + n * 10 + k));
              const Reference reference = compute_reference(problem, buffers);
              for (auto [rows, vectors] : tiles) {
                if (!cpu::kernel_compiled(isa, cpu::kAlgoDirectRowsDots, DType::f32, DType::f32, {rows, vectors})) {
                  continue;
                }
                for (int threads : {1, 2}) {
                  KernelConfig c;
                  c.algo = cpu::kAlgoDirectRowsDots;
                  c.isa = isa;
                  c.micro_m = rows;
                  c.micro_n = vectors * lanes;
                  c.threads = threads;
                  expect_cpu_config_matches(cpu, problem, buffers, reference, c);
                  ++ran;
                }
              }
            }
          }
        }
      }
    }
    EXPECT_GT(ran, 0) << "no rows-dots kernel ran at " << cpu_isa_name(isa);

    KernelConfig rows_dots;
    rows_dots.algo = cpu::kAlgoDirectRowsDots;
    rows_dots.isa = isa;
    rows_dots.micro_m = 4;
    rows_dots.micro_n = lanes;
    rows_dots.threads = 1;
    const int n = lanes + 1;
    ASSERT_TRUE(cpu.can_implement(padded_problem(5, n, 9, DType::f32, "nn", 0, 1.0, 0.0), rows_dots).is_ok());
    for (const Problem& p : {padded_problem(5, n, 9, DType::f32, "tn", 0, 1.0, 0.0),  // A column-major
                             padded_problem(5, n, 9, DType::f32, "nt", 0, 1.0, 0.0),  // B column-major
                             padded_problem(5, lanes + cpu::max_dots_tail(lanes) + 1, 9, DType::f32, "nn", 0, 1.0, 0.0),
                             padded_problem(5, lanes - 1, 9, DType::f32, "nn", 0, 1.0, 0.0)}) {  // no whole vector
      expect_refused(cpu, p, rows_dots, "rows-dots kernel");
    }
  }
}

// Several threads run kernels at once: the pool serves one of them and the others run alone
// (never wait, never share scratch), and every result is right.
TEST(CpuKernels, ThreadedKernelsRunFromSeveralThreadsAtOnce) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  auto problem = *Problem::create(150, 97, 120, DType::f32, "nn");
  std::vector<KernelConfig> configs;
  for (int algo : {cpu::kAlgoPacked, cpu::kAlgoDirectRows}) {
    KernelConfig c;
    c.algo = algo;
    c.isa = cpu::isa_for_dtype(DType::f32, host_cpu());
    c.micro_m = 4;
    c.micro_n = 2 * cpu::vector_lanes(c.isa);
    c.block_m = 32;
    c.block_n = 4 * c.micro_n;
    c.block_k = 32;
    c.threads = 2;
    configs.push_back(c);
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      TestBuffers buffers(problem, std::uint64_t(t + 1));
      const Reference reference = compute_reference(problem, buffers);
      auto kernel = cpu.prepare(problem, configs[std::size_t(t % 2)]);
      if (!kernel.is_ok()) {
        ++failures;
        return;
      }
      for (int round = 0; round < 50; ++round) {
        buffers.reset_c();
        if (!(*kernel)->run({buffers.a(), buffers.b(), buffers.c(), nullptr}).is_ok() ||
            !check_output(problem, buffers, reference).ok) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
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
  // only; /proc/cpuinfo names the AVX-512 form "avx512_vnni" and the VEX one "avx_vnni".
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  const bool vnni = text.find(" avx512_vnni") != std::string::npos || text.find(" avx_vnni") != std::string::npos;
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
