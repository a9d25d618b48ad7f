// The Hopper template's config space, pruning reasons, problem mapping and instruction prelude;
// none of it needs a GPU.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "backends/cuda/kernels/wgmma_stream_k.cuh"
#include "backends/cuda/wgmma_backend.h"
#include "backends/cuda/wgmma_config_space.h"
#include "backends/cuda/pad_copy_kernel.h"
#include "backends/cuda/padded_operand.h"
#include "core/config_space.h"
#include "cuda/h100.h"
#include "cuda/wgmma_test_problems.h"

namespace gemmtune::cuda {
namespace {

using testing::config_of;
using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout = "nt") {
  return testing::wgmma_problem(m, n, k, type, layout);
}



TEST(WgmmaConfigSpace, NamedListsHaveTheirRowCounts) {
  EXPECT_EQ(wgmma_default_list().size(), 19u);
  // swap × block_m (64, 128, 256) × block_n × (1, 2 cooperative, 2 ping-pong consumers) ×
  // clusters × stages, and 192 rows in 3 consumers
  EXPECT_EQ(wgmma_exhaustive_entries().size(), 2u * 3 * 4 * 3 * 3 * 4 + 2u * 4 * 3 * 4);
}

// The exhaustive space reaches the three-consumer tiles where they fit, and stays under its cap.
TEST(WgmmaConfigSpace, TheExhaustiveSpaceHoldsThreeConsumerTilesUnderItsCap) {
  int checked = 0;
  for (auto [m, n] : {std::pair{300, 6144}, std::pair{3000, 6144}, std::pair{4096, 4096}, std::pair{16, 4096}}) {
    const Problem p = make(m, n, 4096, DType::bf16);
    const auto configs = wgmma_configs(p, SearchSpace::exhaustive, h100());
    EXPECT_LE(configs.size(), kWgmmaExhaustiveCap);
    int three = 0;
    for (const KernelConfig& c : configs) {
      if (c.warps != 16) continue;
      ++three;
      EXPECT_EQ(c.block_m, 192) << c.to_string();
      EXPECT_EQ(c.pingpong, 0) << c.to_string();
      EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok()) << c.to_string();
    }
    std::printf("%dx%d: %zu exhaustive configs, %d of them three-consumer\n", m, n, configs.size(), three);
    if (m >= 256) EXPECT_GT(three, 0) << m << "x" << n;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(WgmmaConfigSpace, EveryDefaultRowRunsALargeProblemOfEveryDtype) {
  int checked = 0;
  for (DType type : {DType::f16, DType::bf16, DType::s8, DType::f32}) {
    const Problem p = make(4096, 4096, 4096, type);
    for (const WgmmaListEntry& e : wgmma_default_list()) {
      const KernelConfig c = config_of(e, type);
      const Status s = wgmma_can_implement(p, c, h100());
      EXPECT_TRUE(s.is_ok()) << c.to_string() << " for " << p.describe() << ": " << s.message();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 * 19);
}

TEST(WgmmaConfigSpace, LargeProblemsGetTheUnswappedListAndSmallMTheSwappedRowsToo) {
  const auto large = wgmma_configs(make(4096, 4096, 4096, DType::bf16), SearchSpace::default_space, h100());
  EXPECT_EQ(large.size(), 13u);
  for (const KernelConfig& c : large) EXPECT_EQ(c.swap_ab, 0) << c.to_string();

  const auto small = wgmma_configs(make(8, 4096, 4096, DType::bf16), SearchSpace::default_space, h100());
  int swapped = 0;
  for (const KernelConfig& c : small) {
    if (c.swap_ab == 0) continue;
    ++swapped;
    EXPECT_EQ(c.block_n, 8) << "n' = m = 8: " << c.to_string();
  }
  EXPECT_GE(swapped, 4);
}

// The default space leaves out unswapped tiles more than half of whose rows would be padding:
// at m = 1 every tile is swapped; at m = 32 the 64-row unswapped tiles stay, the 128-row ones go.
// The exhaustive space keeps them all.
TEST(WgmmaConfigSpace, SmallMLeavesOutUnswappedTilesOfMostlyPadding) {
  int checked = 0;
  for (std::int64_t m : {1, 8, 32, 100}) {
    const Problem p = make(m, 4096, 4096, DType::bf16);
    int unswapped = 0;
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
      if (c.swap_ab != 0) continue;
      ++unswapped;
      EXPECT_GE(2 * m, c.block_m) << m << ": " << c.to_string();
      ++checked;
    }
    if (m < 32) EXPECT_EQ(unswapped, 0) << m;
    if (m >= 32) EXPECT_GE(unswapped, 1) << m;
    int exhaustive_unswapped = 0;
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::exhaustive, h100())) exhaustive_unswapped += c.swap_ab == 0;
    EXPECT_GE(exhaustive_unswapped, 1) << m;
  }
  EXPECT_GE(checked, 2);
}

