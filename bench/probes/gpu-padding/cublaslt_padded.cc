// cuBLASLt on a padded copy of A, alone (no gemmtune code): layout tn (A stored k × m, lda = m,
// B row-major k × n, C row-major m × n), bf16. A is copied into a buffer whose leading
// dimension is m rounded up to 8 elements (16 bytes) by cudaMemcpy2DAsync on the stream, then
// every algorithm the heuristics give for the padded layout runs on the copy, `calls` times in
// a row (copy, matmul, copy, matmul...), and C is compared with a host reference. The same for
// the caller's layout (lda = m) as the control. gemmtune's first try of such choices found two
// algorithms wrong at 300 × 1024 × 512 (bench/results/2026-12-01b-h200-padded-operands.md):
// this says whether cuBLASLt itself is.
//
//   cublaslt_padded [m n k [beta [calls]]]     (default 300 1024 512 0 3)
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                              \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                 \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

std::int32_t algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t which) {
  std::int32_t value = 0;
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, which, &value, sizeof value, &written);
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const long m = argc > 3 ? std::atol(argv[1]) : 300, n = argc > 3 ? std::atol(argv[2]) : 1024,
             k = argc > 3 ? std::atol(argv[3]) : 512;
  const float alpha = 1, beta = argc > 4 ? float(std::atof(argv[4])) : 0;
  const int calls = argc > 5 ? std::atoi(argv[5]) : 3;
  const long padded_ld = (m + 7) / 8 * 8;

  std::vector<__nv_bfloat16> ha(std::size_t(k * m)), hb(std::size_t(k * n)), hc0(std::size_t(m * n));
  srand(1);
  for (auto& x : ha) x = __float2bfloat16(float(rand() % 17 - 8) / 8);
  for (auto& x : hb) x = __float2bfloat16(float(rand() % 17 - 8) / 8);
  for (auto& x : hc0) x = __float2bfloat16(float(rand() % 17 - 8) / 8);
  // Reference: C = alpha·A·B + beta·C0 (after `calls` calls C holds the last one's result).
  std::vector<double> expected(std::size_t(m * n));
  for (long i = 0; i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      double sum = 0;
      for (long p = 0; p < k; ++p) {
        sum += double(__bfloat162float(ha[std::size_t(p * m + i)])) * double(__bfloat162float(hb[std::size_t(p * n + j)]));
      }
      expected[std::size_t(i * n + j)] = alpha * sum + beta * double(__bfloat162float(hc0[std::size_t(i * n + j)]));
    }
  }

  cublasLtHandle_t handle;
  cublasLtCreate(&handle);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  char *a, *a_copy, *b, *c, *workspace;
  const std::size_t workspace_bytes = std::size_t(32) << 20;
  CHECK_CUDA(cudaMalloc(&a, ha.size() * 2));
  CHECK_CUDA(cudaMalloc(&a_copy, std::size_t(k * padded_ld) * 2));
  CHECK_CUDA(cudaMalloc(&b, hb.size() * 2));
  CHECK_CUDA(cudaMalloc(&c, hc0.size() * 2));
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  CHECK_CUDA(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));

  int failures = 0;
  for (long lda : {m, padded_ld}) {
    const bool padded = lda != m;
    // cuBLASLt's view: Cᵀ (n × m) = X (our B, n × k column-major: op N) · Yᵀ (our A, m × k
    // column-major with ld lda: op T).
    cublasLtMatmulDesc_t desc;
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const cublasOperation_t op_x = CUBLAS_OP_N, op_y = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_x, sizeof op_x);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_y, sizeof op_y);
    cublasLtMatrixLayout_t lx, ly, lc;
    cublasLtMatrixLayoutCreate(&lx, CUDA_R_16BF, n, k, n);
    cublasLtMatrixLayoutCreate(&ly, CUDA_R_16BF, m, k, lda);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                         sizeof workspace_bytes);
    cublasLtMatmulHeuristicResult_t results[16];
    int found = 0;
    cublasLtMatmulAlgoGetHeuristic(handle, desc, lx, ly, lc, lc, pref, 16, results, &found);
    std::printf("m=%ld n=%ld k=%ld bf16 tn lda=%ld%s beta=%g calls=%d: %d algorithms\n", m, n, k, lda,
                padded ? " (padded copy)" : " (caller's)", beta, calls, found);
    for (int r = 0; r < found; ++r) {
      const cublasLtMatmulAlgo_t& algo = results[r].algo;
      CHECK_CUDA(cudaMemcpy(c, hc0.data(), hc0.size() * 2, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemset(a_copy, 0xff, std::size_t(k * padded_ld) * 2));  // NaN in the pad
      cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
      for (int call = 0; call < calls && status == CUBLAS_STATUS_SUCCESS; ++call) {
        // beta != 0 accumulates: put C0 back before the call (in the stream), as a caller would.
        if (call > 0) CHECK_CUDA(cudaMemcpyAsync(c, hc0.data(), hc0.size() * 2, cudaMemcpyHostToDevice, stream));
        if (padded) {
          CHECK_CUDA(cudaMemcpy2DAsync(a_copy, std::size_t(padded_ld) * 2, a, std::size_t(m) * 2, std::size_t(m) * 2,
                                       std::size_t(k), cudaMemcpyDeviceToDevice, stream));
        }
        status = cublasLtMatmul(handle, desc, &alpha, b, lx, padded ? a_copy : a, ly, &beta, c, lc, c, lc, &algo,
                                workspace, results[r].workspaceSize, stream);
      }
      CHECK_CUDA(cudaStreamSynchronize(stream));
      std::printf("  rank %2d id=%d tile=%d stages=%d splitk=%d reduction=%d workspace=%zu:", r + 1,
                  algo_config(algo, CUBLASLT_ALGO_CONFIG_ID), algo_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                  algo_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID), algo_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                  algo_config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME), results[r].workspaceSize);
      if (status != CUBLAS_STATUS_SUCCESS) {
        std::printf(" %s\n", cublasLtGetStatusName(status));
        continue;
      }
      std::vector<__nv_bfloat16> hc(hc0.size());
      CHECK_CUDA(cudaMemcpy(hc.data(), c, hc.size() * 2, cudaMemcpyDeviceToHost));
      long wrong = 0, first = -1;
      for (std::size_t e = 0; e < hc.size(); ++e) {
        const double got = double(__bfloat162float(hc[e]));
        if (!(std::fabs(got - expected[e]) <= 0.02 * (1 + std::fabs(expected[e])))) {
          if (wrong++ == 0) first = long(e);
        }
      }
      if (wrong == 0) {
        std::printf(" ok\n");
      } else {
        ++failures;
        std::printf(" WRONG: %ld elements, first (%ld, %ld) %g expected %g\n", wrong, first / n, first % n,
                    double(__bfloat162float(hc[std::size_t(first)])), expected[std::size_t(first)]);
      }
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(lx);
    cublasLtMatrixLayoutDestroy(ly);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
  }
  std::printf("%d wrong\n", failures);
  return failures == 0 ? 0 : 1;
}
