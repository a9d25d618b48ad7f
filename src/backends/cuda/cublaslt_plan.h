// One problem as cuBLASLt describes it (descriptors and layouts), and the heuristics' ranked
// algorithms for it: what the cublaslt family's configs and kernels are made of.
//
// cuBLASLt is column-major; gemmtune's C is row-major. Row-major C (m×n) is column-major Cᵀ
// (n×m), and Cᵀ = Bᵀ·Aᵀ, so cuBLASLt's "A" is our B and its "B" our A. A row-major operand
// read column-major is its own transpose, which decides each op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cublaslt_library.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

// One cuBLASLt handle per process and device, created on first use (it needs a GPU).
Result<cublasLtHandle_t> cublaslt_handle(const CublasLtApi& api, int device);

// The descriptors of one problem; owns them.
struct MatmulPlan {
  const CublasLtApi& api;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, c = nullptr;  // x: our B, y: our A
  bool integer = false;
  bool narrow_output = false;  // C in bf16 or f16
  std::int32_t alpha_i = 0, beta_i = 0;  // the scalars as cublasLtMatmul reads them
  float alpha_f = 0, beta_f = 0;
  explicit MatmulPlan(const CublasLtApi& library) : api(library) {}
  MatmulPlan(const MatmulPlan&) = delete;
  MatmulPlan& operator=(const MatmulPlan&) = delete;
  ~MatmulPlan();
  const void* alpha() const { return integer ? static_cast<const void*>(&alpha_i) : &alpha_f; }
  const void* beta() const { return integer ? static_cast<const void*>(&beta_i) : &beta_f; }
};
Status make_plan(const Problem& problem, MatmulPlan& plan);

// The alignment of each of our operands' addresses, in bytes: the largest power of two that
// divides it, up to 256, which is what cuBLASLt's heuristics assume unless told less.
inline constexpr std::uint32_t kAssumedAlignment = 256;
struct Alignments {
  std::uint32_t a = kAssumedAlignment, b = kAssumedAlignment, c = kAssumedAlignment;
  bool operator==(const Alignments&) const = default;
};
Alignments alignments_of(const void* a, const void* b, const void* c);

// Which split-k reductions an algorithm may use. cuBLASLt's own default lets split-k add its
// partial sums in the output type (reduction schemes INPLACE and OUTPUT_TYPE): in bf16 each
// partial sum is rounded to 8 bits before they are added. gemmtune's bound (core/verify.cc) is
// that of f32 sums rounded once. On the H200 such algorithms put 0.3-15 % of C's elements more
// than 2 % of 1 + |c| off (bench/probes/gpu-padding/cublaslt_padded.cc), and whether a tuning's
// check caught one depended on its operands. So gemmtune's choices keep f32 partial sums; a program calling
// cuBLASLt itself gets any (PyTorch by default: allow_bf16_reduced_precision_reduction), which
// is what `gemmtune bench` compares with.
enum class Reductions { f32_partials, any };

// Workspace offered to the heuristics; larger lets split-k algorithms in.
inline constexpr std::size_t kMaxWorkspaceBytes = std::size_t(32) << 20;
inline constexpr int kMaxAlgorithms = 16;

// The heuristic's ranked algorithms for a plan (at most kMaxAlgorithms) whose workspace fits
// `max_workspace`, that read operands of the `given` alignments and use the `reductions`.
Result<std::vector<cublasLtMatmulHeuristicResult_t>> heuristics(cublasLtHandle_t handle, const MatmulPlan& plan,
                                                                Reductions reductions,
                                                                std::size_t max_workspace = kMaxWorkspaceBytes,
                                                                const Alignments& given = {});

}  // namespace gemmtune::cuda