// Between 256 and 512 rows swapped tiles split m evenly (n' = m): 300 rows are two tiles of
// 152 (bf16), of 160 for s8 (its n steps by 16); 304 rows of a column-major A (B' n-major,
// 64-column chunks) two of 192. Each is offered 64 rows tall (alone, and in a cluster of the
// two CTAs that share its weights) and 128 rows tall; 256 rows tall where its 2 × width / 2
// accumulators fit (152 columns, not 160 or 192).
TEST(WgmmaConfigSpace, MidMGetsSwappedTilesSplittingMEvenly) {
  struct Case {
    std::int64_t m;
    DType type;
    const char* layout;
    std::int32_t block_n;
    std::set<std::string> tiles;  // block_m x cluster_n
  };
  int checked = 0;
  for (const Case& k : {Case{300, DType::bf16, "nt", 152, {"64x1", "64x2", "128x1", "256x1"}},
                        Case{300, DType::s8, "nt", 160, {"64x1", "64x2", "128x1"}},
                        Case{304, DType::bf16, "tn", 192, {"64x1", "64x2", "128x1"}}}) {
    const Problem p = make(k.m, 14336, 4096, k.type, k.layout);
    std::set<std::string> tiles;
    const auto configs = wgmma_configs(p, SearchSpace::default_space, h100());
    EXPECT_LE(configs.size(), kWgmmaDefaultCap);
    for (const KernelConfig& c : configs) {
      if (c.swap_ab == 0) continue;
      EXPECT_EQ(c.block_n, k.block_n) << dtype_name(k.type) << " " << k.layout << ": " << c.to_string();
      EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok()) << c.to_string();
      tiles.insert(std::to_string(c.block_m) + "x" + std::to_string(std::max(1, c.cluster_n)));
    }
    EXPECT_EQ(tiles, k.tiles) << dtype_name(k.type) << " " << k.layout;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  // 256 and 384 rows are whole 128-row tiles: no swapped tiles there either.
  for (std::int64_t m : {255, 256, 384, 512, 1000}) {
    for (const KernelConfig& c : wgmma_configs(make(m, 14336, 4096, DType::bf16), SearchSpace::default_space, h100())) {
      if (m >= 256) EXPECT_EQ(c.swap_ab, 0) << m << ": " << c.to_string();
    }
  }
}

TEST(WgmmaConfigSpace, AnS8TileWhoseWidthIntegerWgmmaLacksIsRefused) {
  const Problem p = make(300, 14336, 4096, DType::s8);
  KernelConfig c = config_of(wgmma_default_list()[0], DType::s8);
  c.block_n = 152;
  const Status refused = check_wgmma_config_shape(c, p);
  EXPECT_EQ(refused.code(), ErrorCode::unsupported);
  EXPECT_NE(refused.message().find("multiple of 16"), std::string::npos) << refused.message();
  c.block_n = 160;
  EXPECT_TRUE(check_wgmma_config_shape(c, p).is_ok());
}

TEST(WgmmaConfigSpace, TilesShrinkToTheProblemAndStagesGrowIntoTheFreedSharedMemory) {
  for (const KernelConfig& c : wgmma_configs(make(100, 72, 1000, DType::f16), SearchSpace::default_space, h100())) {
    const std::int64_t m = c.swap_ab ? 72 : 100, n = c.swap_ab ? 100 : 72;
    EXPECT_LE(c.block_n, std::max<std::int64_t>(8, next_power_of_2(n))) << c.to_string();
    EXPECT_LE(c.block_m, std::max<std::int64_t>(128, next_power_of_2(m))) << c.to_string();
    EXPECT_TRUE(wgmma_can_implement(make(100, 72, 1000, DType::f16), c, h100()).is_ok()) << c.to_string();
  }
}

