// Backend "cublaslt": each of cuBLASLt's top heuristic algorithms is its own choice (config
// field `rank`, 1-based), so the autotuner benchmarks what cuBLAS would only guess
// between: best-of-8 beats the first pick by ~1.04x geomean on an H100 (anchors.md).
//
// cuBLASLt is column-major; gemmtune's C is row-major. Row-major C (m×n) is column-major Cᵀ
// (n×m), and Cᵀ = Bᵀ·Aᵀ, so cuBLASLt's "A" is our B and its "B" our A. A row-major operand
// read column-major is its own transpose, which decides each op below.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "cuda_backends.h"
#include "cublaslt_library.h"
#include "cuda_check.h"

namespace gemmtune::cuda {
namespace {

constexpr int kMaxAlgorithms = 16;
// Workspace offered to the heuristics; larger lets split-k algorithms in.
constexpr std::size_t kMaxWorkspaceBytes = std::size_t(32) << 20;

cudaDataType_t to_cuda(DType type) {
  switch (type) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::s8: return CUDA_R_8I;
    case DType::s32: return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

// One cuBLASLt handle per process and device, created on first use (it needs a GPU).
Result<cublasLtHandle_t> handle_for(const CublasLtApi& api, int device) {
  static std::mutex mutex;
  static cublasLtHandle_t handles[64] = {};
  if (device < 0 || device >= 64) return invalid_argument("device index out of range");
  std::lock_guard lock(mutex);
  if (handles[device] == nullptr) {
    GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device), "cudaSetDevice"));
    GEMMTUNE_RETURN_IF_ERROR(check(api.create(&handles[device]), "cublasLtCreate"));
  }
  return handles[device];
}

// The descriptors of one problem; owns them.
struct MatmulPlan {
  const CublasLtApi& api;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, c = nullptr;  // x: our B, y: our A
  bool integer = false;
  explicit MatmulPlan(const CublasLtApi& library) : api(library) {}
  MatmulPlan(const MatmulPlan&) = delete;
  MatmulPlan& operator=(const MatmulPlan&) = delete;
  ~MatmulPlan() {
    if (desc) api.desc_destroy(desc);
    if (x) api.layout_destroy(x);
    if (y) api.layout_destroy(y);
    if (c) api.layout_destroy(c);
  }
};

Status make_plan(const Problem& p, MatmulPlan& plan) {
  const CublasLtApi& api = plan.api;
  plan.integer = p.a_type() == DType::s8;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (plan.integer) compute = CUBLAS_COMPUTE_32I;
  const cudaDataType_t scale = plan.integer ? CUDA_R_32I : CUDA_R_32F;
  GEMMTUNE_RETURN_IF_ERROR(check(api.desc_create(&plan.desc, compute, scale), "cublasLtMatmulDescCreate"));
  const cublasOperation_t op_x = p.b_layout() == Layout::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_y = p.a_layout() == Layout::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  GEMMTUNE_RETURN_IF_ERROR(
      check(api.desc_set(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_x, sizeof op_x), "set TRANSA"));
  GEMMTUNE_RETURN_IF_ERROR(
      check(api.desc_set(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_y, sizeof op_y), "set TRANSB"));
  // Stored shapes (column-major view) of each operand.
  const std::uint64_t x_rows = op_x == CUBLAS_OP_N ? p.n() : p.k(), x_cols = op_x == CUBLAS_OP_N ? p.k() : p.n();
  const std::uint64_t y_rows = op_y == CUBLAS_OP_N ? p.k() : p.m(), y_cols = op_y == CUBLAS_OP_N ? p.m() : p.k();
  GEMMTUNE_RETURN_IF_ERROR(check(api.layout_create(&plan.x, to_cuda(p.b_type()), x_rows, x_cols, p.ldb()), "layout B"));
  GEMMTUNE_RETURN_IF_ERROR(check(api.layout_create(&plan.y, to_cuda(p.a_type()), y_rows, y_cols, p.lda()), "layout A"));
  GEMMTUNE_RETURN_IF_ERROR(check(api.layout_create(&plan.c, to_cuda(p.c_type()), p.n(), p.m(), p.ldc()), "layout C"));
  return Status::ok();
}

// The alignment of each of our operands' addresses, in bytes: the largest power of two that
// divides it, up to 256, which is what cuBLASLt's heuristics assume unless told less.
constexpr std::uint32_t kAssumedAlignment = 256;
struct Alignments {
  std::uint32_t a = kAssumedAlignment, b = kAssumedAlignment, c = kAssumedAlignment;
  bool operator==(const Alignments&) const = default;
};

std::uint32_t address_alignment(const void* p) {
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t lowest_bit = address & (~address + 1);
  return lowest_bit == 0 || lowest_bit > kAssumedAlignment ? kAssumedAlignment : std::uint32_t(lowest_bit);
}

Alignments alignments_of(const GemmArgs& args) {
  return {address_alignment(args.a), address_alignment(args.b), address_alignment(args.c)};
}

