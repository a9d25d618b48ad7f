// Backend "cpu": gemmtune's own kernels (cpu_kernels.h) over the config space of
// cpu_config_space.cc.
#include <string>
#include <tuple>

#include "cpu_backends.h"
#include "cpu_config_space.h"
#include "cpu_kernel_levels.h"
#include "cpu_kernels.h"

#ifndef GEMMTUNE_CPU_KERNELS_HASH
#define GEMMTUNE_CPU_KERNELS_HASH "unversioned"
#endif

namespace gemmtune::cpu {
namespace {

// The kernel is called straight through a function pointer with its parameters baked in: the
// whole per-call cost above the arithmetic is this virtual call and that indirect one.
class CpuTemplateKernel final : public Kernel {
 public:
  CpuTemplateKernel(CpuGemmFn fn, CpuGemmParams params) : fn_(fn), params_(params) {}
  Status run(const GemmArgs& args) override {
    fn_(params_, args.a, args.b, args.c);
    return Status::ok();
  }

 private:
  CpuGemmFn fn_;
  CpuGemmParams params_;
};

CpuGemmFn lookup(const Problem& p, const KernelConfig& c) {
  const TileKey key = tile_key(c.kernel, c.micro_m, c.micro_n, vector_lanes(c.isa));
  return find_cpu_kernel(c.isa, c.kernel, p.a_type(), p.c_type(), key.first, key.second);
}

// Threads tile C as gm × gn blocks: the split with the smallest block perimeter (what each
// thread packs) among those that give every thread at least one register tile.
std::pair<int, int> thread_grid(const Problem& p, const KernelConfig& c) {
  const int threads = c.threads;
  const std::int64_t row_tiles = (p.m() + c.micro_m - 1) / c.micro_m, col_tiles = (p.n() + c.micro_n - 1) / c.micro_n;
  std::pair<int, int> best{threads, 1};
  double best_cost = -1;
  for (int gm = 1; gm <= threads; ++gm) {
    if (threads % gm != 0) continue;
    const int gn = threads / gm;
    const bool fits = row_tiles >= gm && col_tiles >= gn;
    const double cost = double(p.m()) / gm + double(p.n()) / gn + (fits ? 0 : 1e18);
    if (best_cost < 0 || cost < best_cost) best = {gm, gn}, best_cost = cost;
  }
  return best;
}

class CpuTemplateBackend final : public Backend {
 public:
  explicit CpuTemplateBackend(const CpuInfo& cpu) : cpu_(cpu) {}
  std::string_view name() const override { return "cpu"; }
  // A hash of the kernel sources, computed by CMake: edited kernels invalidate stored picks.
  std::string version() const override { return GEMMTUNE_CPU_KERNELS_HASH; }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return cpu_configs(problem, space, cpu_);
  }