TEST(WgmmaConfigSpace, UnsupportedProblemsAndConfigsSayWhy) {
  const KernelConfig c = config_of(wgmma_default_list()[0], DType::bf16);
  auto reason = [&](const Problem& p, const KernelConfig& config, const CudaInfo& device = h100()) {
    const Status s = wgmma_can_implement(p, config, device);
    EXPECT_EQ(s.code(), ErrorCode::unsupported) << p.describe() << " " << config.to_string();
    return s.message();
  };
  KernelConfig s8 = c;
  s8.block_k = 128;
  EXPECT_NE(reason(make(256, 256, 256, DType::s8, "nn"), s8).find("k-major only"), std::string::npos);
  ProblemSpec plain_f32 = make(256, 256, 256, DType::f32).spec();
  plain_f32.allow_tf32 = false;
  EXPECT_NE(reason(*Problem::create(plain_f32), c).find("without TF32"), std::string::npos);
  // A 4096-row B of 50,001 columns (nn, ldb 50,001: not a multiple of 16 bytes) would need a
  // padded copy of 390 MiB.
  const std::string huge_copy = reason(make(16, 50001, 4096, DType::bf16, "nn"), c);
  EXPECT_NE(huge_copy.find("TMA cannot load B"), std::string::npos) << huge_copy;
  EXPECT_NE(huge_copy.find("padded copy would take 390 MiB"), std::string::npos) << huge_copy;
  CudaInfo ampere = h100();
  ampere.cc_major = 8;
  EXPECT_NE(reason(make(256, 256, 256, DType::bf16), c, ampere).find("compute capability 9.0"), std::string::npos);
  KernelConfig deep = c;
  deep.stages = 6;  // 6 × 48 KB of 128×256 tiles
  EXPECT_NE(reason(make(4096, 4096, 4096, DType::bf16), deep).find("shared memory"), std::string::npos);
  KernelConfig wide = c;
  wide.block_m = 256;  // two consumers of 128 rows × 256 columns: 256 accumulators each
  EXPECT_NE(reason(make(4096, 4096, 4096, DType::bf16), wide).find("accumulators"), std::string::npos);
  KernelConfig narrow_mn = c;
  narrow_mn.block_n = 96;  // B n-major (nn) comes in 64-column chunks
  EXPECT_NE(reason(make(4096, 4096, 4096, DType::bf16, "nn"), narrow_mn).find("64-column chunks"), std::string::npos);
}

// At the decode shapes the two slices of k are one cluster (reduce=cluster) in the default
// space, in place of the workspace, where the kernel takes it (not ping-pong) and its buffer
// costs no stages; the exhaustive space holds both. The cluster
// counts its slices in its shared memory (CTA 0's buffer), so the stages shrink to fit it, and
// the kernel takes no cluster along m or n, no ping-pong and at most 2 consumers beside it.
TEST(WgmmaConfigSpace, DecodeShapesSplitInClustersOfTwoSummedInSharedMemory) {
  const Problem decode = make(64, 4096, 4096, DType::bf16);
  int clustered = 0;
  for (const KernelConfig& c : wgmma_configs(decode, SearchSpace::default_space, h100())) {
    if (c.split_k < 2) continue;
    clustered += c.split_reduce == 1;
    if (c.split_reduce == 0) {
      // Ping-pong, or a tile whose buffer would cost stages.
      KernelConfig twin = c;
      twin.split_reduce = 1;
      EXPECT_TRUE(c.pingpong == 1 || !wgmma_can_implement(decode, twin, h100()).is_ok()) << c.to_string();
    }
    if (c.split_reduce == 1) {
      EXPECT_EQ(c.split_k, 2) << c.to_string();
      EXPECT_EQ(wgmma_mapping(decode, c).instance.cluster_size(), 2) << c.to_string();
      EXPECT_LE(wgmma_instance(decode, c).shared_bytes(), h100().shared_memory_per_block_optin) << c.to_string();
      EXPECT_EQ(wgmma_instance(decode, c).workspace_bytes(64, 4096, 132), 0) << c.to_string();
    }
  }
  EXPECT_GE(clustered, 2);  // the 64-row tiles, swapped and not
  int exhaustive_clustered = 0, exhaustive_workspace = 0;
  for (const KernelConfig& c : wgmma_configs(decode, SearchSpace::exhaustive, h100())) {
    if (c.split_k != 2) continue;
    exhaustive_clustered += c.split_reduce == 1;
    exhaustive_workspace += c.split_reduce == 0;
  }
  EXPECT_GT(exhaustive_clustered, clustered);
  EXPECT_GT(exhaustive_workspace, 0);

  KernelConfig c = *KernelConfig::parse("bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 splitk=2 reduce=cluster swap=1");
  EXPECT_EQ(c.to_string(), "bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 splitk=2 reduce=cluster swap=1");
  EXPECT_TRUE(wgmma_can_implement(decode, c, h100()).is_ok());
  auto refused = [&](const char* text) {
    const Status s = wgmma_can_implement(decode, *KernelConfig::parse(text), h100());
    EXPECT_FALSE(s.is_ok()) << text;
    return s.message();
  };
  EXPECT_NE(refused("bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 reduce=cluster swap=1").find("reduce=cluster"),
            std::string::npos);
  EXPECT_NE(refused("bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 splitk=2 reduce=cluster cm=2 swap=1").find("cluster along"),
            std::string::npos);
  EXPECT_NE(refused("bm=128 bn=64 bk=64 stages=6 warps=12 gm=8 splitk=2 reduce=cluster pp=1 swap=1").find("ping-pong"),
            std::string::npos);
  EXPECT_NE(refused("bm=64 bn=256 bk=64 stages=4 warps=8 gm=8 splitk=8 reduce=cluster swap=1").find("shared memory"),
            std::string::npos);
  EXPECT_FALSE(KernelConfig::parse("splitk=2 reduce=dsmem").is_ok());
}

