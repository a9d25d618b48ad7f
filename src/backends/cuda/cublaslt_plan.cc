#include "cublaslt_plan.h"

#include <mutex>
#include <utility>

#include "cuda_check.h"

namespace gemmtune::cuda {
namespace {

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

std::uint32_t address_alignment(const void* p) {
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t lowest_bit = address & (~address + 1);
  return lowest_bit == 0 || lowest_bit > kAssumedAlignment ? kAssumedAlignment : std::uint32_t(lowest_bit);
}

}  // namespace

Result<cublasLtHandle_t> cublaslt_handle(const CublasLtApi& api, int device) {
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

MatmulPlan::~MatmulPlan() {
  if (desc) api.desc_destroy(desc);
  if (x) api.layout_destroy(x);
  if (y) api.layout_destroy(y);
  if (c) api.layout_destroy(c);
}

Status make_plan(const Problem& p, MatmulPlan& plan) {
  const CublasLtApi& api = plan.api;
  plan.integer = p.a_type() == DType::s8;
  plan.narrow_output = p.c_type() == DType::bf16 || p.c_type() == DType::f16;
  plan.alpha_f = float(p.alpha());
  plan.beta_f = float(p.beta());
  plan.alpha_i = std::int32_t(p.alpha());
  plan.beta_i = std::int32_t(p.beta());
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

Alignments alignments_of(const void* a, const void* b, const void* c) {
  return {address_alignment(a), address_alignment(b), address_alignment(c)};
}

Result<std::vector<cublasLtMatmulHeuristicResult_t>> heuristics(cublasLtHandle_t handle, const MatmulPlan& plan,
                                                                Reductions reductions, std::size_t max_workspace,
                                                                const Alignments& given) {
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
  if (reductions == Reductions::f32_partials) {
    // Split-k's partial sums added in the compute type (f32, s32) or not split at all. In f32
    // and s32 output the other schemes add in the compute type too, and stay offered.
    if (plan.narrow_output) {
      const std::uint32_t mask = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      api.preference_set(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof mask);
    }
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

}  // namespace gemmtune::cuda
