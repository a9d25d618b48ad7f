// gemmtune's own CPU kernels that hold all or rows of C in registers, against the reference:
// the tile kernels, the rows kernels reading B at every offset within a vector, the pairs and
// rows-dots kernels, and the threaded kernels run from several threads at once. Run capped to
// AVX2 too (cpu_tile_kernels_avx2).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_config_space.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_offered_kernels.h"
#include "backend_test_support.h"
#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"

namespace gemmtune {
namespace {

using namespace test_support;

// f(shape, lanes, config) for every compiled tile kernel shape at every ISA level this CPU has
// and this build compiled: its vector's lanes and its one-thread config.
template <class F>
void for_every_tile_kernel(F&& f) {
  const int best = runnable_isa();
  for (const auto& shape : cpu::kTileShapes) {
    for (int isa = lowest_runnable_isa(); isa <= best; ++isa) {
      if (!cpu::kernel_offered(isa, kKernelTile, DType::f32, DType::f32, {shape.micro_m, shape.micro_nv})) {
        continue;
      }
      KernelConfig c;
      c.kernel = kKernelTile;
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
  const int best = runnable_isa();
  std::map<int, int> ran;
  for (const DirectTile& tile : direct_tiles(DType::f32)) {
    if (tile.kernel != kKernelRows) continue;
    for (int isa = lowest_runnable_isa(); isa <= best; ++isa) {
      const int lanes = cpu::vector_lanes(isa);
      const int width = tile.columns * lanes;
      for (int m : {tile.rows, 2 * tile.rows + 1}) {
        for (int n : {2 * width + lanes / 2 + 1, 2 * width + 1}) {
          for (auto [a_layout, ldb] : {std::pair{Layout::row_major, 1152}, std::pair{Layout::col_major, 1152},
                                       std::pair{Layout::row_major, 1024}}) {
            const Problem problem = b_offset_problem(m, n, a_layout, ldb);
            std::vector<KernelConfig> configs;
            for (int kernel : {kKernelRows, kKernelRowsDots}) {
              KernelConfig c = direct_config(tile, isa);
              c.kernel = kernel;
              if (!cpu.can_implement(problem, c).is_ok()) continue;
              configs.push_back(c);
              ++ran[kernel];
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
  for (int kernel : {kKernelRows, kKernelRowsDots}) EXPECT_GT(ran[kernel], 0) << "no kernel " << kernel_name(kernel) << " ran";
}

// The pairs kernels (all of C in registers, two steps of k to a vector): every height
// compiled, against every width up to half a vector, with k even (whole pairs), odd (a last
// step alone) and shorter than one set of accumulators, A and C padded, plain and with
// scalars that read C. The kernels the pairs tile does not take are refused with the reason.
TEST(CpuKernels, EveryPairsKernelMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  if (runnable_isa() < cpu::kIsaAvx512) GTEST_SKIP() << "the pairs kernels are AVX-512 only: this machine runs none, or this build compiled none";
  int ran = 0;
  for (int rows = 1; rows <= cpu::kMaxPairsRows; ++rows) {
    for (int n : {1, 5, 8}) {
      for (int k : {1, 2, 7, 20}) {
        for (auto [pad, alpha, beta] : {std::tuple{0, 1.0, 0.0}, std::tuple{3, 0.5, 2.0}}) {
          const Problem problem = padded_problem(rows, n, k, DType::f32, "nn", pad, alpha, beta);
          TestBuffers buffers(problem, std::uint64_t(rows * 1000 + n * 100 + k));
          const Reference reference = compute_reference(problem, buffers);
          KernelConfig c;
          c.kernel = kKernelPairs;
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
  pairs.kernel = kKernelPairs;
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
  const int best = runnable_isa();
  const std::pair<int, int> tiles[] = {{4, 2}, {8, 1}, {3, 4}, {12, 2}};  // (rows, vectors)
  for (int isa = lowest_runnable_isa(); isa <= std::min(best, cpu::kIsaAvx512); ++isa) {
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
                if (!cpu::kernel_offered(isa, kKernelRowsDots, DType::f32, DType::f32, {rows, vectors})) {
                  continue;
                }
                for (int threads : {1, 2}) {
                  KernelConfig c;
                  c.kernel = kKernelRowsDots;
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
    rows_dots.kernel = kKernelRowsDots;
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
  for (int kernel : {kKernelPacked, kKernelRows}) {
    KernelConfig c;
    c.kernel = kernel;
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

}  // namespace
}  // namespace gemmtune
