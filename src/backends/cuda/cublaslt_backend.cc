// Backend "cublaslt": each of cuBLASLt's top heuristic algorithms is its own choice (config
// field `rank`, 1-based), so the autotuner benchmarks what cuBLAS would only guess
// between: best-of-8 beats the first pick by ~1.04x geomean on an H100 (anchors.md).
//
// Its kernels (config field `kernel`):
// - main: the heuristics' algorithms that keep split-k's partial sums in f32
//   (cublaslt_plan.h, Reductions), on the caller's operands;
// - padded: the same for padded copies of operands whose leading dimension is not a multiple
//   of 16 bytes (padded_operand.h), copied before it on every call, as PyTorch's pad_mm does:
//   cuBLASLt's algorithms read such rows 1.9-3.8x slower (H200, tn m = 100 and 300);
// - any_reduction: the heuristics' algorithms with cuBLASLt's default preferences, as a
//   program calling it gets them: `gemmtune bench` compares with these, and never picks them.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "cublaslt_library.h"
#include "cublaslt_plan.h"
#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "pad_copy_kernel.h"
#include "padded_operand.h"

namespace gemmtune::cuda {
namespace {

Reductions reductions_of(const KernelConfig& config) {
  return config.kernel == kKernelAnyReduction ? Reductions::any : Reductions::f32_partials;
}

// The problem as a padded kernel hands it to cuBLASLt: the leading dimensions of its copies.
Result<Problem> padded_problem(const Problem& problem) {
  const PaddedOperands padded = padded_operands(problem);
  ProblemSpec spec = problem.spec();
  spec.lda = padded.a.ld;
  spec.ldb = padded.b.ld;
  return Problem::create(spec);
}

// Why the problem has no padded kernel ("" where it has): none of its operands needs a copy,
// or one would take too much memory.
std::string why_not_padded(const Problem& problem) {
  const PaddedOperands padded = padded_operands(problem);
  if (!padded.any()) return "no operand's leading dimension needs padding (all are multiples of 16 bytes)";
  for (const WgmmaOperand* operand : {&padded.a, &padded.b}) {
    if (std::string why = padded_copy_problem(*operand); !why.empty()) return why;
  }
  return "";
}

// The padded copies of a kernel's operands (those whose rows are not 16-byte multiples), made
// in the device's buffer for copies by the copy kernel.
struct PaddedCopies {
  int device = 0;
  OperandCopies operands;
  SerializedScratch* buffer = nullptr;
  CUfunction pad_copy = nullptr;
  int sm_count = 0;
};

// One ranked algorithm of one problem. Tuning timed it on cudaMalloc's 256-byte aligned
// operands. A call whose operands lie less aligned (a view into a larger buffer) runs the
// heuristic's first algorithm for the call's alignments instead, looked up on the first such
// call, as PyTorch asks cuBLASLt per call: the ranked algorithm may not run there at all, and
// where it does it was not timed there (bf16 4096³ on the H200 with A 16 bytes off the grid:
// 248 us against 182 for the heuristic's pick for that alignment).
class CublasLtKernel final : public Kernel {
 public:
  CublasLtKernel(int device, cublasLtHandle_t handle, std::unique_ptr<MatmulPlan> plan, Reductions reductions,
                 cublasLtMatmulAlgo_t algo, void* workspace, std::size_t workspace_bytes)
      : device_(device), handle_(handle), plan_(std::move(plan)), reductions_(reductions), algo_(algo),
        workspace_bytes_(workspace_bytes) {
    streams_[0].data = workspace;
  }
  ~CublasLtKernel() override {
    for (const StreamWorkspace& slot : streams_) {
      if (slot.data != nullptr) cudaFree(slot.data);
    }
  }

  // Reads the problem's padded operands from copies made before each call.
  Status copy_operands(const Problem& problem, const CudaInfo& device) {
    const PaddedOperands padded = padded_operands(problem);
    auto copies = std::make_unique<PaddedCopies>();
    for (auto [i, operand] : {std::pair{std::size_t(0), &padded.a}, std::pair{std::size_t(1), &padded.b}}) {
      if (operand->caller_ld != 0) copies->operands.add(i, padded_copy_shape(*operand));
    }
    copies->device = device.index;
    copies->buffer = &padded_copies_buffer(device.index);
    GEMMTUNE_ASSIGN_OR_RETURN(copies->pad_copy, pad_copy_function(device));
    copies->sm_count = device.sm_count;
    copies_ = std::move(copies);
    return Status::ok();
  }

