// The cpu config space and the compiled kernels agree: every config the space offers has its
// kernel compiled, and every compiled kernel is one the space can offer. Both follow the rules of cpu_offered_kernels.h; these
// tests walk the space (both search spaces, every dtype and layout, CPUs of every ISA level) to
// check that the tile lists and the space's own conditions keep to them too.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "backend_test_support.h"
#include "backends/cpu/cpu_backends.h"
#include "backends/cpu/cpu_config_space.h"
#include "backends/cpu/cpu_kernel_families.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_offered_kernels.h"

namespace gemmtune {
namespace {

constexpr int kLevels = cpu::kIsaAvx512Bf16 + 1;

// A CPU whose best ISA level is `isa`, with Zen 4's caches and two cores.
CpuInfo cpu_at_level(int isa) {
  CpuInfo cpu;
  cpu.avx2 = cpu.fma = cpu.f16c = isa >= cpu::kIsaAvx2;
  cpu.avx512f = cpu.avx512bw = cpu.avx512vl = isa >= cpu::kIsaAvx512;
  cpu.avx512_vnni = isa >= cpu::kIsaAvx512Vnni;
  cpu.avx512_bf16 = isa >= cpu::kIsaAvx512Bf16;
  cpu.logical_cores = 2;
  cpu.l1d_bytes = 32 << 10;
  cpu.l2_bytes = 1 << 20;
  cpu.l3_bytes = 32 << 20;
  return cpu;
}

// A kernel as the lookups name it: ISA level, algorithm, dtypes, tile key.
using KernelKey = std::tuple<int, int, DType, DType, int, int>;

// Problems that reach every branch of the space: every height of the tile and pairs kernels
// (1-24 rows, and one more) against C of 1-4 vectors and a few columns past whole vectors at
// each vector width (4, 8 and 16 lanes: the tile and rows-dots kernels), larger problems for
// the packed lists, and skinny ones whose B overflows L2 (the stream and axpy kernels).
std::vector<std::array<std::int64_t, 3>> walked_shapes() {
  std::vector<std::array<std::int64_t, 3>> shapes;
  for (std::int64_t m = 1; m <= cpu::kMaxPairsRows + 1; ++m) {
    for (std::int64_t n : {1, 5, 8, 9, 13, 17, 25, 33, 49}) shapes.push_back({m, n, 19});
  }
  for (std::int64_t m : {1, 2, 4, 16}) shapes.push_back({m, 2048, 2048});
  for (std::int64_t m : {64, 300, 1024}) shapes.push_back({m, m, m});
  return shapes;
}

struct Walk {
  std::array<int, kLevels> configs{};    // configs offered to a CPU of each best ISA level
  std::array<int, kLevels> looked_up{};  // of those, the ones whose kernel was looked up
  std::array<int, kLevels> below{};      // ... and those of a level below the build's lowest
  std::vector<KernelKey> missing;        // configs whose kernel find_cpu_kernel lacks
  std::set<KernelKey> offered;           // every kernel some config names
};

// Every config both search spaces offer to a CPU of each ISA level, for every dtype pair,
// layout and walked shape, every level down to generic (as a portable build offers them).
// Their kernels are looked up at the levels this machine runs and this build compiled
// (lowest_runnable_isa to runnable_isa).
const Walk& walk() {
  static const Walk result = [] {
    Walk w;
    const std::pair<DType, DType> types[] = {{DType::f32, DType::f32},  {DType::f16, DType::f16},
                                             {DType::f16, DType::f32},  {DType::bf16, DType::bf16},
                                             {DType::bf16, DType::f32}, {DType::s8, DType::s32}};
    const auto shapes = walked_shapes();
    for (int level = 0; level < kLevels; ++level) {
      const CpuInfo cpu = cpu_at_level(level);
      const bool here = level <= test_support::runnable_isa();
      for (auto [in, out] : types) {
        for (const char* layout : {"nn", "nt", "tn", "tt"}) {
          const auto layouts = *parse_layout_letters(layout);
          for (auto [m, n, k] : shapes) {
            const Problem p = *Problem::create({.m = m, .n = n, .k = k, .a_type = in, .b_type = in, .c_type = out,
                                                .a_layout = layouts.first, .b_layout = layouts.second});
            for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
              for (const KernelConfig& c : cpu::cpu_configs(p, space, cpu, cpu::kIsaGeneric)) {
                const cpu::TileKey key = cpu::tile_key(c.kernel, c.micro_m, c.micro_n, cpu::vector_lanes(c.isa));
                const KernelKey kernel{c.isa, c.kernel, in, out, key.first, key.second};
                w.offered.insert(kernel);
                ++w.configs[level];
                if (!here) continue;
                if (c.isa < test_support::lowest_runnable_isa()) {
                  ++w.below[level];
                  continue;
                }
                ++w.looked_up[level];
                if (cpu::find_cpu_kernel(c.isa, c.kernel, in, out, key.first, key.second) == nullptr) {
                  w.missing.push_back(kernel);
                }
              }
            }
          }
        }
      }
    }
    return w;
  }();
  return result;
}

std::string describe(const KernelKey& k) {
  return "isa " + std::to_string(std::get<0>(k)) + " kernel " + std::string(kernel_name(std::get<1>(k))) + " " +
         std::string(dtype_name(std::get<2>(k))) + "->" + std::string(dtype_name(std::get<3>(k))) + " tile " +
         std::to_string(std::get<4>(k)) + "x" + std::to_string(std::get<5>(k));
}

// The walk's size per best ISA level: a change of the space changes these on purpose.
constexpr std::array<int, kLevels> kConfigsPerLevel = {195548, 264612, 458487, 475581, 540985};

TEST(CpuOfferedKernels, EveryConfigTheSpaceOffersHasACompiledKernel) {
  const Walk& w = walk();
  EXPECT_EQ(w.configs, kConfigsPerLevel);
  int expected_lookups = 0;
  for (int level = 0; level <= test_support::runnable_isa(); ++level) expected_lookups += kConfigsPerLevel[level];
  int lookups = 0;
  for (int level = 0; level < kLevels; ++level) lookups += w.looked_up[level] + w.below[level];
  EXPECT_EQ(lookups, expected_lookups);
  // Of a level the build compiled, every config was looked up.
  for (int level = test_support::lowest_runnable_isa(); level <= test_support::runnable_isa(); ++level) {
    EXPECT_GT(w.looked_up[level], 0) << cpu_isa_name(level);
  }
  for (const KernelKey& k : w.missing) ADD_FAILURE() << "offered but not compiled: " << describe(k);
}

// Kernels per ISA level, each level's lookup (find_cpu_kernel_<isa>) taken alone: those the
// space offers (the register tiles that fit the level's registers, the families and dtypes it
// serves), which are the ones compiled.
constexpr std::array<int, kLevels> kOfferedPerLevel = {218, 218, 434, 44, 114};

// The level whose lookup serves a kernel of ISA level `isa` for inputs `in`: levels 3 and 4
// compile only s8 (VNNI) and bf16 (AVX512_BF16) and leave the rest to level 2
// (find_cpu_kernel).
int serving_level(int isa, DType in) {
  if (isa == cpu::kIsaAvx512Bf16 && in == DType::bf16) return isa;
  if (isa >= cpu::kIsaAvx512Vnni && in == DType::s8) return cpu::kIsaAvx512Vnni;
  return std::min(isa, cpu::kIsaAvx512);
}

TEST(CpuOfferedKernels, EveryCompiledKernelIsOfferedAndNoOther) {
  const Walk& w = walk();
  std::set<KernelKey> served;  // the offered kernels, named by the level whose lookup has them
  for (const KernelKey& k : w.offered) {
    EXPECT_TRUE(cpu::kernel_offered(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k),
                                    {std::get<4>(k), std::get<5>(k)}))
        << "offered against the rules: " << describe(k);
    KernelKey s = k;
    std::get<0>(s) = serving_level(std::get<0>(k), std::get<2>(k));
    served.insert(s);
  }
  std::array<int, kLevels> offered{};
  for (const KernelKey& k : served) ++offered[std::get<0>(k)];
  EXPECT_EQ(offered, kOfferedPerLevel);

