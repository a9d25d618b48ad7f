// Backend "skinny": gemmtune's kernels for m ≤ 64, compiled at run time with NVRTC: the tensor-core
// kernel (gemm_skinny.cuh) and, for m ≤ 8, gemv (gemm_gemv.cuh), chosen by the config's kernel field.
#include "skinny_backend.h"

#include <atomic>
#include <mutex>

#include "cubin_cache.h"
#include "operand_address.h"
#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "launch_overlap.h"
#include "skinny_config_space.h"
#include "skinny_gemv.h"
#include "worker_client.h"

namespace gemmtune::cuda {
namespace {

std::atomic<std::int64_t> skinny_compilations{0};

struct Grid {
  unsigned x = 1, y = 1;
};

// How one of the family's kernels is launched; both take the same parameters.
struct LaunchShape {
  CUfunction function = nullptr;
  Grid grid;
  int threads = 0;
  std::int64_t shared_bytes = 0;
  std::int64_t counters_offset = 0;  // into the scratch, which holds the split-k partial sums first
  bool pdl = false;      // launched overlapped (programmatic stream serialization)
  bool b_early = false;  // with pdl: B's first batch loads before the wait (GEMMTUNE_PDL=weights)
  const char* what = "";
};

// Enqueues the kernel on args.stream for `p`. With a scratch (split k) the runs take turns, as
// they share the partial sums and the counters. With `pdl` (programmatic stream serialization)
// the kernel may start while the previous one in the stream finishes; it waits for it
// (griddepcontrol.wait) before it touches memory, or with `b_early` before it reads A or writes C.
Status enqueue_gemm(const Problem& p, const GemmArgs& args, const CudaModule& module, SerializedScratch& scratch,
                    const LaunchShape& shape) {
  GEMMTUNE_RETURN_IF_ERROR(module.make_current());
  const void* a = args.a;
  const void* b = args.b;
  void* c = args.c;
  void* workspace = scratch.data();
  void* counters = workspace != nullptr ? static_cast<char*>(workspace) + shape.counters_offset : nullptr;
  long long m = p.m(), n = p.n(), k = p.k(), lda = p.lda(), ldb = p.ldb(), ldc = p.ldc();
  float alpha = float(p.alpha()), beta = float(p.beta());
  int b_early = shape.b_early && !args.operands_just_written ? 1 : 0;
  void* params[] = {&a, &b, &c, &workspace, &counters, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta, &b_early};
  std::unique_lock<std::mutex> turn;
  if (workspace != nullptr) {
    GEMMTUNE_ASSIGN_OR_RETURN(turn, scratch.begin(args.stream));
  }
  GEMMTUNE_RETURN_IF_ERROR(enqueue_launch(shape.function, shape.grid.x, shape.grid.y, unsigned(shape.threads),
                                         unsigned(shape.shared_bytes), static_cast<CUstream>(args.stream), params,
                                         shape.pdl, shape.what));
  return workspace != nullptr ? scratch.finish(args.stream) : Status::ok();
}

class SkinnyKernel final : public JitKernel {
 public:
  SkinnyKernel(const Problem& problem, const KernelConfig& config)
      : problem_(problem), instance_(skinny_instance(problem, config)) {}

  Status load(const CudaInfo& device, const std::string& cubin) {
    GEMMTUNE_RETURN_IF_ERROR(module_.load(device.index, cubin));
    GEMMTUNE_ASSIGN_OR_RETURN(function_, module_.function("gemmtune_gemm_skinny", instance_.shared_bytes()));
    blocks_ = unsigned(std::max<std::int64_t>(1, (problem_.n() + instance_.block_n() - 1) / instance_.block_n()));
    pdl_ = skinny_uses_pdl(device.arch()) && launch_overlap() != LaunchOverlap::off;
    b_early_ = pdl_ && launch_overlap() == LaunchOverlap::weights;
    // The counters start at zero, and the last slice of each block sets its own back.
    return scratch_.allocate(std::size_t(instance_.workspace_bytes(problem_.n())));
  }

