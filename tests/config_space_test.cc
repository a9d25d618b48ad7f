#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>

#include "backends/cpu/cpu_config_space.h"
#include "backends/cpu/cpu_kernels.h"
#include "core/config_space.h"

namespace gemmtune {
namespace {

CpuInfo zen4_like() {
  CpuInfo cpu;
  cpu.avx2 = cpu.fma = cpu.avx512f = cpu.avx512bw = cpu.avx512vl = true;
  cpu.logical_cores = 2;
  cpu.l1d_bytes = 32 << 10;
  cpu.l2_bytes = 1 << 20;
  cpu.l3_bytes = 32 << 20;
  return cpu;
}

TEST(KernelConfig, PrintsOnlySetFieldsAndParsesBack) {
  KernelConfig c;
  c.block_m = 96;
  c.micro_n = 32;
  c.threads = 2;
  c.isa = 2;
  EXPECT_EQ(c.to_string(), "bm=96 mn=32 thr=2 isa=avx512");
  EXPECT_EQ(*KernelConfig::parse(c.to_string()), c);
  EXPECT_EQ(KernelConfig{}.to_string(), "-");
}

TEST(KernelConfig, MalformedTextIsRejected) {
  EXPECT_FALSE(KernelConfig::parse("bm").is_ok());
  EXPECT_FALSE(KernelConfig::parse("bogus=3").is_ok());
  EXPECT_FALSE(KernelConfig::parse("bm=-3").is_ok());
  EXPECT_FALSE(KernelConfig::parse("isa=sse9").is_ok());
  EXPECT_EQ(KernelConfig::parse("bm=12x").status().code(), ErrorCode::corrupt_data);
}

RC_GTEST_PROP(KernelConfig, ToStringThenParseIsTheIdentity, ()) {
  KernelConfig c;
  for (std::int32_t* field : {&c.block_m, &c.block_n, &c.block_k, &c.stages, &c.warps, &c.group_m, &c.split_k,
                              &c.stream_k, &c.micro_m, &c.micro_n, &c.threads, &c.rank}) {
    *field = *rc::gen::inRange<std::int32_t>(0, 100000);
  }
  c.isa = *rc::gen::inRange<std::int32_t>(0, 5);
  c.kernel = *rc::gen::inRange<std::int32_t>(0, kKernelFaultSpin + 1);  // a name: every kernel
  auto parsed = KernelConfig::parse(c.to_string());
  RC_ASSERT(parsed.is_ok());
  RC_ASSERT(*parsed == c);
}

TEST(ConfigSpace, BlocksClampToTheNextPowerOfTwoOfTheDimWithAMinimum) {
  EXPECT_EQ(scale_block_to_dim(128, 20, 16), 32);   // next_pow2(20) = 32
  EXPECT_EQ(scale_block_to_dim(128, 3, 16), 16);    // minimum block
  EXPECT_EQ(scale_block_to_dim(64, 4096, 16), 64);  // already small enough
  EXPECT_EQ(next_power_of_2(1), 1);
  EXPECT_EQ(next_power_of_2(65), 128);
}

TEST(ConfigSpace, DedupKeepsTheFirstAndHonoursTheCap) {
  KernelConfig a, b;
  a.block_m = 1;
  b.block_m = 2;
  auto kept = dedup_and_cap({a, b, a, b, a}, 10);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0], a);
  EXPECT_EQ(dedup_and_cap({a, b}, 1).size(), 1u);
}

TEST(CpuConfigSpace, NamedListsHaveTheirRowCounts) {
  EXPECT_EQ(cpu::cpu_default_list(cpu::kIsaAvx512).size(), 8u);
  EXPECT_EQ(cpu::cpu_default_list(cpu::kIsaAvx2).size(), 6u);
  EXPECT_EQ(cpu::cpu_int8_list(cpu::kIsaAvx512).size(), 6u);
  EXPECT_EQ(cpu::cpu_int8_list(cpu::kIsaAvx2).size(), 4u);
}

TEST(CpuConfigSpace, NamedListTilesFitTheirIsasRegisters) {
  for (int isa : {cpu::kIsaAvx2, cpu::kIsaAvx512}) {
    const int registers = isa == cpu::kIsaAvx512 ? 32 : 16;
    for (const auto* list : {&cpu::cpu_default_list(isa), &cpu::cpu_int8_list(isa)}) {
      for (const cpu::CpuListEntry& e : *list) {
        EXPECT_LE(cpu::registers_for_tile(e.micro_m, e.micro_nv), registers) << e.micro_m << "x" << e.micro_nv;
        EXPECT_EQ(e.block_m % e.micro_m, 0);
      }
    }
  }
}

