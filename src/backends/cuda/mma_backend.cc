// Backend "mma": gemmtune's own tensor-core kernels, compiled at run time with NVRTC.
#include "mma_backend.h"

#include <atomic>
#include <mutex>

#include "cubin_cache.h"
#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "kernel_dtype_codes.h"
#include "mma_config_space.h"
#include "padded_operand.h"
#include "wgmma_config_space.h"
#include "worker_client.h"

namespace gemmtune::cuda {
namespace {

constexpr unsigned kReduceThreads = 256;  // gemmtune_splitk_reduce's __launch_bounds__

std::atomic<std::int64_t> mma_compilations{0};

class MmaKernel final : public JitKernel {
 public:
  MmaKernel(const Problem& problem, const KernelConfig& config) : problem_(problem), config_(config) {}

  // Loads the cubin and allocates the split-k workspace.
  Status load(const CudaInfo& device, const std::string& cubin) {
    GEMMTUNE_RETURN_IF_ERROR(module_.load(device.index, cubin));
    shared_bytes_ = mma_shared_memory_bytes(config_, problem_);
    GEMMTUNE_ASSIGN_OR_RETURN(gemm_, module_.function("gemmtune_gemm", shared_bytes_));
    if (config_.split_k > 1) {
      GEMMTUNE_ASSIGN_OR_RETURN(reduce_, module_.function("gemmtune_splitk_reduce"));
    }
    return workspace_.allocate(std::size_t(mma_workspace_bytes(config_, problem_)));
  }

  // Enqueues on args.stream and returns. Safe from several threads: the launch parameters are
  // locals, and split-k runs, which share the one workspace, take turns (SerializedScratch).
  Status run(const GemmArgs& args) override {
    const Problem& p = problem_;
    if (p.m() == 0 || p.n() == 0) return Status::ok();
    const DriverApi& cu = driver();
    GEMMTUNE_RETURN_IF_ERROR(module_.make_current());
    const void* a = args.a;
    const void* b = args.b;
    void* c = args.c;
    void* workspace = workspace_.data();
    long long m = p.m(), n = p.n(), k = p.k(), lda = p.lda(), ldb = p.ldb(), ldc = p.ldc();
    float alpha = float(p.alpha()), beta = float(p.beta());
    void* gemm_params[] = {&a, &b, &c, &workspace, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta};
    const long long blocks = ((m + config_.block_m - 1) / config_.block_m) * ((n + config_.block_n - 1) / config_.block_n);
    const unsigned slices = unsigned(config_.split_k > 1 ? config_.split_k : 1);
    auto stream = static_cast<CUstream>(args.stream);
    std::unique_lock<std::mutex> turn;
    if (workspace != nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(turn, workspace_.begin(args.stream));
    }
    GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.launch_kernel(gemm_, unsigned(blocks), 1, slices, unsigned(config_.warps) * 32, 1, 1,
                                                  unsigned(shared_bytes_), stream, gemm_params, nullptr),
                                   "cuLaunchKernel(gemmtune_gemm)"));
    if (reduce_ != nullptr) {
      const void* partial = workspace;
      void* reduce_params[] = {&partial, &c, &m, &n, &ldc, &alpha, &beta};
      const long long reduce_blocks = (m * n + kReduceThreads - 1) / kReduceThreads;
      GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.launch_kernel(reduce_, unsigned(reduce_blocks), 1, 1, kReduceThreads, 1, 1, 0,
                                                    stream, reduce_params, nullptr),
                                     "cuLaunchKernel(gemmtune_splitk_reduce)"));
      GEMMTUNE_RETURN_IF_ERROR(workspace_.finish(args.stream));
    }
    return Status::ok();
  }

  std::size_t workspace_bytes() const override { return workspace_.bytes(); }

 private:
  const Problem problem_;
  const KernelConfig config_;
  CudaModule module_;
  CUfunction gemm_ = nullptr;
  CUfunction reduce_ = nullptr;
  std::int64_t shared_bytes_ = 0;
  SerializedScratch workspace_;  // split-k partial sums
};

class MmaBackend final : public Backend {
 public:
  explicit MmaBackend(const CudaInfo& device) : device_(device) {}

  std::string_view name() const override { return "mma"; }
  // Its word loads need 4-byte aligned lines; it was timed on the 256-byte grid.
  std::size_t operand_grid_bytes(std::int64_t) const override { return 16; }
  std::string version() const override { return mma_backend_version(); }
  // Process-wide: the cubin cache is shared by every instance.
  std::int64_t compilations() const override { return mma_compilations.load(); }
  // Like a mid-sized tile of the Hopper family's.
  double prepare_cost(const Problem&, const KernelConfig&) const override { return 1.0; }