TEST(WgmmaConfigSpace, KZeroIsOfferedWhateverTheLeadingDimensions) {
  // C = beta·C: no operand is loaded, so leading dimensions TMA could not address do not matter.
  ProblemSpec spec = make(64, 64, 0, DType::bf16).spec();
  spec.c_type = DType::f32;
  spec.beta = 0.5;
  const Problem p = *Problem::create(spec);
  const auto configs = wgmma_configs(p, SearchSpace::default_space, h100());
  ASSERT_FALSE(configs.empty());
  for (const KernelConfig& c : configs) EXPECT_EQ(c.split_k, 0) << "no k to split: " << c.to_string();
}

TEST(WgmmaConfigSpace, TheMappingSwapsOperandsAndLayouts) {
  const Problem nn = make(30, 500, 64, DType::f16, "nn");
  KernelConfig c = config_of(wgmma_default_list()[12], DType::f16);  // a swapped row
  ASSERT_EQ(c.swap_ab, 1);
  const int a = 0, b = 0;
  WgmmaMapping swapped = wgmma_mapping(nn, c, &a, &b);
  EXPECT_EQ(swapped.m, 500);
  EXPECT_EQ(swapped.n, 30);
  EXPECT_EQ(swapped.a.data, &b) << "A' = Bᵀ";
  EXPECT_EQ(swapped.b.data, &a) << "B' = Aᵀ";
  EXPECT_TRUE(swapped.instance.a_mn) << "B row-major (n contiguous) is an m'-major A'";
  EXPECT_FALSE(swapped.instance.b_mn) << "A row-major (k contiguous) is a k-major B'";
  EXPECT_TRUE(swapped.instance.c_transposed);
  EXPECT_FALSE(swapped.instance.c_tma) << "the TMA-store epilogue writes row-major C' only";

  c.swap_ab = 0;
  WgmmaMapping plain = wgmma_mapping(make(256, 512, 64, DType::bf16, "tn"), c);
  EXPECT_TRUE(plain.instance.a_mn) << "A column-major is m-major";
  EXPECT_TRUE(plain.instance.b_mn) << "B row-major is n-major";
  EXPECT_FALSE(plain.instance.c_transposed);
}

