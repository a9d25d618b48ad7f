// Backend "cutlass": CUTLASS 3's SM90 GEMMs as choices, each instance built by nvcc into a
// shared object at tuning time (cutlass_compiler.cc), cached by content, checked in the worker
// process first like every JIT family, and loaded from memory into this process.
#include "cutlass_backend.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "cubin_cache.h"
#include "cuda_module.h"
#include "cutlass_compiler.h"
#include "cutlass_config_space.h"
#include "kernels/cutlass_abi.h"
#include "operand_address.h"

namespace gemmtune::cuda {
namespace {

std::atomic<std::int64_t> cutlass_compilations{0};
constexpr int kWhyBytes = 512;

// A shared object loaded from bytes: written to an anonymous memory file and opened from there,
// so nothing is left on disk and the cache entry stays the only copy.
class SharedObject {
 public:
  SharedObject() = default;
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  ~SharedObject() {
    if (handle_ != nullptr) dlclose(handle_);
  }

  Status open(const std::string& bytes) {
    const int fd = memfd_create("gemmtune-cutlass", MFD_CLOEXEC);
    if (fd < 0) return Status(ErrorCode::io_error, std::string("memfd_create: ") + std::strerror(errno));
    std::size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
      if (n <= 0) {
        close(fd);
        return Status(ErrorCode::io_error, std::string("writing the cutlass object: ") + std::strerror(errno));
      }
      written += std::size_t(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    close(fd);
    // The bytes, not the problem: a rebuild may serve (prepare_jit_kernel drops the entry).
    if (handle_ == nullptr) {
      return Status(ErrorCode::unavailable, std::string("dlopen of the cutlass object failed: ") + dlerror());
    }
    return Status::ok();
  }

  template <class F>
  Result<F> symbol(const char* name) const {
    void* address = dlsym(handle_, name);
    if (address == nullptr) return Status(ErrorCode::unavailable, std::string("the cutlass object lacks ") + name);
    return reinterpret_cast<F>(address);
  }

 private:
  void* handle_ = nullptr;
};

GtCutlassProblem abi_problem(const Problem& p, const KernelConfig& c, const CudaInfo& device) {
  GtCutlassProblem q{};
  q.m = p.m();
  q.n = p.n();
  q.k = p.k();
  q.lda = p.lda();
  q.ldb = p.ldb();
  q.ldc = p.ldc();
  q.alpha = p.alpha();
  q.beta = p.beta();
  q.device = device.index;
  q.sm_count = device.sm_count;
  q.swizzle = cutlass_swizzle(c);
  return q;
}

class CutlassKernel final : public JitKernel {
 public:
  CutlassKernel(const Problem& problem, const KernelConfig& config) : problem_(problem), config_(config) {}
  ~CutlassKernel() override {
    if (instance_ != nullptr) destroy_(instance_);
  }

  Status load(const CudaInfo& device, const std::string& object) {
    GEMMTUNE_RETURN_IF_ERROR(object_.open(object));
    GEMMTUNE_ASSIGN_OR_RETURN(auto abi, object_.symbol<GtCutlassAbiFn>("gemmtune_cutlass_abi"));
    if (abi() != GT_CUTLASS_ABI) {
      return Status(ErrorCode::unavailable, "the cutlass object speaks ABI " + std::to_string(abi()) +
                                                ", this library " + std::to_string(GT_CUTLASS_ABI));
    }
    GEMMTUNE_ASSIGN_OR_RETURN(auto create, object_.symbol<GtCutlassCreateFn>("gemmtune_cutlass_create"));
    GEMMTUNE_ASSIGN_OR_RETURN(auto workspace, object_.symbol<GtCutlassWorkspaceFn>("gemmtune_cutlass_workspace_bytes"));
    GEMMTUNE_ASSIGN_OR_RETURN(run_, object_.symbol<GtCutlassRunFn>("gemmtune_cutlass_run"));
    GEMMTUNE_ASSIGN_OR_RETURN(destroy_, object_.symbol<GtCutlassDestroyFn>("gemmtune_cutlass_destroy"));
    const GtCutlassProblem problem = abi_problem(problem_, config_, device);
    char why[kWhyBytes] = {0};
    if (create(&problem, &instance_, why, kWhyBytes) != 0) {
      instance_ = nullptr;
      return unsupported("CUTLASS cannot implement " + problem_.describe() + " with " + config_.to_string() + ": " + why);
    }
    device_ = device.index;
    return scratch_.allocate(std::size_t(workspace(instance_)));
  }

