// Backend "cuda": gemmtune's own tensor-core kernels, compiled at run time with NVRTC.
#include "nvrtc_backend.h"

#include <mutex>

#include "cubin_cache.h"
#include <cuda.h>

#include "cuda_backends.h"
#include "cuda_check.h"
#include "nvrtc_config_space.h"
#include "worker_client.h"

namespace gemmtune::cuda {
namespace {

// Kernels that use more dynamic shared memory than this must opt in per function.
constexpr std::int64_t kDefaultDynamicSharedBytes = 48 * 1024;
constexpr unsigned kReduceThreads = 256;  // gemmtune_splitk_reduce's __launch_bounds__

// The driver API calls this backend makes, resolved through the runtime
// (cudaGetDriverEntryPointByVersion) rather than linked: linking libcuda would stop the
// library, and every program using it, from even starting on a machine without a driver.
struct DriverApi {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  Status status;
};

template <class Fn>
Status resolve(const char* symbol, Fn& fn) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // 12000: the ABI version of these entry points (all unchanged since CUDA 12.0).
  GEMMTUNE_RETURN_IF_ERROR(check(cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found),
                                 "cudaGetDriverEntryPointByVersion"));
  if (found != cudaDriverEntryPointSuccess || address == nullptr) {
    return Status(ErrorCode::unavailable, std::string("the CUDA driver lacks ") + symbol);
  }
  fn = reinterpret_cast<Fn>(address);
  return Status::ok();
}

const DriverApi& driver() {
  static const DriverApi api = [] {
    DriverApi d;
    for (Status s : {resolve("cuGetErrorName", d.get_error_name), resolve("cuCtxGetCurrent", d.ctx_get_current),
                     resolve("cuCtxSetCurrent", d.ctx_set_current), resolve("cuModuleLoadData", d.module_load_data),
                     resolve("cuModuleUnload", d.module_unload), resolve("cuModuleGetFunction", d.module_get_function),
                     resolve("cuFuncSetAttribute", d.func_set_attribute), resolve("cuLaunchKernel", d.launch_kernel)}) {
      if (!s.is_ok() && d.status.is_ok()) d.status = s;
    }
    return d;
  }();
  return api;
}

Status check_driver(CUresult code, const char* what) {
  if (code == CUDA_SUCCESS) return Status::ok();
  const char* name = nullptr;
  if (driver().get_error_name != nullptr) driver().get_error_name(code, &name);
  return Status(ErrorCode::unavailable,
                std::string(what) + ": " + (name != nullptr ? name : "CUresult " + std::to_string(int(code))));
}

int input_code(DType type) {
  switch (type) {
    case DType::f16: return 0;
    case DType::bf16: return 1;
    case DType::f32: return 2;  // computed as TF32
    default: return 3;          // s8
  }
}

int output_code(DType type) {
  switch (type) {
    case DType::f16: return 1;
    case DType::bf16: return 2;
    case DType::s32: return 3;
    default: return 0;  // f32
  }
}

class NvrtcKernel final : public Kernel {
 public:
  NvrtcKernel(const Problem& problem, const KernelConfig& config) : problem_(problem), config_(config) {}

  ~NvrtcKernel() override {
    if (context_ != nullptr) driver().ctx_set_current(context_);
    if (workspace_ != nullptr) cudaFree(workspace_);
    if (workspace_free_ != nullptr) cudaEventDestroy(workspace_free_);
    if (module_ != nullptr) driver().module_unload(module_);
  }