// Leading dimensions that are not a multiple of 16 bytes (tn with m = 300: lda = 300 bf16, 600
// bytes; nn with n = 1001: ldb = 1001) are read from copies padded to the next multiple, in every
// dtype's step (8 bf16 elements, 16 s8, 4 f32), swapped or not; aligned ones are read in place.
TEST(WgmmaConfigSpace, OperandsTmaCannotAddressAreReadFromPaddedCopies) {
  int checked = 0;
  for (int swap : {0, 1}) {
    KernelConfig c = config_of(wgmma_default_list()[0], DType::bf16);
    c.swap_ab = swap;
    const Problem tn = make(300, 4096, 4096, DType::bf16, "tn");
    EXPECT_TRUE(wgmma_can_implement(tn, c, h100()).is_ok()) << wgmma_can_implement(tn, c, h100()).message();
    const WgmmaMapping map = wgmma_mapping(tn, c);
    const WgmmaOperand& a = swap ? map.b : map.a;  // the problem's A, as the kernel reads it
    const WgmmaOperand& b = swap ? map.a : map.b;
    EXPECT_EQ(a.caller_ld, 300);
    EXPECT_EQ(a.ld, 304);
    EXPECT_EQ(padded_copy_bytes(a), 4096 * 304 * 2) << "k lines of 304 elements";
    EXPECT_EQ(b.caller_ld, 0) << "ldb = 4096 is aligned";
    EXPECT_EQ(b.ld, 4096);
    EXPECT_EQ(padded_copy_bytes(b), 0);
    checked += 7;
  }
  struct Case {
    DType dtype;
    const char* layout;
    std::int64_t m, n, k, caller_ld, ld;
    bool a;  // which operand is padded
  };
  for (const Case& k : {Case{DType::bf16, "nn", 64, 1001, 256, 1001, 1008, false},
                        Case{DType::f16, "nt", 64, 512, 1001, 1001, 1008, true},
                        Case{DType::s8, "nt", 64, 512, 1000, 1000, 1008, true},
                        Case{DType::f32, "nt", 64, 512, 1001, 1001, 1004, true}}) {
    ProblemSpec spec = make(k.m, k.n, k.k, k.dtype, k.layout).spec();
    spec.allow_tf32 = k.dtype == DType::f32;
    const Problem p = *Problem::create(spec);
    const WgmmaMapping map = wgmma_mapping(p, config_of(wgmma_default_list()[0], k.dtype));
    const WgmmaOperand& padded = k.a ? map.a : map.b;
    EXPECT_EQ(padded.caller_ld, k.caller_ld) << p.describe();
    EXPECT_EQ(padded.ld, k.ld) << p.describe();
    checked += 2;
  }
  EXPECT_EQ(checked, 22);
}

// The pad-copy kernel copies lines in the widest chunk that divides the caller's pitch, its line
// and its address: bf16 lines of 300 elements (600 bytes) in 8 bytes, f16 lines of 1001 in 2,
// TF32 in 4, s8 of odd k byte by byte, and narrower where the address is off. Where that chunk
// is narrower than 8 bytes, or the caller's lines lie on 16-byte boundaries, and the copy's do
// (a padded copy's), it copies 16-byte chunks shifted into place instead.
TEST(WgmmaConfigSpace, PaddedCopiesGoInTheWidestChunkThePitchLineAndAddressAllow) {
  auto shape_of = [](const Problem& p, bool a) {
    const WgmmaMapping map = wgmma_mapping(p, config_of(wgmma_default_list()[0], p.a_type()));
    const WgmmaOperand& o = a ? map.a : map.b;
    EXPECT_NE(o.caller_ld, 0) << p.describe();
    return padded_copy_shape(o);
  };
  auto address = [](std::uintptr_t at) { return reinterpret_cast<const void*>(at); };
  // Copied at the caller's own pitch (never on 16-byte boundaries here), as a moved operand is.
  auto chunk = [&](const Problem& p, bool a, std::uintptr_t at) {
    PaddedCopyShape shape = shape_of(p, a);
    shape.copy_pitch = shape.caller_pitch;
    return pad_copy_chunk_bytes(shape, address(at), address(4096));
  };
  struct Case {
    Problem problem;
    bool a;  // the padded operand: A, or B
    std::uintptr_t at;
    int padded_chunk;
  };
  const Problem tn = make(300, 4096, 4096, DType::bf16, "tn");
  const Problem nn = make(64, 1001, 256, DType::f16, "nn");
  const Problem s8 = make(64, 512, 1001, DType::s8, "nt");
  int checked = 0;
  for (const Case& c : {Case{tn, true, 256, 8}, Case{tn, true, 257, 16}, Case{tn, true, 258, 16},
                        Case{tn, true, 260, 16}, Case{tn, true, 264, 8}, Case{nn, false, 256, 16},
                        Case{nn, false, 258, 16}, Case{s8, true, 256, 16}, Case{s8, true, 263, 16}}) {
    const PaddedCopyShape shape = shape_of(c.problem, c.a);
    EXPECT_EQ(pad_copy_chunk_bytes(shape, address(c.at), address(4096)), c.padded_chunk)
        << c.problem.describe() << " from " << c.at;
    EXPECT_NE(pad_copy_chunk_bytes(shape, address(c.at), address(4096 + 8)), 16) << "a copy off 16 bytes";
    ++checked;
  }
  EXPECT_EQ(checked, 9);
  // An operand moved at its own pitch of 8192 bytes: from 16 bytes off in 16, from 8 in 8.
  const PaddedCopyShape moved{4096, 8192, 8192, 8192};
  EXPECT_EQ(pad_copy_chunk_bytes(moved, address(256 + 16), address(4096)), 16);
  EXPECT_EQ(pad_copy_chunk_bytes(moved, address(256 + 8), address(4096)), 8);
  EXPECT_EQ(pad_copy_chunk_bytes(moved, address(256 + 2), address(4096)), 16);
  const PaddedCopyShape shape = padded_copy_shape(wgmma_mapping(tn, config_of(wgmma_default_list()[0], DType::bf16)).a);
  EXPECT_EQ(shape.lines, 4096);
  EXPECT_EQ(shape.line_bytes, 600);
  EXPECT_EQ(shape.caller_pitch, 600);
  EXPECT_EQ(shape.copy_pitch, 608);
  EXPECT_EQ(shape_of(tn, true).copy_pitch, 608);
  EXPECT_EQ(chunk(tn, true, 256), 8);
  EXPECT_EQ(chunk(tn, true, 256 + 4), 4) << "an address 4 bytes off";
  EXPECT_EQ(chunk(tn, true, 256 + 2), 2);
  EXPECT_EQ(chunk(make(64, 1001, 256, DType::f16, "nn"), false, 256), 2);
  ProblemSpec tf32 = make(64, 512, 1001, DType::f32, "nt").spec();
  tf32.allow_tf32 = true;
  EXPECT_EQ(chunk(*Problem::create(tf32), true, 256), 4);
  EXPECT_EQ(chunk(make(64, 512, 1001, DType::s8, "nt"), true, 256), 1);
}