  // Enqueues on args.stream. Runs on several streams take turns on the workspace (stream-K's
  // partial tiles); the object's instance serializes its own host state.
  Status run(const GemmArgs& args) override {
    if (problem_.m() == 0 || problem_.n() == 0) return Status::ok();
    // CUTLASS would build its TMA descriptors on such an address and fail, or worse.
    for (auto [name, operand] : {std::pair{"A", args.a}, std::pair{"B", args.b}, std::pair{"C", static_cast<const void*>(args.c)}}) {
      if (!aligned16(operand)) {
        return unsupported(std::string("cutlass kernel: ") + name + " is not 16-byte aligned, which its TMA needs");
      }
    }
    GEMMTUNE_RETURN_IF_ERROR(make_device_current(device_));
    void* workspace = scratch_.data();
    std::unique_lock<std::mutex> turn;
    if (workspace != nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(turn, scratch_.begin(args.stream));
    }
    char why[kWhyBytes] = {0};
    if (run_(instance_, args.a, args.b, args.c, workspace, args.stream, why, kWhyBytes) != 0) {
      return Status(ErrorCode::internal, std::string("cutlass run: ") + why);
    }
    return workspace != nullptr ? scratch_.finish(args.stream) : Status::ok();
  }

  std::size_t workspace_bytes() const override { return scratch_.bytes(); }

 private:
  const Problem problem_;
  const KernelConfig config_;
  SharedObject object_;
  GtCutlassRunFn run_ = nullptr;
  GtCutlassDestroyFn destroy_ = nullptr;
  void* instance_ = nullptr;
  int device_ = 0;
  SerializedScratch scratch_;
};

class CutlassBackend final : public Backend {
 public:
  CutlassBackend(const CudaInfo& device, CutlassSetup setup) : device_(device), setup_(std::move(setup)) {}

  std::string_view name() const override { return "cutlass"; }
  // TMA: operands off the 256-byte grid read far slower (wgmma's, measured), but for small ones.
  std::size_t operand_grid_bytes(std::int64_t operand_bytes) const override {
    return tma_operand_grid_bytes(operand_bytes);
  }
  // TMA needs 16-byte aligned A, B and C: Session::gemm runs a call off that grid elsewhere.
  bool reads_any_address() const override { return false; }
  std::string version() const override {
    return "cutlass-" + setup_.version + "-" + to_hex(sha256(gemm_cutlass_source())).substr(0, 16);
  }
  std::int64_t compilations() const override { return cutlass_compilations.load(); }
  // One nvcc process an instance: 35-68 s of CPU (bench/results/2026-11-26-h100-cutlass.md),
  // far above any NVRTC kernel, so these start first.
  double prepare_cost(const Problem&, const KernelConfig&) const override { return 50.0; }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return cutlass_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(check_cutlass_device(device_));
    GEMMTUNE_RETURN_IF_ERROR(check_cutlass_problem(problem));
    return check_cutlass_config(config, problem);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    return prepare_jit_kernel<CutlassKernel>(
        device_, problem, config, "cutlass",
        [&](bool recompile) { return compile_gemm_cutlass(problem, config, device_, setup_, recompile); },
        [&] { return std::make_unique<CutlassKernel>(problem, config); });
  }

 private:
  const CudaInfo device_;
  const CutlassSetup setup_;
};

}  // namespace

Result<CubinArtifact> compile_gemm_cutlass(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                           const CutlassSetup& setup, bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(check_cutlass_device(device));
  GEMMTUNE_RETURN_IF_ERROR(check_cutlass_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_cutlass_config(config, problem));
  const std::vector<std::string> options =
      cutlass_nvcc_options(setup, cutlass_instance_defines(problem, config), device.arch());
  auto artifact = obtain_cutlass_object(setup, std::string(gemm_cutlass_source()), options, recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "building cutlass " + config.to_string() + " for " + problem.describe() +
                                                ": " + artifact.status().message());
  }
  if (!artifact->from_cache) ++cutlass_compilations;
  return artifact;
}

Result<std::unique_ptr<Backend>> make_cutlass_backend(const CudaInfo& device) {
  GEMMTUNE_ASSIGN_OR_RETURN(CutlassSetup setup, cutlass_setup());
  return std::unique_ptr<Backend>(std::make_unique<CutlassBackend>(device, std::move(setup)));
}

}  // namespace gemmtune::cuda