  // Every lookup this machine can call, over every tile key up to the largest in any list.
  using Lookup = cpu::CpuGemmFn (*)(int, DType, DType, int, int);
  const Lookup lookups[kLevels] = {cpu::find_cpu_kernel_generic, cpu::find_cpu_kernel_avx2,
                                   cpu::find_cpu_kernel_avx512, cpu::find_cpu_kernel_avx512_vnni,
                                   cpu::find_cpu_kernel_avx512_bf16};
  const std::pair<DType, DType> types[] = {{DType::f32, DType::f32},  {DType::f16, DType::f16},
                                           {DType::f16, DType::f32},  {DType::bf16, DType::bf16},
                                           {DType::bf16, DType::f32}, {DType::s8, DType::s32}};
  int checked = 0;
  for (int level = test_support::lowest_runnable_isa(); level <= test_support::runnable_isa(); ++level) {
    int compiled = 0;
    for (int kernel = kKernelPacked; kernel <= kKernelRowsDots; ++kernel) {  // 1, gemv, finds none
      for (auto [in, out] : types) {
        for (int first = 1; first <= 32; ++first) {
          for (int second = 1; second <= 16; ++second) {
            if (lookups[level](kernel, in, out, first, second) == nullptr) continue;
            ++compiled;
            const KernelKey k{level, kernel, in, out, first, second};
            EXPECT_TRUE(cpu::kernel_offered(level, kernel, in, out, {first, second}))
                << "compiled against the rules: " << describe(k);
            EXPECT_TRUE(served.count(k)) << "compiled, yet no config names it: " << describe(k);
          }
        }
      }
    }
    EXPECT_EQ(compiled, kOfferedPerLevel[level]) << cpu_isa_name(level);
    ++checked;
  }
  EXPECT_GE(checked, 1) << "the lowest level compiled runs here";
  // The levels left out compile to empty lookups.
  for (int level = 0; level < test_support::lowest_runnable_isa(); ++level) {
    for (auto [in, out] : types) EXPECT_EQ(lookups[level](kKernelPacked, in, out, 4, 2), nullptr) << cpu_isa_name(level);
  }
}

