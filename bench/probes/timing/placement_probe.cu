// Does where the operands sit in device memory change cuBLASLt's time? The same first-pick
// kernel (s8 16×4096×4096) read 11.8-18.9 µs in four processes, 1.00 against itself within each
// (bench/results/2026-11-26-h100-check.md). This probe times that kernel in one process on
// several groups of operand sets, each group allocated after a spacer buffer of a different size,
// so that the groups land on different physical pages. If the groups differ as the processes did,
// placement is the cause, and a bench must average the peer over placements.
//
// It also times the kernel right after a kernel that takes 200 KB of shared memory, as
// gemmtune's Hopper kernels do: the SMs' split between L1 and shared memory is set at launch,
// and a kernel that states no preference may keep the split the previous kernel left.
//
//   placement_probe [m] [s8|bf16] [groups]     (n = k = 4096, C = A·Wᵀ as torch's F.linear)
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

void lt_ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLASLt status %d\n", what, int(s));
    std::exit(2);
  }
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}

struct Set {
  void *a, *b, *c;
};

// Takes the dynamic shared memory it is launched with and touches it when `touch`.
__global__ void hold_shared_memory(int touch) {
  extern __shared__ char shared[];
  if (touch && threadIdx.x == 0) shared[0] = 1;
}

}  // namespace