  // Enqueues on args.stream and returns. Safe from several threads: split-k runs, which share
  // the workspace and its counters, take turns (SerializedScratch).
  Status run(const GemmArgs& args) override {
    const Problem& p = problem_;
    if (p.m() == 0 || p.n() == 0) return Status::ok();
    // The 16-byte loads the instance was compiled with need 16-byte aligned operands (the
    // leading dims were checked when it was chosen; the pointers are known only now).
    if (instance_.vec && p.k() > 0 && (!aligned16(args.b) || (instance_.a_kcontig && !aligned16(args.a)))) {
      return unsupported("skinny kernel with 16-byte loads: A or B is not 16-byte aligned");
    }
    return enqueue_gemm(p, args, module_, scratch_,
                        {function_, {blocks_, unsigned(instance_.split_k)}, instance_.threads(), instance_.shared_bytes(),
                         instance_.counters_offset(p.n()), pdl_, b_early_, "cuLaunchKernelEx(gemmtune_gemm_skinny)"});
  }

  std::size_t workspace_bytes() const override { return scratch_.bytes(); }

 private:
  const Problem problem_;
  const SkinnyInstance instance_;
  CudaModule module_;
  CUfunction function_ = nullptr;
  unsigned blocks_ = 1;
  bool pdl_ = false;  // launched with programmatic stream serialization (the kernel has GT_PDL)
  bool b_early_ = false;  // with pdl_: B's first batch before the wait (GEMMTUNE_PDL=weights)
  SerializedScratch scratch_;  // split-k partial sums and block counters
};

// kernel=gemv: gemm_gemv.cuh, one warp a few rows of B. Its grid depends on how many CTAs an SM
// holds, which the driver says once the function is loaded.
class GemvKernel final : public JitKernel {
 public:
  GemvKernel(const Problem& problem, const KernelConfig& config)
      : problem_(problem), instance_(gemv_instance(problem, config)) {}

  Status load(const CudaInfo& device, const std::string& cubin) {
    GEMMTUNE_RETURN_IF_ERROR(module_.load(device.index, cubin));
    shared_bytes_ = instance_.shared_bytes(problem_.k());
    GEMMTUNE_ASSIGN_OR_RETURN(function_, module_.function("gemmtune_gemm_gemv", shared_bytes_));
    // As the probe: the most shared memory where A sits there, else the most L1 for A's lines.
    const int carveout = instance_.a_shared ? CU_SHAREDMEM_CARVEOUT_MAX_SHARED : CU_SHAREDMEM_CARVEOUT_MAX_L1;
    GEMMTUNE_RETURN_IF_ERROR(check_driver(
        driver().func_set_attribute(function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout),
        "cuFuncSetAttribute(gemmtune_gemm_gemv, carveout)"));
    int ctas_per_sm = 0;
    GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().occupancy_max_active_blocks(&ctas_per_sm, function_,
                                                                               instance_.threads(), shared_bytes_),
                                          "cuOccupancyMaxActiveBlocksPerMultiprocessor(gemmtune_gemm_gemv)"));
    if (ctas_per_sm == 0) return unsupported("no CTA of this gemv config fits an SM");
    grid_ = {unsigned(instance_.grid_x(problem_.n(), device.sm_count, ctas_per_sm)), unsigned(instance_.split_k)};
    pdl_ = skinny_uses_pdl(device.arch()) && launch_overlap() != LaunchOverlap::off;
    b_early_ = pdl_ && launch_overlap() == LaunchOverlap::weights;
    // The counters start at zero, and the warp that finishes a group last sets its own back.
    return scratch_.allocate(std::size_t(instance_.workspace_bytes(problem_.n())));
  }