// A build that compiled fewer ISA levels than the CPU it runs on (GEMMTUNE_CPU_ISAS=native,
// moved to a better machine, or the generic level left out) offers no config of a level it did
// not compile, and says which levels it has. On a build of every level this checks that
// nothing is taken away.
TEST(CpuOfferedKernels, TheBackendOffersOnlyTheLevelsThisBuildCompiled) {
  const std::unique_ptr<Backend> backend = cpu::make_cpu_template_backend(cpu_at_level(cpu::kIsaAvx512Bf16));
  int configs = 0, at_top = 0;
  for (auto [in, out] : {std::pair{DType::f32, DType::f32}, std::pair{DType::bf16, DType::f32}, std::pair{DType::s8, DType::s32}}) {
    const Problem p = *Problem::create({.m = 300, .n = 300, .k = 300, .a_type = in, .b_type = in, .c_type = out});
    for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
      for (const KernelConfig& c : backend->configs(p, space)) {
        EXPECT_LE(c.isa, cpu::compiled_top_isa()) << c.to_string();
        EXPECT_GE(c.isa, cpu::compiled_bottom_isa()) << c.to_string();
        EXPECT_TRUE(backend->can_implement(p, c).is_ok()) << c.to_string();
        at_top += c.isa == cpu::compiled_top_isa();
        ++configs;
      }
    }
  }
  EXPECT_GT(configs, 100);
  EXPECT_GT(at_top, 0) << "the best level compiled is offered";
  const std::string note = cpu::compiled_isas_note();
  EXPECT_NE(note.find(std::string(cpu_isa_name(cpu::compiled_top_isa()))), std::string::npos) << note;
  EXPECT_EQ(note.find("GEMMTUNE_CPU_ISAS") == std::string::npos,
            cpu::compiled_bottom_isa() == cpu::kIsaGeneric && cpu::compiled_top_isa() == cpu::kIsaAvx512Bf16)
      << note;
  if (cpu::compiled_bottom_isa() > cpu::kIsaGeneric) {
    // A generic config (as a portable build would store it) is refused, not run.
    const Problem p = *Problem::create(300, 300, 300, DType::f32, "nn");
    KernelConfig generic = backend->configs(p, SearchSpace::default_space).front();
    generic.isa = cpu::kIsaGeneric;
    generic.micro_n = generic.micro_n / cpu::vector_lanes(cpu::compiled_top_isa()) * cpu::vector_lanes(cpu::kIsaGeneric);
    const Status refused = backend->can_implement(p, generic);
    EXPECT_EQ(refused.code(), ErrorCode::unsupported);
    EXPECT_NE(refused.message().find("no kernel compiled"), std::string::npos) << refused.message();
  }
}