TEST(WgmmaConfigSpace, ThePreludeIssuesTheDtypesInstructionWithOneOperandPerAccumulator) {
  struct Case {
    int in_code;
    const char* instruction;
  };
  for (Case k : {Case{0, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
                 Case{1, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"},
                 Case{2, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"},
                 Case{3, "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8"}}) {
    WgmmaInstance w;
    w.in_code = k.in_code;
    w.block_n = 128;
    const std::string source = wgmma_kernel_source(w, "// template");
    EXPECT_NE(source.find(k.instruction), std::string::npos) << source.substr(0, 400);
    EXPECT_NE(source.find("%63}"), std::string::npos) << "64 accumulators for n = 128";
    EXPECT_EQ(source.find("%64}"), std::string::npos);
    EXPECT_NE(source.find("// template"), std::string::npos);
  }
}

// Two operands' copies in one buffer: each at a multiple of 256 bytes, in the order added, and
// only those added.
TEST(WgmmaConfigSpace, OperandCopiesLieOneAfterAnotherOn256ByteBoundaries) {
  char buffer[1];
  void* base = buffer;
  OperandCopies both;
  both.add(0, PaddedCopyShape{4096, 600, 600, 608});  // 2,490,368 bytes: a multiple of 256
  both.add(1, PaddedCopyShape{3, 30, 30, 32});        // 96 bytes, taking 256
  EXPECT_TRUE(both.copies(0) && both.copies(1) && both.any());
  EXPECT_EQ(both.at(base, 0), base);
  EXPECT_EQ(static_cast<char*>(both.at(base, 1)) - buffer, 2490368);
  EXPECT_EQ(both.bytes(), 2490368u + 256u);
  OperandCopies b_alone;
  b_alone.add(1, PaddedCopyShape{5, 20, 20, 32});
  EXPECT_FALSE(b_alone.copies(0));
  EXPECT_EQ(b_alone.at(base, 1), base);
  EXPECT_EQ(b_alone.bytes(), 256u);
  EXPECT_FALSE(OperandCopies().any());
}

// And of the pad-copy kernel, which a padded operand's choices are timed with.
TEST(WgmmaConfigSpace, VersionIsAHashOfTheTemplateThePreludeAndThePadCopy) {
  EXPECT_EQ(wgmma_backend_version().rfind("gemm_wgmma-", 0), 0u);
  EXPECT_EQ(wgmma_backend_version().size(), 11u + 16u + 1u + pad_copy_version().size());
  EXPECT_NE(wgmma_backend_version().find("+" + pad_copy_version()), std::string::npos);
  EXPECT_EQ(pad_copy_version().rfind("pad_copy-", 0), 0u);
  EXPECT_EQ(gemm_wgmma_source().find("#include"), std::string_view::npos) << "the template must need no headers";
  EXPECT_NE(gemm_wgmma_source().find("cp.async.bulk.tensor"), std::string_view::npos);
}

}  // namespace
}  // namespace gemmtune::cuda
