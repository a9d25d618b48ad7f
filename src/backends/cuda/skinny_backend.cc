// Backend "skinny": gemmtune's kernels for m ≤ 64, compiled at run time with NVRTC.
#include "skinny_backend.h"

#include <atomic>
#include <mutex>

#include "cubin_cache.h"
#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "skinny_config_space.h"
#include "worker_client.h"

namespace gemmtune::cuda {
namespace {

std::atomic<std::int64_t> skinny_compilations{0};

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

class SkinnyKernel final : public Kernel {
 public:
  SkinnyKernel(const Problem& problem, const KernelConfig& config)
      : problem_(problem), instance_(skinny_instance(problem, config)) {}

  Status load(const CudaInfo& device, const std::string& cubin) {
    GEMMTUNE_RETURN_IF_ERROR(module_.load(device.index, cubin));
    GEMMTUNE_ASSIGN_OR_RETURN(function_, module_.function("gemmtune_gemm_skinny", instance_.shared_bytes()));
    blocks_ = unsigned(std::max<std::int64_t>(1, (problem_.n() + instance_.block_n() - 1) / instance_.block_n()));
    pdl_ = skinny_uses_pdl(device.arch());
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
    GEMMTUNE_RETURN_IF_ERROR(module_.make_current());
    const void* a = args.a;
    const void* b = args.b;
    void* c = args.c;
    void* workspace = scratch_.data();
    void* counters = workspace != nullptr ? static_cast<char*>(workspace) + instance_.counters_offset(p.n()) : nullptr;
    long long m = p.m(), n = p.n(), k = p.k(), lda = p.lda(), ldb = p.ldb(), ldc = p.ldc();
    float alpha = float(p.alpha()), beta = float(p.beta());
    void* params[] = {&a, &b, &c, &workspace, &counters, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta};
    std::unique_lock<std::mutex> turn;
    if (workspace != nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(turn, scratch_.begin(args.stream));
    }
    // With programmatic stream serialization the kernel may start while the previous one in the
    // stream finishes; it waits for it (griddepcontrol.wait) before it reads A or writes C.
    CUlaunchAttribute overlap{};
    overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    overlap.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig launch{};
    launch.gridDimX = blocks_;
    launch.gridDimY = unsigned(instance_.split_k);
    launch.gridDimZ = 1;
    launch.blockDimX = unsigned(instance_.threads());
    launch.blockDimY = launch.blockDimZ = 1;
    launch.sharedMemBytes = unsigned(instance_.shared_bytes());
    launch.hStream = static_cast<CUstream>(args.stream);
    launch.attrs = pdl_ ? &overlap : nullptr;
    launch.numAttrs = pdl_ ? 1 : 0;
    GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().launch_kernel_ex(&launch, function_, params, nullptr),
                                          "cuLaunchKernelEx(gemmtune_gemm_skinny)"));
    return workspace != nullptr ? scratch_.finish(args.stream) : Status::ok();
  }

  std::size_t workspace_bytes() const override { return scratch_.bytes(); }

 private:
  const Problem problem_;
  const SkinnyInstance instance_;
  CudaModule module_;
  CUfunction function_ = nullptr;
  unsigned blocks_ = 1;
  bool pdl_ = false;  // launched with programmatic stream serialization (the kernel has GT_PDL)
  SerializedScratch scratch_;  // split-k partial sums and block counters
};

class SkinnyBackend final : public Backend {
 public:
  explicit SkinnyBackend(const CudaInfo& device) : device_(device) {}

  std::string_view name() const override { return "skinny"; }
  std::string version() const override { return skinny_backend_version(); }
  std::int64_t compilations() const override { return skinny_compilations.load(); }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return skinny_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return skinny_can_implement(problem, config, device_);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    return prepare_jit_kernel<SkinnyKernel>(
        device_, problem, config, "skinny",
        [&](bool recompile) { return compile_gemm_skinny(problem, config, device_, recompile); },
        [&] { return std::make_unique<SkinnyKernel>(problem, config); });
  }

 private:
  const CudaInfo device_;
};

}  // namespace

std::string skinny_backend_version() {
  static const std::string version = "gemm_skinny-" + to_hex(sha256(gemm_skinny_source())).substr(0, 16);
  return version;
}

Status skinny_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device) {
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_skinny_config_shape(config, problem));
  return check_skinny_limits(config, problem, device);
}

Result<CubinArtifact> compile_gemm_skinny(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                          bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(skinny_can_implement(problem, config, device));
  const SkinnyInstance instance = skinny_instance(problem, config);
  auto artifact = obtain_cubin(gemm_skinny_source(), instance.options(device.arch()), recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "compiling skinny " + config.to_string() + " for " + problem.describe() +
                                                ": " + artifact.status().message());
  }
  if (!artifact->from_cache) ++skinny_compilations;
  return artifact;
}

std::unique_ptr<Backend> make_skinny_backend(const CudaInfo& device) { return std::make_unique<SkinnyBackend>(device); }

}  // namespace gemmtune::cuda
