// The Hopper template compiles with NVRTC for sm_90a (no GPU needed) in every dtype, layout
// and kind of config, to wgmma (HGMMA / IGMMA in the SASS) without spills; and the stream-K
// variant of every default-list row, with ptxas's own report of registers and spills (which
// needs no cuobjdump).
#include <gtest/gtest.h>

#include "backends/cuda/pad_copy_kernel.h"
#include "backends/cuda/wgmma_backend.h"
#include "backends/cuda/wgmma_config_space.h"
#include "cuda/compile_helpers.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::CompileJob;
using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.c_type = out;
  spec.allow_tf32 = type == DType::f32;
  return *Problem::create(spec);
}

// The first offered config with the given traits.
KernelConfig pick(const Problem& p, int pingpong, int cluster_m, int cluster_n, int swap) {
  for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
    if (c.pingpong == pingpong && std::max(c.cluster_m, 1) == cluster_m && std::max(c.cluster_n, 1) == cluster_n &&
        c.swap_ab == swap) {
      return c;
    }
  }
  ADD_FAILURE() << "no config with pp=" << pingpong << " cm=" << cluster_m << " cn=" << cluster_n << " swap=" << swap
                << " for " << p.describe();
  return {};
}

// The kernel that copies operands TMA cannot address into padded buffers compiles for sm_90a.
TEST(WgmmaCompile, ThePadCopyKernelCompiles) {
  testing::use_fresh_cubin_cache();
  auto artifact = obtain_cubin(pad_copy_source(), pad_copy_options(h100()));
  ASSERT_TRUE(artifact.is_ok()) << artifact.status().message();
  EXPECT_NE(artifact->cubin.find("gemmtune_pad_copy"), std::string::npos);
}

TEST(WgmmaCompile, EveryDtypeLayoutAndKindOfConfigCompilesToWgmmaWithoutSpills) {
  const Problem bf16_nt = make(4096, 4096, 4096, DType::bf16, "nt", DType::bf16);
  const Problem f16_tn = make(1000, 1032, 520, DType::f16, "tn", DType::f32);
  const Problem bf16_nn = make(2048, 1024, 4096, DType::bf16, "nn", DType::f32);
  const Problem f16_small = make(8, 4096, 4096, DType::f16, "tt", DType::f16);
  const Problem s8 = make(1024, 4096, 4096, DType::s8, "nt", DType::s32);
  const Problem tf32 = make(1024, 1024, 1024, DType::f32, "nt", DType::f32);
  const std::vector<CompileJob> jobs = {
      {bf16_nt, pick(bf16_nt, 0, 1, 1, 0)},  {bf16_nt, pick(bf16_nt, 0, 2, 1, 0)},
      {f16_tn, pick(f16_tn, 1, 1, 1, 0)},    {bf16_nn, pick(bf16_nn, 0, 1, 2, 0)},
      {f16_small, pick(f16_small, 0, 1, 1, 1)}, {s8, pick(s8, 0, 1, 1, 0)},
      {tf32, pick(tf32, 1, 1, 1, 0)},
  };
  const int compiled = testing::expect_all_compile(jobs, "GMMA", &compile_gemm_wgmma);
  EXPECT_EQ(compiled, 7);
}

// The instantiation compile_gemm_wgmma would compile for (p, c), for ptxas's report.
testing::PtxasJob ptxas_job(const Problem& p, const KernelConfig& c) {
  EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok()) << c.to_string() << " for " << p.describe();
  const WgmmaInstance w = wgmma_mapping(p, c).instance;
  return {c.to_string() + " for " + p.describe(), wgmma_kernel_source(w, gemm_wgmma_source()),
          wgmma_kernel_options(w, h100().arch())};
}