  // Enqueues on args.stream and returns. Split-k runs share the workspace and its counters and
  // take turns (SerializedScratch), as the tensor-core kernel's.
  Status run(const GemmArgs& args) override {
    const Problem& p = problem_;
    if (p.m() == 0 || p.n() == 0) return Status::ok();
    // Every lane loads 16 bytes of A and of B (the rows were checked when the config was chosen).
    if (p.k() > 0 && (!aligned16(args.a) || !aligned16(args.b))) {
      return unsupported("gemv kernel with 16-byte loads: A or B is not 16-byte aligned");
    }
    return enqueue_gemm(p, args, module_, scratch_,
                        {function_, grid_, instance_.threads(), shared_bytes_, instance_.counters_offset(p.n()), pdl_,
                         b_early_, "cuLaunchKernelEx(gemmtune_gemm_gemv)"});
  }

  std::size_t workspace_bytes() const override { return scratch_.bytes(); }

 private:
  const Problem problem_;
  const GemvInstance instance_;
  CudaModule module_;
  CUfunction function_ = nullptr;
  std::int64_t shared_bytes_ = 0;
  Grid grid_;
  bool pdl_ = false;
  bool b_early_ = false;
  SerializedScratch scratch_;  // split-k partial sums and group counters
};

class SkinnyBackend final : public Backend {
 public:
  explicit SkinnyBackend(const CudaInfo& device) : device_(device) {}

  std::string_view name() const override { return "skinny"; }
  // Its 16-byte loads.
  std::size_t operand_grid_bytes(std::int64_t) const override { return 16; }
  // Its 16-byte loads need 16-byte aligned A and B: Session::gemm runs a call off that grid
  // elsewhere.
  bool reads_any_address() const override { return false; }
  std::string version() const override { return skinny_backend_version(); }
  std::int64_t compilations() const override { return skinny_compilations.load(); }
  // Both kernels take ~1.2 s of CPU to compile on the H100's host, whatever the config
  // (bench/results/2026-11-27-h100-cold-tuning.md): between the wgmma family's tiles.
  double prepare_cost(const Problem&, const KernelConfig&) const override { return 1.2; }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return skinny_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return skinny_can_implement(problem, config, device_);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    const auto compile = [&](bool recompile) { return compile_gemm_skinny(problem, config, device_, recompile); };
    if (config.kernel == kKernelGemv) {
      return prepare_jit_kernel<GemvKernel>(device_, problem, config, "skinny", compile,
                                            [&] { return std::make_unique<GemvKernel>(problem, config); });
    }
    return prepare_jit_kernel<SkinnyKernel>(device_, problem, config, "skinny", compile,
                                            [&] { return std::make_unique<SkinnyKernel>(problem, config); });
  }

 private:
  const CudaInfo device_;
};

}  // namespace

std::string skinny_backend_version() {
  static const std::string version =
      "gemm_skinny-" + to_hex(sha256(std::string(gemm_skinny_source()) + std::string(gemm_gemv_source()))).substr(0, 16);
  return version;
}

Status skinny_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device) {
  if (config.kernel == kKernelGemv) {
    GEMMTUNE_RETURN_IF_ERROR(check_gemv_problem(problem));
    GEMMTUNE_RETURN_IF_ERROR(check_gemv_config_shape(config, problem));
    return check_gemv_limits(config, problem, device);
  }
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_config_shape(config, problem));
  return check_skinny_limits(config, problem, device);
}

Result<CubinArtifact> compile_gemm_skinny(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                          bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(skinny_can_implement(problem, config, device));
  const bool gemv = config.kernel == kKernelGemv;
  auto artifact = gemv ? obtain_cubin(gemm_gemv_source(), gemv_instance(problem, config).options(device.arch()), recompile)
                       : obtain_cubin(gemm_skinny_source(), skinny_instance(problem, config).options(device.arch()),
                                      recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "compiling skinny " + config.to_string() + " for " + problem.describe() +
                                                ": " + artifact.status().message());
  }
  if (!artifact->from_cache) ++skinny_compilations;
  return artifact;
}

std::unique_ptr<Backend> make_skinny_backend(const CudaInfo& device) { return std::make_unique<SkinnyBackend>(device); }

}  // namespace gemmtune::cuda
