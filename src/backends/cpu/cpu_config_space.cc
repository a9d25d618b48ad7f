#include "cpu_config_space.h"

#include "../../core/config_space.h"
#include "cpu_kernels.h"

namespace gemmtune::cpu {
namespace {

// k blocks below this are mostly loop overhead around the micro-kernel.
constexpr int kMinBlockK = 16;

int lanes(int isa, const Problem&) { return vector_bytes(isa) / 4; }  // f32 and s32 lanes alike

KernelConfig scaled(const CpuListEntry& e, int isa, int threads, const Problem& p) {
  KernelConfig c;
  c.micro_m = e.micro_m;
  c.micro_n = e.micro_nv * lanes(isa, p);
  // Blocks shrink to the problem (Inductor's rule), then round up to whole register tiles.
  c.block_m = round_up_to_multiple(scale_block_to_dim(e.block_m, p.m(), e.micro_m), e.micro_m);
  c.block_n = round_up_to_multiple(scale_block_to_dim(e.block_n, p.n(), c.micro_n), c.micro_n);
  c.block_k = scale_block_to_dim(e.block_k, p.k(), kMinBlockK);
  c.threads = threads;
  c.isa = isa;
  return c;
}

std::vector<CpuListEntry> exhaustive_entries() {
  std::vector<CpuListEntry> entries;
  for (const MicroTile& tile : kMicroTiles) {
    for (int block_k : {64, 128, 256, 512}) {
      for (int rows_of_tiles : {4, 8, 16}) {
        for (int block_n : {256, 1024, 4096}) {
          entries.push_back({tile.micro_m, tile.micro_nv, tile.micro_m * rows_of_tiles, block_n, block_k});
        }
      }
    }
  }
  return entries;
}

}  // namespace

const std::vector<CpuListEntry>& cpu_default_list() {
  // Tall tiles for large m (more reuse of each B vector), wide-and-short tiles for skinny m.
  static const std::vector<CpuListEntry> list = {
      {14, 2, 112, 2048, 256}, {12, 2, 96, 2048, 256}, {6, 2, 96, 1024, 256}, {8, 1, 128, 512, 256},
      {4, 4, 64, 1024, 256},   {4, 2, 64, 512, 128},   {2, 2, 32, 512, 256},  {1, 4, 16, 2048, 512},
  };
  return list;
}

const std::vector<CpuListEntry>& cpu_int8_list() {
  // s8 panels are widened to s32 when packed, so blocking matches f32; deeper k blocks amortise
  // the widening.
  static const std::vector<CpuListEntry> list = {
      {14, 2, 112, 2048, 256}, {6, 2, 96, 1024, 512}, {8, 1, 128, 512, 256},
      {4, 2, 64, 512, 256},    {1, 4, 16, 2048, 512},
  };
  return list;
}

Status check_cpu_limits(const KernelConfig& c, const Problem& p, const CpuInfo& cpu) {
  const std::int64_t acc_bytes = 4;  // f32 and s32 accumulators alike
  if (c.isa > cpu.best_isa()) {
    return unsupported(std::string("this CPU lacks ") + std::string(cpu_isa_name(c.isa)));
  }
  // Accumulators that do not fit the register file spill to the stack on every k step. The dot
  // kernel holds MR × NC accumulators plus one vector of each A row and W row.
  const int registers = c.algo == kAlgoDirectDot
                            ? c.micro_m * c.micro_n + c.micro_m + c.micro_n
                            : registers_for_tile(c.micro_m, c.micro_n / (vector_bytes(c.isa) / 4));
  if (registers > cpu.vector_registers(c.isa)) {
    return unsupported("register tile " + std::to_string(c.micro_m) + "x" + std::to_string(c.micro_n) + " needs " +
                       std::to_string(registers) + " vector registers, " + std::string(cpu_isa_name(c.isa)) + " has " +
                       std::to_string(cpu.vector_registers(c.isa)));
  }
  // The micro-kernel streams a bk × NR panel of B for each MR rows: it must stay in L1.
  if (std::int64_t(c.block_k) * c.micro_n * acc_bytes > cpu.l1d_bytes) {
    return unsupported("B micro-panel of bk x mn does not fit L1 (" + std::to_string(cpu.l1d_bytes >> 10) + " KiB)");
  }
  // The bm × bk block of A is reused across every B panel: it must stay in this core's L2.
  if (std::int64_t(c.block_m) * c.block_k * acc_bytes > cpu.l2_bytes) {
    return unsupported("A block of bm x bk does not fit L2 (" + std::to_string(cpu.l2_bytes >> 10) + " KiB)");
  }
  // The bk × bn block of B is shared by all threads: it must stay in L3.
  if (std::int64_t(c.block_k) * c.block_n * acc_bytes > cpu.l3_bytes) {
    return unsupported("B block of bk x bn does not fit L3 (" + std::to_string(cpu.l3_bytes >> 20) + " MiB)");
  }
  if (c.threads > cpu.logical_cores) {
    return unsupported("more threads than the " + std::to_string(cpu.logical_cores) + " cores");
  }
  (void)p;
  return Status::ok();
}

const std::vector<CpuDirectEntry>& cpu_direct_list() {
  // Rows: wide tiles for a few rows; dot: several W rows per A row so each A vector is reused.
  static const std::vector<CpuDirectEntry> list = {
      {kAlgoDirectRows, 4, 2}, {kAlgoDirectRows, 8, 1}, {kAlgoDirectRows, 1, 4}, {kAlgoDirectRows, 2, 2},
      {kAlgoDirectDot, 1, 8},  {kAlgoDirectDot, 2, 4},  {kAlgoDirectDot, 4, 4},  {kAlgoDirectDot, 8, 2},
  };
  return list;
}

namespace {

// Direct kernels pay off where packing would cost as much as the product: small problems and
// skinny ones (few rows of A).
bool direct_kernels_fit(const Problem& p) {
  return double(p.m()) * double(p.n()) * double(p.k()) <= double(1 << 18) || p.m() <= 16;
}

std::vector<KernelConfig> direct_configs(const Problem& p, SearchSpace space, const CpuInfo& cpu) {
  std::vector<CpuDirectEntry> entries = cpu_direct_list();
  if (space == SearchSpace::exhaustive) {
#define GEMMTUNE_CPU_ROWS_ENTRY(mr, nv) entries.push_back({kAlgoDirectRows, mr, nv});
#define GEMMTUNE_CPU_DOT_ENTRY(mr, nc) entries.push_back({kAlgoDirectDot, mr, nc});
    GEMMTUNE_CPU_DIRECT_TILES(GEMMTUNE_CPU_ROWS_ENTRY)
    GEMMTUNE_CPU_DOT_TILES(GEMMTUNE_CPU_DOT_ENTRY)
#undef GEMMTUNE_CPU_ROWS_ENTRY
#undef GEMMTUNE_CPU_DOT_ENTRY
  }
  // Small products cannot pay a fork/join; skinny ones can use every core on B.
  std::vector<int> thread_counts = {1};
  if (cpu.logical_cores > 1 && double(p.m()) * double(p.n()) * double(p.k()) > double(1 << 18)) {
    thread_counts.insert(thread_counts.begin(), cpu.logical_cores);
  }
  const int isa = cpu.best_isa();
  std::vector<KernelConfig> configs;
  for (int threads : thread_counts) {
    for (const CpuDirectEntry& e : entries) {
      KernelConfig c;
      c.algo = e.algo;
      c.micro_m = e.micro_m;
      c.micro_n = e.algo == kAlgoDirectDot ? e.columns : e.columns * (vector_bytes(isa) / 4);
      c.threads = threads;
      c.isa = isa;
      if (check_cpu_limits(c, p, cpu).is_ok()) configs.push_back(c);
    }
  }
  return configs;
}

}  // namespace

std::vector<KernelConfig> cpu_configs(const Problem& p, SearchSpace space, const CpuInfo& cpu) {
  std::vector<int> isas = {cpu.best_isa()};
  std::vector<CpuListEntry> entries;
  if (space == SearchSpace::exhaustive) {
    entries = exhaustive_entries();
    for (int isa = cpu.best_isa() - 1; isa >= 0; --isa) isas.push_back(isa);
  } else {
    entries = p.a_type() == DType::s8 ? cpu_int8_list() : cpu_default_list();
  }
  std::vector<int> thread_counts = {cpu.logical_cores};
  if (cpu.logical_cores > 1) thread_counts.push_back(1);

  std::vector<KernelConfig> configs;
  if (space == SearchSpace::exhaustive || direct_kernels_fit(p)) configs = direct_configs(p, space, cpu);
  for (int isa : isas) {
    for (int threads : thread_counts) {
      for (const CpuListEntry& entry : entries) {
        KernelConfig c = scaled(entry, isa, threads, p);
        if (check_cpu_limits(c, p, cpu).is_ok()) configs.push_back(c);
      }
    }
  }
  return dedup_and_cap(configs, space == SearchSpace::exhaustive ? kExhaustiveCap : kDefaultCap);
}

}  // namespace gemmtune::cpu