  // Loads the cubin into the device's primary context (the one the runtime API, and so the
  // caller's streams and buffers, use) and allocates the split-k workspace.
  Status load(const CudaInfo& device, const std::string& cubin) {
    GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device.index), "cudaSetDevice"));
    GEMMTUNE_RETURN_IF_ERROR(check(cudaFree(nullptr), "cudaFree(0) to create the primary context"));
    GEMMTUNE_RETURN_IF_ERROR(driver().status);
    const DriverApi& cu = driver();
    GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.ctx_get_current(&context_), "cuCtxGetCurrent"));
    GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.module_load_data(&module_, cubin.data()), "cuModuleLoadData"));
    GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.module_get_function(&gemm_, module_, "gemmtune_gemm"), "cuModuleGetFunction(gemm)"));
    if (config_.split_k > 1) {
      GEMMTUNE_RETURN_IF_ERROR(
          check_driver(cu.module_get_function(&reduce_, module_, "gemmtune_splitk_reduce"), "cuModuleGetFunction(reduce)"));
    }
    shared_bytes_ = nvrtc_shared_memory_bytes(config_, problem_);
    if (shared_bytes_ > kDefaultDynamicSharedBytes) {
      GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.func_set_attribute(gemm_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                        int(shared_bytes_)),
                                     "cuFuncSetAttribute(max dynamic shared memory)"));
    }
    workspace_bytes_ = std::size_t(nvrtc_workspace_bytes(config_, problem_));
    if (workspace_bytes_ > 0) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&workspace_, workspace_bytes_), "cudaMalloc(split-k workspace)"));
      GEMMTUNE_RETURN_IF_ERROR(
          check(cudaEventCreateWithFlags(&workspace_free_, cudaEventDisableTiming), "cudaEventCreate(split-k workspace)"));
    }
    return Status::ok();
  }

  // Enqueues on args.stream and returns. Safe from several threads: the launch parameters are
  // locals, and split-k runs, which share the one workspace, are chained through an event so a
  // run on one stream waits for the reduce of the previous run on any other.
  Status run(const GemmArgs& args) override {
    const Problem& p = problem_;
    if (p.m() == 0 || p.n() == 0) return Status::ok();
    const DriverApi& cu = driver();
    CUcontext current = nullptr;
    if (cu.ctx_get_current(&current) != CUDA_SUCCESS || current != context_) {
      GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.ctx_set_current(context_), "cuCtxSetCurrent"));
    }
    const void* a = args.a;
    const void* b = args.b;
    void* c = args.c;
    void* workspace = workspace_;
    long long m = p.m(), n = p.n(), k = p.k(), lda = p.lda(), ldb = p.ldb(), ldc = p.ldc();
    float alpha = float(p.alpha()), beta = float(p.beta());
    void* gemm_params[] = {&a, &b, &c, &workspace, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta};
    const long long blocks = ((m + config_.block_m - 1) / config_.block_m) * ((n + config_.block_n - 1) / config_.block_n);
    const unsigned slices = unsigned(config_.split_k > 1 ? config_.split_k : 1);
    auto stream = static_cast<CUstream>(args.stream);
    std::unique_lock<std::mutex> workspace_lock;
    if (workspace_free_ != nullptr) {
      workspace_lock = std::unique_lock<std::mutex>(workspace_mutex_);
      GEMMTUNE_RETURN_IF_ERROR(check(cudaStreamWaitEvent(static_cast<cudaStream_t>(args.stream), workspace_free_, 0),
                                     "cudaStreamWaitEvent(split-k workspace)"));
    }
    GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.launch_kernel(gemm_, unsigned(blocks), 1, slices, unsigned(config_.warps) * 32, 1, 1,
                                                  unsigned(shared_bytes_), stream, gemm_params, nullptr),
                                   "cuLaunchKernel(gemmtune_gemm)"));
    if (reduce_ != nullptr) {
      const void* partial = workspace_;
      void* reduce_params[] = {&partial, &c, &m, &n, &ldc, &alpha, &beta};
      const long long reduce_blocks = (m * n + kReduceThreads - 1) / kReduceThreads;
      GEMMTUNE_RETURN_IF_ERROR(check_driver(cu.launch_kernel(reduce_, unsigned(reduce_blocks), 1, 1, kReduceThreads, 1, 1, 0,
                                                    stream, reduce_params, nullptr),
                                     "cuLaunchKernel(gemmtune_splitk_reduce)"));
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventRecord(workspace_free_, static_cast<cudaStream_t>(args.stream)),
                                     "cudaEventRecord(split-k workspace)"));
    }
    return Status::ok();
  }

  std::size_t workspace_bytes() const override { return workspace_bytes_; }

 private:
  const Problem problem_;
  const KernelConfig config_;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction gemm_ = nullptr;
  CUfunction reduce_ = nullptr;
  std::int64_t shared_bytes_ = 0;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  cudaEvent_t workspace_free_ = nullptr;  // recorded after each split-k reduce
  std::mutex workspace_mutex_;            // orders the wait-launch-record of concurrent runs
};