  Status can_implement(const Problem& p, const KernelConfig& c) const override {
    if (c.isa < 0 || c.isa > cpu_.best_isa()) {
      return unsupported("isa " + std::string(cpu_isa_name(c.isa)) + " is not available on this CPU");
    }
    if (c.kernel != kKernelPacked && (c.kernel < kKernelRows || c.kernel > kKernelRowsDots)) {
      return unsupported("kernel " + std::string(kernel_name(c.kernel)) + " is not a cpu kernel");
    }
    const CpuGemmParams strides = cpu_strides(p);
    const char* reads_b_rows = c.kernel == kKernelRows     ? "rows"
                               : c.kernel == kKernelStream ? "stream"
                               : c.kernel == kKernelAxpy   ? "axpy"
                                                             : nullptr;
    if (reads_b_rows != nullptr && strides.b_cs != 1) {
      return unsupported("the direct " + std::string(reads_b_rows) + " kernel reads B contiguous along n (row-major)");
    }
    if (c.kernel == kKernelStream && c.block_k < 1) {
      return unsupported("the direct stream kernel reads B bk rows at a time: bk must be at least 1");
    }
    if (c.kernel == kKernelDot && (strides.a_ks != 1 || strides.b_ks != 1)) {
      return unsupported("the direct dot kernel reads A and B contiguous along k (A row-major, B column-major)");
    }
    if (c.kernel == kKernelColumns && strides.b_ks != 1) {
      return unsupported("the direct columns kernel reads B contiguous along k (column-major)");
    }
    const int lanes = vector_lanes(c.isa);
    // The tile and pairs kernels hold all of C in one register tile; the pairs kernel's is half
    // a vector wide and also reads A's adjacent pairs along k.
    if (c.kernel == kKernelTile || c.kernel == kKernelPairs) {
      const bool pairs = c.kernel == kKernelPairs;
      const bool fits = strides.b_cs == 1 && (!pairs || strides.a_ks == 1) && p.m() == c.micro_m && p.n() > 0 &&
                        p.n() <= c.micro_n && (!pairs || c.micro_n * 2 == lanes) && c.threads == 1;
      if (!fits) {
        return unsupported(pairs ? "the direct pairs kernel holds all of C (m = mm rows, n <= mn = half a vector's "
                                   "lanes, A and B row-major) on one thread"
                                 : "the direct tile kernel holds all of C (m = mm rows, n <= mn columns, B row-major) "
                                   "on one thread");
      }
    }
    if (c.kernel == kKernelRowsDots &&
        (strides.b_cs != 1 || strides.a_ks != 1 || p.n() < lanes || p.n() % lanes > max_dots_tail(lanes))) {
      return unsupported("the direct rows-dots kernel reads A and B row-major and takes C of whole vectors and at most " +
                         std::to_string(max_dots_tail(lanes)) + " columns more");
    }
    // The dot and axpy tiles count columns of C and rows of B, not vectors; the pairs tile
    // holds half a vector's columns (checked above).
    const bool whole_vectors = c.kernel == kKernelDot || c.kernel == kKernelAxpy || c.kernel == kKernelPairs
                                   ? true
                               : c.kernel == kKernelColumns ? c.micro_m % lanes == 0
                                                              : c.micro_n % lanes == 0;
    if (c.micro_m <= 0 || c.micro_n <= 0 || !whole_vectors) {
      return unsupported("register tile " + std::to_string(c.micro_m) + "x" + std::to_string(c.micro_n) +
                         " is not whole vectors of " + std::to_string(lanes) + " lanes");
    }
    if (lookup(p, c) == nullptr) {
      return unsupported("no kernel compiled for tile " + std::to_string(c.micro_m) + "x" +
                         std::to_string(c.micro_n) + " and " + std::string(dtype_name(p.a_type())) + "->" +
                         std::string(dtype_name(p.c_type())));
    }
    if (c.kernel == kKernelPacked && (c.block_m <= 0 || c.block_m % c.micro_m != 0 || c.block_n <= 0 ||
                                  c.block_n % c.micro_n != 0 || c.block_k <= 0)) {
      return unsupported("blocks must be positive multiples of the register tile");
    }
    if (c.threads < 1 || c.threads > 1024) return unsupported("threads must be in [1, 1024]");
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(p, c));
    CpuGemmParams params = cpu_strides(p);
    params.m = p.m();
    params.n = p.n();
    params.k = p.k();
    params.alpha = p.alpha();
    params.beta = p.beta();
    params.block_m = c.block_m;
    params.block_n = c.block_n;
    params.block_k = c.block_k;
    params.threads = c.threads;
    std::tie(params.grid_m, params.grid_n) = thread_grid(p, c);
    params.b_lines_in_l1 =
        b_lines_in_l1(l1_geometry(), p.k(), params.b_ks * std::int64_t(dtype_size(p.b_type())));
    CpuGemmFn fn = lookup(p, c);
    return std::unique_ptr<Kernel>(std::make_unique<CpuTemplateKernel>(fn, params));
  }

 private:
  CpuInfo cpu_;
};

}  // namespace

CpuGemmParams cpu_strides(const Problem& p) {
  CpuGemmParams s;
  const bool a_rows = p.a_layout() == Layout::row_major, b_rows = p.b_layout() == Layout::row_major;
  s.a_rs = a_rows ? p.lda() : 1;
  s.a_ks = a_rows ? 1 : p.lda();
  s.b_ks = b_rows ? p.ldb() : 1;
  s.b_cs = b_rows ? 1 : p.ldb();
  s.ldc = p.ldc();
  // A dim of extent 1 is never stepped along, so its stride is free: making it 1 lets more
  // kernels take the problem (a 1-column B is contiguous along k whatever its layout).
  if (p.m() == 1) s.a_rs = 1;
  if (p.n() == 1) s.b_cs = 1;
  if (p.k() == 1) s.a_ks = s.b_ks = 1;
  return s;
}

std::unique_ptr<Backend> make_cpu_template_backend(const CpuInfo& cpu) {
  return std::make_unique<CpuTemplateBackend>(with_compiled_isas(cpu));
}

}  // namespace gemmtune::cpu