int main(int argc, char** argv) {
  const long long m = argc > 1 ? std::atoll(argv[1]) : 16, n = 4096, k = 4096;
  const bool s8 = argc > 2 ? std::strcmp(argv[2], "s8") == 0 : true;
  const int groups = argc > 3 ? std::atoi(argv[3]) : 8;
  const cudaDataType_t in = s8 ? CUDA_R_8I : CUDA_R_16BF, out = s8 ? CUDA_R_32I : CUDA_R_16BF;
  const std::size_t in_size = s8 ? 1 : 2, out_size = s8 ? 4 : 2;

  cublasLtHandle_t handle;
  lt_ok(cublasLtCreate(&handle), "create");
  cublasLtMatmulDesc_t desc;
  lt_ok(cublasLtMatmulDescCreate(&desc, s8 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F, s8 ? CUDA_R_32I : CUDA_R_32F),
        "desc");
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
  lt_ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "transa");
  lt_ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep), "transb");
  cublasLtMatrixLayout_t weights, activations, result;
  lt_ok(cublasLtMatrixLayoutCreate(&weights, in, k, n, k), "layout");
  lt_ok(cublasLtMatrixLayoutCreate(&activations, in, k, m, k), "layout");
  lt_ok(cublasLtMatrixLayoutCreate(&result, out, n, m, n), "layout");
  const std::size_t workspace_bytes = 32 << 20;
  void* workspace = device_alloc(workspace_bytes);
  cublasLtMatmulPreference_t pref;
  lt_ok(cublasLtMatmulPreferenceCreate(&pref), "pref");
  lt_ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof workspace_bytes),
        "pref");
  cublasLtMatmulHeuristicResult_t first{};
  int found = 0;
  lt_ok(cublasLtMatmulAlgoGetHeuristic(handle, desc, weights, activations, result, result, pref, 1, &first, &found),
        "heuristic");
  if (found == 0) return 2;

  cudaStream_t stream;
  cuda_ok(cudaStreamCreate(&stream), "stream");
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "event");
  cuda_ok(cudaEventCreate(&stop), "event");
  const int one_i = 1, zero_i = 0;
  const float one_f = 1, zero_f = 0;
  const void* alpha = s8 ? static_cast<const void*>(&one_i) : &one_f;
  const void* beta = s8 ? static_cast<const void*>(&zero_i) : &zero_f;
  auto run = [&](const Set& s) {
    lt_ok(cublasLtMatmul(handle, desc, alpha, s.b, weights, s.a, activations, beta, s.c, result, s.c, result,
                         &first.algo, workspace, workspace_bytes, stream),
          "matmul");
  };
  // Sets of one group, rotated so their total passes twice the L2 (50 MB), as gemmtune's harness.
  const std::size_t a_bytes = m * k * in_size, b_bytes = n * k * in_size, c_bytes = m * n * out_size;
  const int sets = int(std::max<std::size_t>(1, (100u << 20) / (a_bytes + b_bytes + c_bytes) + 1));
  std::vector<std::uint8_t> host(b_bytes);
  std::mt19937 rng(7);
  for (auto& byte : host) byte = std::uint8_t(rng() % 7);  // small values: valid bf16 and s8 alike
  auto time_group = [&](const std::vector<Set>& group, int launches) {
    cuda_ok(cudaEventRecord(start, stream), "record");
    for (int l = 0; l < launches; ++l) run(group[std::size_t(l) % group.size()]);
    cuda_ok(cudaEventRecord(stop, stream), "record");
    cuda_ok(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    return double(ms) * 1000.0 / launches;
  };
  std::vector<std::vector<Set>> all;
  std::vector<void*> spacers;
  std::uniform_int_distribution<int> spacer_mb(1, 97);
  for (int g = 0; g < groups; ++g) {
    spacers.push_back(device_alloc(std::size_t(spacer_mb(rng)) << 20));
    std::vector<Set> group;
    for (int s = 0; s < sets; ++s) {
      Set set{device_alloc(a_bytes), device_alloc(b_bytes), device_alloc(c_bytes)};
      cuda_ok(cudaMemcpy(set.a, host.data(), std::min(a_bytes, b_bytes), cudaMemcpyHostToDevice), "copy");
      cuda_ok(cudaMemcpy(set.b, host.data(), b_bytes, cudaMemcpyHostToDevice), "copy");
      group.push_back(set);
    }
    all.push_back(group);
  }
  time_group(all[0], 2000);  // spin the clocks up
  // Groups interleaved, 9 rounds; each sample ~2 ms. Median per group.
  std::vector<std::vector<double>> samples(static_cast<std::size_t>(groups));
  for (int round = 0; round < 9; ++round) {
    for (int g = 0; g < groups; ++g) {
      const int gi = (g + round) % groups;
      samples[std::size_t(gi)].push_back(time_group(all[std::size_t(gi)], 200));
    }
  }
  // Group 0 again, each sample right after a kernel holding 200 KB of shared memory a CTA, and
  // right after one that states a preference for the largest L1.
  const int big = 200 * 1024;
  cuda_ok(cudaFuncSetAttribute(hold_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, big), "attribute");
  std::vector<double> after_shared, after_l1;
  for (int round = 0; round < 9; ++round) {
    hold_shared_memory<<<132, 32, big, stream>>>(1);
    after_shared.push_back(time_group(all[0], 200));
    cuda_ok(cudaFuncSetAttribute(hold_shared_memory, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 int(cudaSharedmemCarveoutMaxL1)),
            "carveout");
    hold_shared_memory<<<132, 32, 0, stream>>>(0);
    after_l1.push_back(time_group(all[0], 200));
    cuda_ok(cudaFuncSetAttribute(hold_shared_memory, cudaFuncAttributePreferredSharedMemoryCarveout, -1), "carveout");
  }
  std::sort(after_shared.begin(), after_shared.end());
  std::sort(after_l1.begin(), after_l1.end());
  std::printf("group 0 after a 200 KB shared-memory kernel: %.2f; after a max-L1 kernel: %.2f\n",
              after_shared[after_shared.size() / 2], after_l1[after_l1.size() / 2]);
  std::printf("%s %lldx%lldx%lld, %d sets a group, cuBLASLt first pick; µs per call, median of 9 interleaved samples\n",
              s8 ? "s8" : "bf16", m, n, k, sets);
  for (int g = 0; g < groups; ++g) {
    auto& v = samples[std::size_t(g)];
    std::sort(v.begin(), v.end());
    std::printf("group %d: %.2f (min %.2f, max %.2f)  b at %p\n", g, v[v.size() / 2], v.front(), v.back(),
                all[std::size_t(g)][0].b);
  }
  return 0;
}