TEST(CpuConfigSpace, DotProductLevelsServeOnlyTheDtypesTheyChange) {
  CpuInfo cpu = zen4_like();
  cpu.avx512_vnni = cpu.avx512_bf16 = true;
  EXPECT_EQ(cpu.best_isa(), cpu::kIsaAvx512Bf16);
  EXPECT_EQ(cpu::isa_for_dtype(DType::f32, cpu), cpu::kIsaAvx512);
  EXPECT_EQ(cpu::isa_for_dtype(DType::s8, cpu), cpu::kIsaAvx512Vnni);
  EXPECT_EQ(cpu::isa_for_dtype(DType::bf16, cpu), cpu::kIsaAvx512Bf16);
  cpu.avx512_bf16 = false;  // VNNI alone (Cascade Lake, Ice Lake): bf16 converts to f32
  EXPECT_EQ(cpu::isa_for_dtype(DType::bf16, cpu), cpu::kIsaAvx512);
  cpu.avx512f = false;
  EXPECT_EQ(cpu::isa_for_dtype(DType::s8, cpu), cpu::kIsaAvx2);
}

TEST(CpuConfigSpace, SmallAndSkinnyProblemsGetDirectKernelsFirst) {
  CpuInfo cpu = zen4_like();
  auto small = *Problem::create(17, 33, 65, DType::f32);
  auto configs = cpu::cpu_configs(small, SearchSpace::default_space, cpu);
  ASSERT_FALSE(configs.empty());
  EXPECT_EQ(configs.front().kernel, kKernelRows);
  EXPECT_EQ(configs.front().threads, 1);  // 36k multiply-adds: over before a second thread starts
  auto skinny = *Problem::create(4, 4096, 4096, DType::f32, "nt");
  configs = cpu::cpu_configs(skinny, SearchSpace::default_space, cpu);
  ASSERT_FALSE(configs.empty());
  EXPECT_EQ(configs.front().kernel, kKernelDot);
  EXPECT_EQ(configs.front().threads, 2);  // a large product always uses every core
  auto large = *Problem::create(1024, 1024, 1024, DType::f32);
  for (const KernelConfig& c : cpu::cpu_configs(large, SearchSpace::default_space, cpu)) {
    EXPECT_EQ(c.kernel, kKernelPacked) << c.to_string();
  }
}

// The pairs tile is offered where it runs: C of at most 8 columns and 24 rows, A and B
// row-major, one thread, a CPU with AVX-512.
// Thread counts scale with the product: one thread below 64k multiply-adds, every core above
// 4M; between them every core, a half and a quarter of them (where two or more) and one.
TEST(CpuConfigSpace, MidSizeProductsAreOfferedFewerThreadsOnManyCores) {
  auto offered = [](int cores, std::int64_t n) {
    CpuInfo cpu = zen4_like();
    cpu.logical_cores = cores;
    std::set<int> threads;
    for (const KernelConfig& c : cpu::cpu_configs(*Problem::create(n, n, n, DType::f32), SearchSpace::default_space, cpu)) {
      threads.insert(c.threads);
    }
    return threads;
  };
  EXPECT_EQ(offered(16, 64), (std::set<int>{1, 4, 8, 16}));   // 262k multiply-adds
  EXPECT_EQ(offered(16, 100), (std::set<int>{1, 4, 8, 16}));  // 1M
  EXPECT_EQ(offered(16, 256), (std::set<int>{16}));           // 16.8M
  EXPECT_EQ(offered(16, 32), (std::set<int>{1}));             // 32k
  EXPECT_EQ(offered(6, 64), (std::set<int>{1, 3, 6}));        // a quarter of 6 is 1: not again
  EXPECT_EQ(offered(2, 64), (std::set<int>{1, 2}));           // the 2-core VMs: as before
}

