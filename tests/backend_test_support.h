// Helpers of the CPU backend correctness tests (backend_correctness_test.cc, cpu_kernels_test.cc,
// cpu_tile_kernels_test.cc, cpu_offered_kernels_test.cc): the ISA levels they can run, problems with padded leading dimensions, one run of a kernel
// checked against the reference with one of its operands placed where the test asks, and the
// direct kernels' compiled tiles and configs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/cpu_kernel_levels.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_offered_kernels.h"
#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"

namespace gemmtune::test_support {

// The highest ISA level whose kernels this machine runs and this build compiled
// (GEMMTUNE_CPU_ISAS): the kernel tests run every level up to it. (A lookup compiled for a
// higher level may use its instructions, and one not compiled finds nothing.)
inline int runnable_isa() { return std::min(host_cpu().best_isa(), cpu::compiled_top_isa()); }
// The lowest level this build compiled: a native build on a machine with AVX2 leaves the
// generic level out (cmake/cpu_isas.cmake), so the kernel tests run the levels from here up.
inline int lowest_runnable_isa() { return cpu::compiled_bottom_isa(); }

// The spec of a problem with `pad` elements between the rows (or columns) of every operand.
inline ProblemSpec padded_spec(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out, const char* layout,
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
inline Problem padded_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType in, DType out, const char* layout,
                       std::int64_t pad, double alpha, double beta) {
  auto problem = Problem::create(padded_spec(m, n, k, in, out, layout, pad, alpha, beta));
  EXPECT_TRUE(problem.is_ok()) << problem.status().to_string();
  return *problem;
}

// The same with C of the input dtype (s32 for s8).
inline Problem padded_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout,
                       std::int64_t pad, double alpha, double beta) {
  return padded_problem(m, n, k, type, type == DType::s8 ? DType::s32 : type, layout, pad, alpha, beta);
}

enum class Operand { a, b, c };

inline const char* operand_name(Operand operand) {
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
inline std::size_t moved_bytes(const Problem& problem, const TestBuffers& buffers, Operand operand) {
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
inline bool expect_run_matches(const Problem& problem, TestBuffers& buffers, const Reference& reference, Kernel& kernel,
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
inline int offsets_within_a_vector(const Problem& problem, Operand operand) {
  const DType type = operand == Operand::a   ? problem.a_type()
                     : operand == Operand::b ? problem.b_type()
                                             : problem.c_type();
  return int(64 / dtype_size(type));
}

// The kernel run with `operand` at each of those offsets, C checked each time; returns the runs.
inline int expect_kernel_matches_with_operand_at_every_offset(const Problem& problem, TestBuffers& buffers,
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

// Runs one cpu config on a problem and checks its output against the reference.
inline void expect_cpu_config_matches(const Backend& cpu, const Problem& problem, TestBuffers& buffers,
                               const Reference& reference, const KernelConfig& c) {
  auto kernel = cpu.prepare(problem, c);
  ASSERT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().to_string();
  expect_run_matches(problem, buffers, reference, **kernel, c.to_string());
}


// A config no kernel can run on the problem is refused with a reason naming `why`, by
// can_implement and by prepare.
inline void expect_refused(const Backend& cpu, const Problem& problem, const KernelConfig& c, const std::string& why) {
  const Status status = cpu.can_implement(problem, c);
  EXPECT_FALSE(status.is_ok()) << problem.describe() << " " << c.to_string();
  EXPECT_NE(status.message().find(why), std::string::npos) << c.to_string() << ": " << status.message();
  EXPECT_FALSE(cpu.prepare(problem, c).is_ok()) << c.to_string();
}

// A compiled tile of a direct kernel, as its X-macro list names it.
struct DirectTile {
  int kernel, rows, columns;
  int block_k = 0;  // the stream kernel's rows of B per block
};

// Every direct tile compiled for inputs of `type` (the extra f32 rows tiles for f32 only).
inline std::vector<DirectTile> direct_tiles(DType type) {
  std::vector<DirectTile> tiles;
#define ROWS_TILE(mr, nv) tiles.push_back({kKernelRows, mr, nv});
#define DOT_TILE(mr, nc) tiles.push_back({kKernelDot, mr, nc});
#define COLUMNS_TILE(mj, nv) tiles.push_back({kKernelColumns, nv, mj});
#define STREAM_TILE(mr, nv)                                                                   \
  for (int depth : cpu::kStreamBlockDepths) tiles.push_back({kKernelStream, mr, nv, depth});
#define AXPY_TILE(mr, u) tiles.push_back({kKernelAxpy, mr, u});
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
inline KernelConfig direct_config(const DirectTile& tile, int isa) {
  const int lanes = cpu::vector_lanes(isa);
  const bool column_vectors = tile.kernel == kKernelRows || tile.kernel == kKernelStream;
  KernelConfig c;
  c.kernel = tile.kernel;
  c.isa = isa;
  c.micro_m = tile.kernel == kKernelColumns ? tile.rows * lanes : tile.rows;
  c.micro_n = column_vectors ? tile.columns * lanes : tile.columns;
  c.block_k = tile.block_k;
  c.threads = 2;
  return c;
}

// Each config run on the problem with each of `operands` in turn copied to every offset
// within a 64-byte vector that its element size allows, and C checked against the reference
// each time; returns the runs.
inline int expect_configs_match_with_operands_at_every_offset(const Backend& cpu, const Problem& problem,
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

}  // namespace gemmtune::test_support
