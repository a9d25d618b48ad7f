// What cuBLASLt does with operands less aligned than its heuristics assumed (256 bytes unless
// told): each of the heuristic's algorithms for one bf16 problem, picked with the default
// preferences, is run with A, B and C on the 256-byte grid and then shifted by a few bytes; C is
// compared with the grid run of the first algorithm. Prints each algorithm's required alignments
// (its capabilities), cublasLtMatmul's status and the largest difference. No gemmtune code: this
// is cuBLASLt's own behaviour, which the cublaslt family's run-time check relies on.
//
//   cublaslt_alignment [m n k]      (default 300 1024 512, layout nt: C = A·Bᵀ, all row-major)
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
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

std::uint32_t cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t which) {
  std::uint32_t value = 0;
  std::size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, which, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS) return 0;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const long m = argc > 3 ? std::atol(argv[1]) : 300, n = argc > 3 ? std::atol(argv[2]) : 1024,
             k = argc > 3 ? std::atol(argv[3]) : 512;
  // cuBLASLt is column-major: row-major C (m×n) is its n×m Cᵀ = B·Aᵀ, so its A is our B (k×n
  // column-major, read transposed) and its B our A (k×m column-major, read as it is).
  cublasLtHandle_t handle;
  cublasLtCreate(&handle);
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  std::size_t workspace_bytes = 32u << 20;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                       sizeof workspace_bytes);
  cublasLtMatmulHeuristicResult_t results[16];
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 16, results, &found);
  std::printf("m=%ld n=%ld k=%ld bf16 nt: %d algorithms\n", m, n, k, found);

  const std::size_t a_elems = std::size_t(m * k), b_elems = std::size_t(n * k), c_elems = std::size_t(m * n);
  std::vector<__nv_bfloat16> ha(a_elems), hb(b_elems);
  srand(1);
  for (auto& x : ha) x = __float2bfloat16(float(rand() % 17 - 8) / 8);
  for (auto& x : hb) x = __float2bfloat16(float(rand() % 17 - 8) / 8);
  char *a, *b, *c, *workspace;
  CHECK_CUDA(cudaMalloc(&a, a_elems * 2 + 512));
  CHECK_CUDA(cudaMalloc(&b, b_elems * 2 + 512));
  CHECK_CUDA(cudaMalloc(&c, c_elems * 2 + 512));
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  std::vector<float> expected;
  const float alpha = 1, beta = 0;
  const int shifts[] = {0, 16, 32, 64, 128, 2};
  for (int i = 0; i < found; ++i) {
    const cublasLtMatmulAlgo_t& algo = results[i].algo;
    std::printf("rank %2d needs A %3u B %3u C %3u D %3u bytes:", i + 1, cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES),
                cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES), cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES),
                cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES));
    for (int shift : shifts) {
      char *pa = a + shift, *pb = b + shift, *pc = c + shift;
      CHECK_CUDA(cudaMemcpy(pa, ha.data(), a_elems * 2, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(pb, hb.data(), b_elems * 2, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemset(c, 0, c_elems * 2 + 512));
      const cublasStatus_t status = cublasLtMatmul(handle, desc, &alpha, pb, la, pa, lb, &beta, pc, lc, pc, lc, &algo,
                                                   workspace, results[i].workspaceSize, nullptr);
      const cudaError_t synced = cudaDeviceSynchronize();
      if (status != CUBLAS_STATUS_SUCCESS || synced != cudaSuccess) {
        std::printf("  +%d: %s%s", shift, cublasLtGetStatusName(status), synced != cudaSuccess ? " (device error)" : "");
        if (synced != cudaSuccess) return 2;
        continue;
      }
      std::vector<__nv_bfloat16> hc(c_elems);
      CHECK_CUDA(cudaMemcpy(hc.data(), pc, c_elems * 2, cudaMemcpyDeviceToHost));
      if (expected.empty()) {
        for (auto x : hc) expected.push_back(__bfloat162float(x));
      }
      double worst = 0;
      long wrong = 0;
      for (std::size_t e = 0; e < c_elems; ++e) {
        const double d = std::fabs(double(__bfloat162float(hc[e])) - expected[e]);
        worst = std::max(worst, d);
        wrong += d > 0.05 * (1 + std::fabs(expected[e]));
      }
      std::printf("  +%d: %s", shift, wrong == 0 ? "ok" : "WRONG");
      if (wrong) std::printf(" (%ld elements, max diff %.3g)", wrong, worst);
    }
    std::printf("\n");
  }
  return 0;
}