class NvrtcBackend final : public Backend {
 public:
  explicit NvrtcBackend(const CudaInfo& device) : device_(device) {}

  std::string_view name() const override { return "cuda"; }
  std::string version() const override { return nvrtc_backend_version(); }
  // Process-wide: the cubin cache and its counters are shared by every instance.
  std::int64_t compilations() const override { return std::int64_t(nvrtc_compile_stats().compilations); }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return nvrtc_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return nvrtc_can_implement(problem, config, device_);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& requested) const override {
    const KernelConfig config = with_fault_defaults(requested);
    GEMMTUNE_RETURN_IF_ERROR(nvrtc_can_implement(problem, config, device_));
    GEMMTUNE_ASSIGN_OR_RETURN(CubinArtifact artifact, compile_gemm_mma(problem, config, device_));
    // A freshly compiled kernel first runs in a worker process, so a crash or hang there
    // cannot poison this process's context.
    if (!in_worker()) GEMMTUNE_RETURN_IF_ERROR(verify_in_worker(device_.index, problem, "cuda", config));
    auto kernel = std::make_unique<NvrtcKernel>(problem, config);
    Status loaded = kernel->load(device_, artifact.cubin);
    if (!loaded.is_ok() && artifact.from_cache) {
      // The entry passed its checksum yet the driver rejects it (written by a different
      // driver's NVRTC under the same key, say): drop it and compile afresh.
      forget_cubin(artifact.key);
      GEMMTUNE_ASSIGN_OR_RETURN(artifact, compile_gemm_mma(problem, config, device_, /*recompile=*/true));
      kernel = std::make_unique<NvrtcKernel>(problem, config);
      loaded = kernel->load(device_, artifact.cubin);
    }
    GEMMTUNE_RETURN_IF_ERROR(loaded);
    return std::unique_ptr<Kernel>(std::move(kernel));
  }

 private:
  const CudaInfo device_;
};

}  // namespace

std::string nvrtc_backend_version() {
  static const std::string version = "gemm_mma-" + to_hex(sha256(gemm_mma_source())).substr(0, 16);
  return version;
}

Status nvrtc_can_implement(const Problem& problem, const KernelConfig& requested, const CudaInfo& device) {
  const KernelConfig config = with_fault_defaults(requested);
  if (is_fault_algo(config.algo) && !fault_configs_allowed()) {
    return unsupported("fault-injection config (algo " + std::to_string(config.algo) +
                       ") needs GEMMTUNE_ALLOW_FAULT_CONFIGS=1");
  }
  GEMMTUNE_RETURN_IF_ERROR(check_nvrtc_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_nvrtc_config_shape(config, problem));
  return check_nvrtc_limits(config, problem, device);
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
  if (c.algo == kFaultIllegalAddress) options.push_back(define("GEMMTUNE_FAULT", 1));
  if (c.algo == kFaultSpin) options.push_back(define("GEMMTUNE_FAULT", 2));
  return options;
}

Result<CubinArtifact> compile_gemm_mma(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                       bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(nvrtc_can_implement(problem, config, device));
  auto artifact = obtain_cubin(gemm_mma_source(), gemm_mma_options(problem, config, device.arch()), recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "compiling " + with_fault_defaults(config).to_string() + " for " +
                                                problem.describe() + ": " + artifact.status().message());
  }
  return artifact;
}

std::unique_ptr<Backend> make_nvrtc_backend(const CudaInfo& device) { return std::make_unique<NvrtcBackend>(device); }

}  // namespace gemmtune::cuda
