// gemmtune's own CPU kernels against the reference, kernel by kernel: the packed kernels at
// every ISA level and register tile, the direct kernels' tiles, configs no kernel can run, and
// the streaming kernels with their operand at every offset within a vector. Run capped to AVX2
// too (cpu_kernels_avx2). The tile-shaped kernels are in cpu_tile_kernels_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
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
#include "backends/cpu/cpu_row_tiles.h"
#include "backend_test_support.h"
#include "core/backend.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"

namespace gemmtune {
namespace {

using namespace test_support;

// A packed kernel's config: its tile at `isa`, blocks of `tiles_a_block` tiles' rows and two
// tiles' columns, k slices `block_k` deep.
KernelConfig packed_config(int isa, const cpu::MicroTile& tile, int tiles_a_block, int block_k, int threads) {
  KernelConfig c;
  c.isa = isa;
  c.micro_m = tile.micro_m;
  c.micro_n = tile.micro_nv * cpu::vector_lanes(isa);
  c.block_m = c.micro_m * tiles_a_block;
  c.block_n = c.micro_n * 2;
  c.block_k = block_k;
  c.threads = threads;
  return c;
}

// The packed kernels for every ISA level this CPU has and this build compiled (not only the
// best: the levels below are the fallbacks of CPUs without VNNI, BF16 or AVX-512), every tile
// compiled for the level,
// every layout (each operand is packed along k or across it), blocks small enough that every
// loop wraps, and scalars that read C.
TEST(CpuKernels, EveryIsaAndRegisterTileMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  ASSERT_EQ(cpu.name(), "cpu");
  const int best = runnable_isa();
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8}) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const bool integer = type == DType::s8;
      for (const Problem& problem : {padded_problem(45, 77, 130, type, layout, 0, 1.0, 0.0),
                                     padded_problem(29, 31, 23, type, layout, 3, integer ? 1.0 : 0.75,
                                                    integer ? 1.0 : -0.5)}) {
        TestBuffers buffers(problem, std::uint64_t(problem.m() * 7 + problem.k()));
        const Reference reference = compute_reference(problem, buffers);
        for (int isa = lowest_runnable_isa(); isa <= best; ++isa) {
          for (const auto& tile : cpu::kMicroTiles) {
            if (!cpu::kernel_offered(isa, kKernelPacked, type, problem.c_type(), {tile.micro_m, tile.micro_nv})) {
              continue;
            }
            expect_cpu_config_matches(cpu, problem, buffers, reference, packed_config(isa, tile, 3, 64, 2));
          }
        }
      }
    }
  }
}

// The packed kernels at every count of rows a block can leave past its whole tiles, where the
// short tiles run (cpu_row_tiles.h): m from 1 to two whole tiles and a short one past a block of
// two tiles, on one thread and on three (whose shares of m end anywhere), f32 and s8 (the FMA
// format and an integer one). An f32 A along k (nn, nt) is read in place but for its last panel
// when that passes m, and packed across k (tn); s8 packs A in every layout.
TEST(CpuKernels, PackedKernelsMatchTheReferenceAtEveryRowRemainder) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  int checked = 0, short_cuts = 0;
  for (int isa = lowest_runnable_isa(); isa <= runnable_isa(); ++isa) {
    for (const auto& tile : cpu::kMicroTiles) {
      const int sr = cpu::short_tile_rows(tile.micro_m, tile.micro_nv);
      if (sr == tile.micro_m) continue;  // no short tile: EveryIsaAndRegisterTileMatchesTheReference
      for (DType type : {DType::f32, DType::s8}) {
        for (const char* layout : {"nn", "nt", "tn"}) {
          if (!cpu::kernel_offered(isa, kKernelPacked, type, type == DType::s8 ? DType::s32 : type,
                                   {tile.micro_m, tile.micro_nv})) {
            continue;
          }
          for (std::int64_t m = 1; m <= 4 * tile.micro_m + sr; ++m) {
            const Problem problem = padded_problem(m, 40, 21, type, layout, 1, type == DType::s8 ? 1.0 : 0.5,
                                                   type == DType::s8 ? 1.0 : 0.25);
            TestBuffers buffers(problem, std::uint64_t(m * 31 + tile.micro_m));
            const Reference reference = compute_reference(problem, buffers);
            for (int threads : {1, 3}) {
              expect_cpu_config_matches(cpu, problem, buffers, reference, packed_config(isa, tile, 2, 16, threads));
              ++checked;
              short_cuts += cpu::row_tiles(m, tile.micro_m, sr).short_tiles > 0;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(short_cuts, checked / 4) << "most problems ran short tiles";
  std::printf("checked %d packed runs, %d of them cut into short tiles\n", checked, short_cuts);
}

// The direct (unpacked) kernels: every tile, every ISA level, in the layouts each one serves,
// on shapes whose edges cut through the tiles, with one-wide dims whose strides do not matter.
TEST(CpuKernels, EveryDirectKernelTileMatchesTheReference) {
  const BackendList backends = create_backends(*find_device("cpu"));
  const Backend& cpu = *backends.front();
  const int best = runnable_isa();
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
        for (int isa = lowest_runnable_isa(); isa <= best; ++isa) {
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
  const int isa = runnable_isa();
  const Problem row_b = padded_problem(4, 256, 64, DType::f32, "nn", 0, 1.0, 0.0);
  const Problem column_b = padded_problem(4, 256, 64, DType::f32, "nt", 0, 1.0, 0.0);
  auto refused = [&](const Problem& problem, const KernelConfig& c, const std::string& why) {
    expect_refused(cpu, problem, c, why);
  };
  KernelConfig stream = direct_config({kKernelStream, 4, 2, 8}, isa);  // fits every level's registers
  ASSERT_TRUE(cpu.can_implement(row_b, stream).is_ok());
  refused(column_b, stream, "contiguous along n");
  stream.block_k = 0;
  refused(row_b, stream, "bk must be at least 1");
  KernelConfig unknown = stream;
  unknown.kernel = kKernelGemv;
  refused(row_b, unknown, "kernel gemv is not a cpu kernel");
  refused(column_b, direct_config({kKernelRows, 4, 2}, isa), "contiguous along n");
  refused(column_b, direct_config({kKernelAxpy, 1, 8}, isa), "contiguous along n");
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
  const int best = runnable_isa();
  const std::tuple<int, int, int> shapes[] = {{1, 70, 37}, {3, 9, 5}, {5, 130, 100}, {2, 1100, 19}, {20, 9, 40}};
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8}) {
    for (Layout b_layout : {Layout::col_major, Layout::row_major}) {
      const std::vector<int> algos = b_layout == Layout::col_major
                                         ? std::vector<int>{kKernelDot}
                                         : std::vector<int>{kKernelStream, kKernelAxpy};
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
        for (int isa = lowest_runnable_isa(); isa <= best; ++isa) {
          for (const DirectTile& tile : direct_tiles(type)) {
            if (std::find(algos.begin(), algos.end(), tile.kernel) == algos.end()) continue;
            const KernelConfig c = direct_config(tile, isa);
            if (!cpu.can_implement(*problem, c).is_ok()) continue;
            configs.push_back(c);
            ++ran[tile.kernel];
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
      for (int kernel : algos) EXPECT_GT(ran[kernel], 0) << dtype_name(type) << ": no kernel " << kernel_name(kernel) << " ran";
    }
  }
}

}  // namespace
}  // namespace gemmtune