// The cap on the list grows with the thread counts: the single thread and the packed kernel,
// which come last, stay in the list where a product gets four thread counts.
TEST(CpuConfigSpace, TheCapGrowsWithTheThreadCounts) {
  CpuInfo cpu = zen4_like();
  const auto p = *Problem::create(100, 100, 100, DType::f32);
  auto count = [&](int cores) {
    cpu.logical_cores = cores;
    std::map<int, int> per_threads;
    int packed = 0;
    for (const KernelConfig& c : cpu::cpu_configs(p, SearchSpace::default_space, cpu)) {
      ++per_threads[c.threads];
      packed += c.kernel == kKernelPacked;
    }
    return std::pair{per_threads, packed};
  };
  const auto [two, packed_two] = count(2);
  const auto [sixteen, packed_sixteen] = count(16);
  // Every core gets as many configs on 16 cores as on 2; the single thread and the packed
  // kernel are still offered (with the cap of two thread counts, no single thread was).
  EXPECT_EQ(sixteen.at(16), two.at(2));
  EXPECT_GE(sixteen.count(1) ? sixteen.at(1) : 0, two.at(1) - 1);
  ASSERT_GT(packed_two, 0);
  EXPECT_GE(packed_sixteen, packed_two);
}

TEST(CpuConfigSpace, NarrowSmallProblemsGetThePairsTileOnAvx512) {
  auto offers_pairs = [](const CpuInfo& cpu, const Problem& p) {
    for (const KernelConfig& c : cpu::cpu_configs(p, SearchSpace::default_space, cpu)) {
      if (c.kernel != kKernelPairs) continue;
      EXPECT_EQ(c.micro_m, p.m()) << c.to_string();
      EXPECT_EQ(c.micro_n, 8) << c.to_string();
      EXPECT_EQ(c.threads, 1) << c.to_string();
      EXPECT_EQ(c.isa, cpu::kIsaAvx512) << c.to_string();
      return true;
    }
    return false;
  };
  CpuInfo cpu = zen4_like();
  EXPECT_TRUE(offers_pairs(cpu, *Problem::create(13, 7, 29, DType::f32)));
  EXPECT_TRUE(offers_pairs(cpu, *Problem::create(24, 8, 300, DType::f32)));
  EXPECT_FALSE(offers_pairs(cpu, *Problem::create(25, 8, 8, DType::f32)));        // taller than the tiles
  EXPECT_FALSE(offers_pairs(cpu, *Problem::create(8, 9, 8, DType::f32)));         // wider than half a vector
  EXPECT_FALSE(offers_pairs(cpu, *Problem::create(8, 8, 8, DType::f32, "tn")));   // A column-major
  EXPECT_FALSE(offers_pairs(cpu, *Problem::create(8, 8, 8, DType::bf16)));        // f32 only
  cpu.avx512f = false;
  EXPECT_FALSE(offers_pairs(cpu, *Problem::create(13, 7, 29, DType::f32)));
}

// The rows-dots tiles are offered for C 1-4 columns past whole vectors (A and B row-major),
// with the rows tiles of the whole vectors.
TEST(CpuConfigSpace, CPastWholeVectorsByAFewColumnsGetsRowsDotsTiles) {
  auto rows_dots = [](const CpuInfo& cpu, const Problem& p) {
    std::vector<KernelConfig> found;
    for (const KernelConfig& c : cpu::cpu_configs(p, SearchSpace::default_space, cpu)) {
      if (c.kernel == kKernelRowsDots) found.push_back(c);
    }
    return found;
  };
  CpuInfo cpu = zen4_like();
  const auto offered = rows_dots(cpu, *Problem::create(17, 33, 65, DType::f32));
  ASSERT_FALSE(offered.empty());
  for (const KernelConfig& c : offered) EXPECT_EQ(c.micro_n, 32) << c.to_string();  // the two whole vectors
  EXPECT_FALSE(rows_dots(cpu, *Problem::create(17, 36, 65, DType::f32)).empty());   // 4 columns past
  EXPECT_TRUE(rows_dots(cpu, *Problem::create(17, 37, 65, DType::f32)).empty());    // 5: the rows kernel's padding
  EXPECT_TRUE(rows_dots(cpu, *Problem::create(17, 32, 65, DType::f32)).empty());    // whole vectors
  EXPECT_TRUE(rows_dots(cpu, *Problem::create(17, 33, 65, DType::f32, "tn")).empty());
  EXPECT_TRUE(rows_dots(cpu, *Problem::create(17, 33, 65, DType::bf16)).empty());
  cpu.avx512f = false;  // AVX2: 8 lanes, so 33 is 4 whole vectors and 1 column
  const auto avx2 = rows_dots(cpu, *Problem::create(17, 33, 65, DType::f32));
  ASSERT_FALSE(avx2.empty());
  for (const KernelConfig& c : avx2) EXPECT_EQ(c.micro_n, 32) << c.to_string();
}