  Status run(const GemmArgs& args) override {
    if (copies_ == nullptr) return run_at(args);
    // One call's copies at a time in the device's buffer (which the call's bytes may grow); the
    // turn is given back whatever fails after it is taken.
    GEMMTUNE_RETURN_IF_ERROR(make_device_current(copies_->device));
    GEMMTUNE_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> turn,
                              copies_->buffer->begin(args.stream, copies_->operands.bytes()));
    std::array<const void*, 2> operands = {args.a, args.b};
    Status status = copies_->operands.enqueue(copies_->pad_copy, operands, copies_->buffer->data(), args.stream,
                                              copies_->sm_count);
    if (status.is_ok()) {
      GemmArgs on_copies = args;
      on_copies.a = operands[0];
      on_copies.b = operands[1];
      status = run_at(on_copies);
    }
    const Status given_back = copies_->buffer->finish(args.stream);
    return status.is_ok() ? given_back : status;
  }
  std::size_t workspace_bytes() const override {
    return workspace_bytes_ + (copies_ != nullptr ? copies_->operands.bytes() : 0);
  }
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
  // The call on operands where they lie (the caller's, or copies).
  Status run_at(const GemmArgs& args) {
    const std::uintptr_t addresses = reinterpret_cast<std::uintptr_t>(args.a) |
                                     reinterpret_cast<std::uintptr_t>(args.b) | reinterpret_cast<std::uintptr_t>(args.c);
    if ((addresses & (kAssumedAlignment - 1)) != 0) [[unlikely]] {
      const Alignments given = alignments_of(args.a, args.b, args.c);
      GEMMTUNE_ASSIGN_OR_RETURN(const cublasLtMatmulAlgo_t* algo, algorithm_for(given));
      Status status = matmul(args, algo);
      // The heuristics may offer an algorithm that then refuses the call (s8 at a 1-byte
      // alignment): remembered, so that later such calls are refused at once.
      if (status.code() == ErrorCode::unsupported) forget_algorithm_for(given);
      return status;
    }
    return matmul(args, &algo_);
  }