// The heuristic's ranked algorithms for a problem (at most kMaxAlgorithms) whose workspace fits
// `max_workspace` and that read operands of the `given` alignments.
Result<std::vector<cublasLtMatmulHeuristicResult_t>> heuristics(cublasLtHandle_t handle, const MatmulPlan& plan,
                                                                std::size_t max_workspace = kMaxWorkspaceBytes,
                                                                const Alignments& given = {}) {
  const CublasLtApi& api = plan.api;
  cublasLtMatmulPreference_t preference = nullptr;
  GEMMTUNE_RETURN_IF_ERROR(check(api.preference_create(&preference), "cublasLtMatmulPreferenceCreate"));
  api.preference_set(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof max_workspace);
  for (auto [which, bytes] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, given.b},
                              std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, given.a},
                              std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, given.c},
                              std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, given.c}}) {
    api.preference_set(preference, which, &bytes, sizeof bytes);
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(kMaxAlgorithms);
  int found = 0;
  cublasStatus_t status = api.heuristic(handle, plan.desc, plan.x, plan.y, plan.c, plan.c, preference,
                                        kMaxAlgorithms, results.data(), &found);
  api.preference_destroy(preference);
  GEMMTUNE_RETURN_IF_ERROR(check(status, "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0) return unsupported("cuBLASLt has no algorithm for this problem");
  results.resize(std::size_t(found));
  return results;
}

// One ranked algorithm of one problem. Tuning timed it on cudaMalloc's 256-byte aligned
// operands. A call whose operands lie less aligned (a view into a larger buffer) runs the
// heuristic's first algorithm for the call's alignments instead, looked up on the first such
// call, as PyTorch asks cuBLASLt per call: the ranked algorithm may not run there at all, and
// where it does it was not timed there (bf16 4096³ on the H200 with A 16 bytes off the grid:
// 248 us against 182 for the heuristic's pick for that alignment).
class CublasLtKernel final : public Kernel {
 public:
  CublasLtKernel(const Problem& problem, cublasLtHandle_t handle, std::unique_ptr<MatmulPlan> plan,
                 cublasLtMatmulAlgo_t algo, void* workspace, std::size_t workspace_bytes)
      : problem_(problem), handle_(handle), plan_(std::move(plan)), algo_(algo), workspace_(workspace),
        workspace_bytes_(workspace_bytes) {}
  ~CublasLtKernel() override {
    if (workspace_ != nullptr) cudaFree(workspace_);
  }

  Status run(const GemmArgs& args) override {
    const std::uintptr_t addresses = reinterpret_cast<std::uintptr_t>(args.a) |
                                     reinterpret_cast<std::uintptr_t>(args.b) | reinterpret_cast<std::uintptr_t>(args.c);
    if ((addresses & (kAssumedAlignment - 1)) != 0) [[unlikely]] {
      const Alignments given = alignments_of(args);
      GEMMTUNE_ASSIGN_OR_RETURN(const cublasLtMatmulAlgo_t* algo, algorithm_for(given));
      Status status = matmul(args, algo);
      // The heuristics may offer an algorithm that then refuses the call (s8 at a 1-byte
      // alignment): remembered, so that later such calls are refused at once.
      if (status.code() == ErrorCode::unsupported) forget_algorithm_for(given);
      return status;
    }
    return matmul(args, &algo_);
  }
  std::size_t workspace_bytes() const override { return workspace_bytes_; }
  // The heuristic's rank names no algorithm: whether two runs timed the same code shows here.
  std::string detail() const override {
    auto attribute = [this](cublasLtMatmulAlgoConfigAttributes_t which) {
      // Signed: the split count reads -1 where cuBLASLt leaves it to the kernel.
      std::int32_t value = 0;
      std::size_t written = 0;
      plan_->api.algo_get(&algo_, which, &value, sizeof value, &written);
      return std::to_string(value);
    };
    return "id=" + attribute(CUBLASLT_ALGO_CONFIG_ID) + " tile=" + attribute(CUBLASLT_ALGO_CONFIG_TILE_ID) +
           " stages=" + attribute(CUBLASLT_ALGO_CONFIG_STAGES_ID) + " splitk=" +
           attribute(CUBLASLT_ALGO_CONFIG_SPLITK_NUM) + " reduction=" +
           attribute(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME) + " swizzle=" + attribute(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING) +
           " custom=" + attribute(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION) +
           " workspace=" + std::to_string(workspace_bytes_);
  }

 private:
  Status matmul(const GemmArgs& args, const cublasLtMatmulAlgo_t* algo) const {
    const float alpha_f = float(problem_.alpha()), beta_f = float(problem_.beta());
    const std::int32_t alpha_i = std::int32_t(problem_.alpha()), beta_i = std::int32_t(problem_.beta());
    const void* alpha = plan_->integer ? static_cast<const void*>(&alpha_i) : &alpha_f;
    const void* beta = plan_->integer ? static_cast<const void*>(&beta_i) : &beta_f;
    return check(plan_->api.matmul(handle_, plan_->desc, alpha, args.b, plan_->x, args.a, plan_->y, beta, args.c,
                                   plan_->c, args.c, plan_->c, algo, workspace_, workspace_bytes_,
                                   static_cast<cudaStream_t>(args.stream)),
                 "cublasLtMatmul");
  }

  // The algorithm for operands of these alignments, looked up once (and so is its absence);
  // the deque keeps each where it is while later ones are added.
  Result<const cublasLtMatmulAlgo_t*> algorithm_for(const Alignments& given) {
    std::lock_guard lock(others_mutex_);
    auto it = std::find_if(others_.begin(), others_.end(), [&](const Other& o) { return o.alignments == given; });
    if (it == others_.end()) {
      auto found = heuristics(handle_, *plan_, workspace_bytes_, given);
      others_.push_back(Other{given, found.is_ok() ? std::optional(found->front().algo) : std::nullopt});
      it = std::prev(others_.end());
    }
    if (!it->algo || it->refused) {
      return unsupported("cuBLASLt has no algorithm for A, B and C aligned to " + std::to_string(given.a) + ", " +
                         std::to_string(given.b) + " and " + std::to_string(given.c) + " bytes");
    }
    return &*it->algo;
  }
  // Another thread may be running the algorithm still: it is marked, not dropped.
  void forget_algorithm_for(const Alignments& given) {
    std::lock_guard lock(others_mutex_);
    for (Other& other : others_) {
      if (other.alignments == given) other.refused = true;
    }
  }

  Problem problem_;
  cublasLtHandle_t handle_;
  std::unique_ptr<MatmulPlan> plan_;
  cublasLtMatmulAlgo_t algo_;
  void* workspace_;
  std::size_t workspace_bytes_;
  struct Other {
    Alignments alignments;
    std::optional<cublasLtMatmulAlgo_t> algo;  // none: the heuristics have none for them
    bool refused = false;                      // cublasLtMatmul refused the one they gave
  };
  std::mutex others_mutex_;
  std::deque<Other> others_;
};

class CublasLtBackend final : public Backend {
 public:
  explicit CublasLtBackend(const CudaInfo& device) : device_(device) {}
  std::string_view name() const override { return "cublaslt"; }
  // From 16 bytes up its heuristics pick an algorithm for the call's alignment (PyTorch's
  // figures); below, algorithms refuse or run 4-11x slower.
  std::size_t operand_grid_bytes() const override { return 16; }
  // The loaded library's own version (it may differ from the headers of the build).
  std::string version() const override {
    auto api = cublaslt_api();
    return api.is_ok() ? "cublasLt-" + std::to_string((*api)->get_version()) : "cublasLt-unavailable";
  }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    if (!supported(problem).is_ok()) return {};
    auto api = cublaslt_api();
    if (!api.is_ok()) return {};
    auto handle = handle_for(**api, device_.index);
    if (!handle.is_ok()) return {};
    MatmulPlan plan(**api);
    if (!make_plan(problem, plan).is_ok()) return {};
    auto found = heuristics(*handle, plan);
    if (!found.is_ok()) return {};
    std::vector<KernelConfig> configs;
    for (std::size_t i = 0; i < found->size(); ++i) {
      KernelConfig c;
      c.rank = int(i) + 1;
      configs.push_back(c);
    }
    return configs;
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(supported(problem));
    GEMMTUNE_RETURN_IF_ERROR(cublaslt_api().status());
    if (config.rank < 1 || config.rank > kMaxAlgorithms) {
      return unsupported("rank must be a heuristic rank in [1, " + std::to_string(kMaxAlgorithms) + "]");
    }
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(problem, config));
    GEMMTUNE_ASSIGN_OR_RETURN(const CublasLtApi* api, cublaslt_api());
    GEMMTUNE_ASSIGN_OR_RETURN(cublasLtHandle_t handle, handle_for(*api, device_.index));
    GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device_.index), "cudaSetDevice"));
    auto plan = std::make_unique<MatmulPlan>(*api);
    GEMMTUNE_RETURN_IF_ERROR(make_plan(problem, *plan));
    GEMMTUNE_ASSIGN_OR_RETURN(auto found, heuristics(handle, *plan));
    if (std::size_t(config.rank) > found.size()) {
      return unsupported("the heuristics rank only " + std::to_string(found.size()) + " algorithms here");
    }
    const cublasLtMatmulHeuristicResult_t& pick = found[std::size_t(config.rank - 1)];
    void* workspace = nullptr;
    if (pick.workspaceSize > 0) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&workspace, pick.workspaceSize), "cudaMalloc workspace"));
    }
    return std::unique_ptr<Kernel>(std::make_unique<CublasLtKernel>(problem, handle, std::move(plan), pick.algo,
                                                                     workspace, pick.workspaceSize));
  }

 private:
  static Status supported(const Problem& p) {
    if (p.m() == 0 || p.n() == 0 || p.k() == 0) return unsupported("cuBLASLt is not used for zero-sized dims");
    return Status::ok();
  }
  CudaInfo device_;
};

}  // namespace

std::unique_ptr<Backend> make_cublaslt_backend(const CudaInfo& device) {
  return std::make_unique<CublasLtBackend>(device);
}

}  // namespace gemmtune::cuda