// The family table (cpu_kernel_families.h) is the one place a CPU kernel family is named:
// every cpu kernel has exactly one row, nothing else has one, and the backend refuses a
// kernel without a row by that reason.
TEST(CpuKernelFamilies, EveryCpuKernelHasOneRowAndOnlyThose) {
  const std::set<int> cpu_kernels = {kKernelPacked, kKernelRows,   kKernelDot,   kKernelColumns, kKernelTile,
                                     kKernelStream, kKernelAxpy,   kKernelPairs, kKernelRowsDots};
  std::multiset<int> rows;
  for (const cpu::CpuKernelFamily& family : cpu::kCpuKernelFamilies) {
    rows.insert(family.kernel);
    EXPECT_FALSE(family.tiles.empty()) << kernel_name(family.kernel);
    EXPECT_NE(family.cannot_run, nullptr) << kernel_name(family.kernel);
    // The packed family alone is offered from named lists instead of an offer rule.
    EXPECT_EQ(family.offer == nullptr, family.kernel == kKernelPacked) << kernel_name(family.kernel);
  }
  EXPECT_EQ(std::set<int>(rows.begin(), rows.end()), cpu_kernels);
  EXPECT_EQ(rows.size(), cpu_kernels.size());
  for (int other : {kKernelSgemm, kKernelPerCall, kKernelGemv, kKernelFaultSpin}) {
    EXPECT_EQ(cpu::cpu_kernel_family(other), nullptr) << kernel_name(other);
  }

  const CpuInfo cpu = cpu_at_level(cpu::kIsaAvx2);
  const auto backend = cpu::make_cpu_template_backend(cpu);
  const Problem p = *Problem::create(8, 64, 64, DType::f32, "nn");
  KernelConfig c = *KernelConfig::parse("mm=4 mn=16 thr=1 isa=avx2 kernel=rows");
  EXPECT_TRUE(backend->can_implement(p, c).is_ok()) << backend->can_implement(p, c).message();
  c.kernel = kKernelSgemm;
  EXPECT_NE(backend->can_implement(p, c).message().find("not a cpu kernel"), std::string::npos);
}

// A family's rule is the reason can_implement gives: the rows kernel on a column-major B says
// what it reads, whatever else the config asks.
TEST(CpuKernelFamilies, CanImplementGivesTheFamilysRule) {
  const auto backend = cpu::make_cpu_template_backend(cpu_at_level(cpu::kIsaAvx2));
  const KernelConfig rows = *KernelConfig::parse("mm=4 mn=16 thr=1 isa=avx2 kernel=rows");
  const Problem nt = *Problem::create(8, 64, 64, DType::f32, "nt");
  const Status status = backend->can_implement(nt, rows);
  const cpu::CpuKernelFamily* family = cpu::cpu_kernel_family(kKernelRows);
  ASSERT_NE(family, nullptr);
  EXPECT_EQ(status.message(), family->cannot_run(nt, cpu::cpu_strides(nt), rows, 8));
  EXPECT_NE(status.message().find("reads B contiguous along n"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace gemmtune