  // The workspace: each of the first kStreamWorkspaces streams that call has one to itself, its
  // calls ordered in it (the tuning's stream is one; the first's is allocated at prepare); calls on any
  // later stream take turns on a shared one. Two calls on two streams at once would otherwise
  // add their partial sums in the same bytes.
  Status matmul(const GemmArgs& args, const cublasLtMatmulAlgo_t* algo) {
    if (workspace_bytes_ == 0) return matmul_with(args, algo, nullptr);
    const auto stream = reinterpret_cast<std::uintptr_t>(args.stream);
    for (const StreamWorkspace& slot : streams_) {
      if (slot.stream.load(std::memory_order_acquire) == stream) return matmul_with(args, algo, slot.data);
    }
    GEMMTUNE_ASSIGN_OR_RETURN(void* own, claim_workspace(stream));
    if (own != nullptr) return matmul_with(args, algo, own);
    GEMMTUNE_RETURN_IF_ERROR(make_device_current(device_));
    GEMMTUNE_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> turn, shared_.begin(args.stream, workspace_bytes_));
    const Status status = matmul_with(args, algo, shared_.data());
    const Status given_back = shared_.finish(args.stream);
    return status.is_ok() ? given_back : status;
  }
  // A free slot's workspace for `stream` (allocated here but the first's), or null where all are
  // taken.
  Result<void*> claim_workspace(std::uintptr_t stream) {
    std::lock_guard lock(claim_mutex_);
    for (StreamWorkspace& slot : streams_) {
      const std::uintptr_t owner = slot.stream.load(std::memory_order_relaxed);
      if (owner == stream) return slot.data;
      if (owner != kUnowned) continue;
      if (slot.data == nullptr) {
        GEMMTUNE_RETURN_IF_ERROR(make_device_current(device_));
        GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&slot.data, workspace_bytes_), "cudaMalloc workspace"));
      }
      slot.stream.store(stream, std::memory_order_release);  // after data: a reader sees both
      return slot.data;
    }
    return static_cast<void*>(nullptr);
  }
  Status matmul_with(const GemmArgs& args, const cublasLtMatmulAlgo_t* algo, void* workspace) const {
    return check(plan_->api.matmul(handle_, plan_->desc, plan_->alpha(), args.b, plan_->x, args.a, plan_->y,
                                   plan_->beta(), args.c, plan_->c, args.c, plan_->c, algo, workspace,
                                   workspace_bytes_, static_cast<cudaStream_t>(args.stream)),
                 "cublasLtMatmul");
  }

  // The algorithm for operands of these alignments, looked up once (and so is its absence);
  // the deque keeps each where it is while later ones are added.
  Result<const cublasLtMatmulAlgo_t*> algorithm_for(const Alignments& given) {
    std::lock_guard lock(others_mutex_);
    auto it = std::find_if(others_.begin(), others_.end(), [&](const Other& o) { return o.alignments == given; });
    if (it == others_.end()) {
      auto found = heuristics(handle_, *plan_, reductions_, workspace_bytes_, given);
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

  int device_;
  cublasLtHandle_t handle_;
  std::unique_ptr<MatmulPlan> plan_;
  Reductions reductions_;
  cublasLtMatmulAlgo_t algo_;
  std::size_t workspace_bytes_;
  static constexpr std::uintptr_t kUnowned = ~std::uintptr_t(0);  // not a stream: 0 is the default one
  static constexpr std::size_t kStreamWorkspaces = 4;
  struct StreamWorkspace {
    std::atomic<std::uintptr_t> stream{kUnowned};
    void* data = nullptr;
  };
  std::array<StreamWorkspace, kStreamWorkspaces> streams_;
  std::mutex claim_mutex_;
  SerializedScratch shared_;               // later streams' workspace
  std::unique_ptr<PaddedCopies> copies_;  // kernel padded only
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
  std::size_t operand_grid_bytes(std::int64_t) const override { return 16; }
  // The loaded library's own version (it may differ from the headers of the build), what
  // gemmtune asks of it (f32 partial sums) and the copy kernel of its padded kernels.
  std::string version() const override {
    auto api = cublaslt_api();
    if (!api.is_ok()) return "cublasLt-unavailable";
    return "cublasLt-" + std::to_string((*api)->get_version()) + "+f32-partials+" + pad_copy_version();
  }

  // The main kernel's ranks, then the padded kernel's where an operand needs a copy.
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    std::vector<KernelConfig> configs = ranked(problem, kKernelMain);
    if (why_not_padded(problem).empty()) {
      auto padded = padded_problem(problem);
      if (padded.is_ok()) {
        for (const KernelConfig& c : ranked(*padded, kKernelPadded)) configs.push_back(c);
      }
    }
    return configs;
  }
  // A program calling cuBLASLt, handle or not: the library's own preferences.
  std::vector<KernelConfig> peer_configs(const Problem& problem, SearchSpace) const override {
    return ranked(problem, kKernelAnyReduction);
  }
  std::vector<KernelConfig> per_call_configs(const Problem& problem) const override {
    return ranked(problem, kKernelAnyReduction);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(supported(problem));
    GEMMTUNE_RETURN_IF_ERROR(cublaslt_api().status());
    if (config.kernel != kKernelMain && config.kernel != kKernelPadded && config.kernel != kKernelAnyReduction) {
      return unsupported("cublaslt has the kernels main, padded and any_reduction, not " +
                         std::string(kernel_name(config.kernel)));
    }
    if (config.kernel == kKernelPadded) {
      if (std::string why = why_not_padded(problem); !why.empty()) return unsupported("no padded kernel: " + why);
    }
    if (config.rank < 1 || config.rank > kMaxAlgorithms) {
      return unsupported("rank must be a heuristic rank in [1, " + std::to_string(kMaxAlgorithms) + "]");
    }
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(problem, config));
    GEMMTUNE_ASSIGN_OR_RETURN(const CublasLtApi* api, cublaslt_api());
    GEMMTUNE_ASSIGN_OR_RETURN(cublasLtHandle_t handle, cublaslt_handle(*api, device_.index));
    GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device_.index), "cudaSetDevice"));
    const bool padded = config.kernel == kKernelPadded;
    GEMMTUNE_ASSIGN_OR_RETURN(const Problem planned, padded ? padded_problem(problem) : Result<Problem>(problem));
    auto plan = std::make_unique<MatmulPlan>(*api);
    GEMMTUNE_RETURN_IF_ERROR(make_plan(planned, *plan));
    const Reductions reductions = reductions_of(config);
    GEMMTUNE_ASSIGN_OR_RETURN(auto found, heuristics(handle, *plan, reductions));
    if (std::size_t(config.rank) > found.size()) {
      return unsupported("the heuristics rank only " + std::to_string(found.size()) + " algorithms here");
    }
    const cublasLtMatmulHeuristicResult_t& pick = found[std::size_t(config.rank - 1)];
    void* workspace = nullptr;
    if (pick.workspaceSize > 0) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&workspace, pick.workspaceSize), "cudaMalloc workspace"));
    }
    auto kernel = std::make_unique<CublasLtKernel>(device_.index, handle, std::move(plan), reductions, pick.algo,
                                                   workspace, pick.workspaceSize);
    if (padded) GEMMTUNE_RETURN_IF_ERROR(kernel->copy_operands(problem, device_));
    return std::unique_ptr<Kernel>(std::move(kernel));
  }

 private:
  static Status supported(const Problem& p) {
    if (p.m() == 0 || p.n() == 0 || p.k() == 0) return unsupported("cuBLASLt is not used for zero-sized dims");
    return Status::ok();
  }
  // One config per algorithm the heuristics rank for the problem, of the given kernel.
  std::vector<KernelConfig> ranked(const Problem& problem, std::int32_t kernel) const {
    if (!supported(problem).is_ok()) return {};
    auto api = cublaslt_api();
    if (!api.is_ok()) return {};
    auto handle = cublaslt_handle(**api, device_.index);
    if (!handle.is_ok()) return {};
    MatmulPlan plan(**api);
    if (!make_plan(problem, plan).is_ok()) return {};
    KernelConfig config;
    config.kernel = kernel;
    auto found = heuristics(*handle, plan, reductions_of(config));
    if (!found.is_ok()) return {};
    std::vector<KernelConfig> configs;
    for (std::size_t i = 0; i < found->size(); ++i) {
      config.rank = int(i) + 1;
      configs.push_back(config);
    }
    return configs;
  }
  CudaInfo device_;
};

}  // namespace

std::unique_ptr<Backend> make_cublaslt_backend(const CudaInfo& device) {
  return std::make_unique<CublasLtBackend>(device);
}

}  // namespace gemmtune::cuda