// Every row of the default list as the tuner compiles it for a large bf16 product (the TMA
// store with its unaligned-C fallback), and for beta != 0 (the direct store alone).
TEST(WgmmaCompile, EveryDefaultRowCompilesWithoutSpillsOrSerializedWgmma) {
  std::vector<testing::PtxasJob> jobs;
  const Problem bf16_nt = make(4096, 4096, 4096, DType::bf16, "nt", DType::bf16);
  ProblemSpec accumulate = bf16_nt.spec();
  accumulate.beta = 1.0;
  const Problem bf16_beta = *Problem::create(accumulate);
  int tma = 0;
  for (std::size_t row = 0; row < wgmma_default_list().size(); ++row) {
    KernelConfig c = wgmma_list_config(wgmma_default_list().at(row));
    c.block_k = wgmma_block_k(DType::bf16);
    jobs.push_back(ptxas_job(bf16_nt, c));
    tma += wgmma_instance(bf16_nt, c).c_tma ? 1 : 0;
    if (row % 4 == 0) jobs.push_back(ptxas_job(bf16_beta, c));
  }
  EXPECT_GT(tma, 0);
  EXPECT_EQ(testing::expect_no_spills(jobs), int(jobs.size()));
}

KernelConfig stream_k_row(std::size_t row, DType type) {
  KernelConfig c = wgmma_list_config(wgmma_default_list().at(row));
  c.block_k = wgmma_block_k(type);
  c.stream_k = 1;
  return c;
}

TEST(WgmmaCompile, EveryStreamKDefaultRowCompilesWithoutSpills) {
  std::vector<testing::PtxasJob> jobs;
  const Problem bf16_nt = make(4096, 4096, 4096, DType::bf16, "nt", DType::bf16);
  for (std::size_t row = 0; row < wgmma_default_list().size(); ++row) {
    jobs.push_back(ptxas_job(bf16_nt, stream_k_row(row, DType::bf16)));
  }
  // The other dtypes and layouts: s8 (s32 partials), TF32 ping-pong, f16 m-major A with f32
  // out in a cluster, bf16 n-major B in a cluster along n.
  jobs.push_back(ptxas_job(make(4096, 4096, 4096, DType::s8, "nt", DType::s32), stream_k_row(0, DType::s8)));
  jobs.push_back(ptxas_job(make(4096, 4096, 4096, DType::f32, "nt", DType::f32), stream_k_row(6, DType::f32)));
  jobs.push_back(ptxas_job(make(4096, 4096, 4096, DType::f16, "tn", DType::f32), stream_k_row(1, DType::f16)));
  jobs.push_back(ptxas_job(make(4096, 4096, 4096, DType::bf16, "nn", DType::f32), stream_k_row(2, DType::bf16)));
  EXPECT_EQ(testing::expect_no_spills(jobs), int(wgmma_default_list().size()) + 4);
}

// Split clusters (reduce=cluster) as the default space offers them at the decode shapes, in
// every dtype: the slices' partial sums pass through shared memory, and a store that read the
// accumulators themselves made ptxas serialize the wgmmas at n' = 8-64.
TEST(WgmmaCompile, SplitClustersCompileWithoutSpillsOrSerializedWgmma) {
  std::vector<testing::PtxasJob> jobs;
  int offered = 0;
  for (const Problem& p : {make(16, 4096, 4096, DType::bf16, "nt", DType::bf16),
                           make(64, 4096, 14336, DType::bf16, "nt", DType::bf16),
                           make(32, 4096, 4096, DType::s8, "nt", DType::s32),
                           make(8, 4096, 4096, DType::f16, "nt", DType::f32),
                           make(64, 4096, 4096, DType::f32, "nt", DType::f32)}) {
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
      if (c.split_reduce != 1) continue;
      ++offered;
      jobs.push_back(ptxas_job(p, c));
    }
  }
  EXPECT_GE(offered, 5);
  EXPECT_EQ(testing::expect_no_spills(jobs), int(jobs.size()));
}