TEST(CpuConfigSpace, RegisterTilesThatWouldSpillArePrunedForAvx2) {
  CpuInfo cpu = zen4_like();
  auto p = *Problem::create(512, 512, 512, DType::f32);
  KernelConfig c;
  c.isa = 1;          // AVX2: 16 registers
  c.micro_m = 14;     // 14 x 2 accumulators + 2 + 1 = 31 registers
  c.micro_n = 16;
  c.block_m = 112;
  c.block_n = 512;
  c.block_k = 128;
  c.threads = 1;
  Status s = cpu::check_cpu_limits(c, p, cpu);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("vector registers"), std::string::npos);
  c.isa = 2;  // AVX-512 has 32
  c.micro_n = 32;
  EXPECT_TRUE(cpu::check_cpu_limits(c, p, cpu).is_ok());
}

TEST(CpuConfigSpace, PanelsThatDoNotFitTheirCacheArePruned) {
  CpuInfo cpu = zen4_like();
  auto p = *Problem::create(512, 512, 512, DType::f32);
  KernelConfig c;
  c.isa = 2;
  c.micro_m = 4;
  c.micro_n = 32;
  c.block_m = 64;
  c.block_n = 512;
  c.threads = 1;
  c.block_k = 1024;
  EXPECT_TRUE(cpu::check_cpu_limits(c, p, cpu).is_ok());  // (64 + 32) x 1024 x 4 B = 384 KiB
  c.block_m = 2048;  // (2048 + 32) x 1024 x 4 B > 1 MiB L2
  EXPECT_NE(cpu::check_cpu_limits(c, p, cpu).message().find("L2"), std::string::npos);
  c.block_m = 64;
  c.block_n = 16384;  // 1024 x 16384 x 4 B = 64 MiB > 32 MiB L3
  EXPECT_NE(cpu::check_cpu_limits(c, p, cpu).message().find("L3"), std::string::npos);
  c.block_n = 512;
  c.threads = 3;
  EXPECT_NE(cpu::check_cpu_limits(c, p, cpu).message().find("threads"), std::string::npos);
}

TEST(CpuConfigSpace, ExhaustiveIsLargerThanDefaultAndCapped) {
  CpuInfo cpu = zen4_like();
  auto p = *Problem::create(1024, 1024, 1024, DType::f32);
  const auto defaults = cpu::cpu_configs(p, SearchSpace::default_space, cpu);
  const auto exhaustive = cpu::cpu_configs(p, SearchSpace::exhaustive, cpu);
  EXPECT_GT(exhaustive.size(), defaults.size());
  EXPECT_LE(defaults.size(), cpu::kDefaultCap);
  EXPECT_LE(exhaustive.size(), cpu::kExhaustiveCap);
}

// Every config the space yields is legal for the problem and the CPU, sized to the problem,
// and unique.
RC_GTEST_PROP(CpuConfigSpace, EveryGeneratedConfigFitsTheProblemAndTheMachine, ()) {
  CpuInfo cpu = zen4_like();
  cpu.avx512f = *rc::gen::arbitrary<bool>();  // with and without AVX-512
  cpu.avx512_vnni = *rc::gen::arbitrary<bool>();
  cpu.avx512_bf16 = *rc::gen::arbitrary<bool>();
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 5000);
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 5000);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 5000);
  const DType type = *rc::gen::element(DType::f32, DType::bf16, DType::s8);
  const auto space = *rc::gen::element(SearchSpace::default_space, SearchSpace::exhaustive);
  auto p = *Problem::create(m, n, k, type);
  const auto configs = cpu::cpu_configs(p, space, cpu);
  RC_ASSERT(!configs.empty());
  std::set<KernelConfig> unique(configs.begin(), configs.end());
  RC_ASSERT(unique.size() == configs.size());
  for (const KernelConfig& c : configs) {
    RC_ASSERT(cpu::check_cpu_limits(c, p, cpu).is_ok());
    RC_ASSERT(c.isa <= cpu.best_isa());
    RC_ASSERT(c.block_m % c.micro_m == 0);
    RC_ASSERT(c.block_n % c.micro_n == 0);
    // Blocks are no larger than the problem needs (next power of two, whole tiles).
    RC_ASSERT(c.block_m <= std::max<std::int64_t>(next_power_of_2(m), c.micro_m) + c.micro_m);
    RC_ASSERT(c.block_k <= std::max<std::int64_t>(next_power_of_2(k), 16));
  }
}

}  // namespace
}  // namespace gemmtune