  // On Hopper the wgmma family serves every problem it can map, and this template (mma.sync,
  // no cp.async pipeline) has never won a shape there: 0.13-0.15x of cuBLASLt (issue 29). Its
  // defaults would only cost a cold tuning their compiles, the slowest of any family (on the
  // H100 at 256x4096x4096 bf16: 4.8 s with its 12 configs, 1.5 s without). It stays the
  // fallback for what wgmma cannot map and for other GPUs, and in the exhaustive space.
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    if (space == SearchSpace::default_space && wgmma_serves(problem)) return {};
    return mma_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return mma_can_implement(problem, config, device_);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& requested) const override {
    const KernelConfig config = with_fault_defaults(requested);
    GEMMTUNE_RETURN_IF_ERROR(mma_can_implement(problem, config, device_));
    return prepare_jit_kernel<MmaKernel>(
        device_, problem, config, "mma",
        [&](bool recompile) { return compile_gemm_mma(problem, config, device_, recompile); },
        [&] { return std::make_unique<MmaKernel>(problem, config); });
  }

 private:
  // Where wgmma would read a padded copy of an operand (padded_operand.h), this family, which
  // reads the caller's rows, stays offered beside it: the copy may cost more than wgmma gains.
  bool wgmma_serves(const Problem& problem) const {
    return device_.cc_major == 9 && device_.cc_minor == 0 && check_wgmma_problem(problem).is_ok() &&
           !padded_operands(problem).any();
  }

  const CudaInfo device_;
};

}  // namespace

std::string mma_backend_version() {
  static const std::string version = "gemm_mma-" + to_hex(sha256(gemm_mma_source())).substr(0, 16);
  return version;
}

Status mma_can_implement(const Problem& problem, const KernelConfig& requested, const CudaInfo& device) {
  const KernelConfig config = with_fault_defaults(requested);
  if (is_fault_kernel(config.kernel) && !fault_configs_allowed()) {
    return unsupported("fault-injection config (kernel=" + std::string(kernel_name(config.kernel)) +
                       ") needs GEMMTUNE_ALLOW_FAULT_CONFIGS=1");
  }
  GEMMTUNE_RETURN_IF_ERROR(check_mma_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_mma_config_shape(config, problem));
  return check_mma_limits(config, problem, device);
}

std::vector<std::string> gemm_mma_options(const Problem& p, const KernelConfig& requested, const std::string& arch) {
  const KernelConfig c = with_fault_defaults(requested);
  const std::optional<WarpLayout> warps = warp_layout(c.block_m, c.block_n, c.warps);
  auto define = [](const char* name, std::int64_t value) { return std::string("-D") + name + "=" + std::to_string(value); };
  std::vector<std::string> options = {
      "--gpu-architecture=" + arch,
      "-std=c++17",
      "-default-device",
      define("GT_IN", input_code(p.a_type())),
      define("GT_OUT", output_code(p.c_type())),
      define("GT_A_KCONTIG", p.a_layout() == Layout::row_major),
      define("GT_B_KCONTIG", p.b_layout() == Layout::col_major),
      define("GT_BM", c.block_m),
      define("GT_BN", c.block_n),
      define("GT_BK", c.block_k),
      define("GT_WM", warps ? warps->warps_m : 0),
      define("GT_WN", warps ? warps->warps_n : 0),
      define("GT_STAGES", c.stages),
      define("GT_GROUP_M", c.group_m),
      define("GT_SPLIT_K", c.split_k > 1 ? c.split_k : 1),
  };
  if (c.kernel == kFaultIllegalAddress) options.push_back(define("GEMMTUNE_FAULT", 1));
  if (c.kernel == kFaultSpin) options.push_back(define("GEMMTUNE_FAULT", 2));
  return options;
}

Result<CubinArtifact> compile_gemm_mma(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                       bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(mma_can_implement(problem, config, device));
  auto artifact = obtain_cubin(gemm_mma_source(), gemm_mma_options(problem, config, device.arch()), recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "compiling " + with_fault_defaults(config).to_string() + " for " +
                                                problem.describe() + ": " + artifact.status().message());
  }
  if (!artifact->from_cache) ++mma_compilations;
  return artifact;
}

std::unique_ptr<Backend> make_mma_backend(const CudaInfo& device) { return std::make_unique<MmaBackend>(device); }

}  // namespace gemmtune::cuda