// The wave-fitted widths the default space offers at 1024×14336×4096 (128×224, 256×112), with
// their part-TMA, part-direct epilogue, in bf16 and s8.
TEST(WgmmaCompile, WaveFittedWidthsCompileWithoutSpills) {
  std::vector<testing::PtxasJob> jobs;
  for (auto [type, out] : {std::pair{DType::bf16, DType::bf16}, std::pair{DType::s8, DType::s32}}) {
    const Problem p = make(1024, 14336, 4096, type, "nt", out);
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
      if (c.block_n == 224 || c.block_n == 112) jobs.push_back(ptxas_job(p, c));
    }
    // Fitted to one wave: 128×96 at 256×6144 and at 384×4096.
    for (auto [m, n] : {std::pair{256, 6144}, std::pair{384, 4096}}) {
      const Problem q = make(m, n, 4096, type, "nt", out);
      const int width = 96;
      for (const KernelConfig& c : wgmma_configs(q, SearchSpace::default_space, h100())) {
        if (c.block_m == 128 && c.block_n == width && c.swap_ab == 0) jobs.push_back(ptxas_job(q, c));
      }
    }
  }
  EXPECT_EQ(testing::expect_no_spills(jobs), 8);
}

// The tallest swapped tile that splits a mid m evenly: 256 rows in two consumers of two 64-row
// slices, up to 152 columns (2 × 76 accumulators a thread, over the 128 of any other tile), in
// every dtype: 270 and 300 rows, as offered at 270×14336 and 300×14336 (s8's 300 rows take
// 160 columns, which are not offered).
TEST(WgmmaCompile, TallSwappedMidMTilesCompileWithoutSpills) {
  std::vector<testing::PtxasJob> jobs;
  for (auto [type, out] : {std::pair{DType::bf16, DType::bf16}, std::pair{DType::f16, DType::f32},
                           std::pair{DType::s8, DType::s32}, std::pair{DType::f32, DType::f32}}) {
    for (std::int64_t m : {270, 300}) {
      const Problem p = make(m, 14336, 4096, type, "nt", out);
      for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
        if (c.swap_ab && c.block_m == 256) jobs.push_back(ptxas_job(p, c));
      }
    }
  }
  EXPECT_EQ(testing::expect_no_spills(jobs), 7);
}

// Three consumer warpgroups (152 registers a consumer thread): the 192-row tiles the exhaustive
// space offers, up to its 64 accumulators (192×128), alone, in a cluster and with stream-K, in
// every dtype.
TEST(WgmmaCompile, ThreeConsumerTilesCompileWithoutSpills) {
  std::vector<testing::PtxasJob> jobs;
  for (auto [type, out] : {std::pair{DType::bf16, DType::bf16}, std::pair{DType::f16, DType::f32},
                           std::pair{DType::s8, DType::s32}, std::pair{DType::f32, DType::f32}}) {
    const Problem p = make(300, 6144, 4096, type, "nt", out);
    for (const char* text : {"bm=192 bn=80 stages=5 warps=16 gm=8 cn=2 swap=1", "bm=192 bn=128 stages=4 warps=16 gm=8",
                             "bm=192 bn=128 stages=4 warps=16 gm=8 streamk=1"}) {
      KernelConfig c = *KernelConfig::parse(text);
      c.block_k = wgmma_block_k(type);
      jobs.push_back(ptxas_job(p, c));
    }
  }
  EXPECT_EQ(testing::expect_no_spills(jobs), 12);
}

TEST(WgmmaCompile, ASecondCompileOfTheSameInstanceComesFromTheCache) {
  testing::use_fresh_cubin_cache();
  const Problem p = make(256, 256, 256, DType::bf16, "nt", DType::bf16);
  const KernelConfig c = wgmma_configs(p, SearchSpace::default_space, h100()).at(0);
  auto first = compile_gemm_wgmma(p, c, h100());
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_FALSE(first->from_cache);
  auto second = compile_gemm_wgmma(p, c, h100());
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(first->cubin, second->cubin);
}

}  // namespace
}  // namespace gemmtune::cuda
