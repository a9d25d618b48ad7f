// The floor of a decode GEMM on this GPU: the time to read B (the weights) once, with nothing
// else to do (the kernel: read_once.cuh). Timed like gemmtune's harness: launches
// back to back on one stream between CUDA events, buffers rotated over more than twice the L2,
// median of 15 samples; without programmatic dependent launch (pdl 0), with it reading before
// the wait for the previous kernel (pdl 1, GEMMTUNE_PDL=weights) and with it waiting first
// (pdl 2, GEMMTUNE_PDL=on).
//
//   bench/probes/memory/build.sh && build/probes/read_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "read_once.cuh"

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      return 2;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  unsigned* sink;
  CHECK(cudaMalloc(&sink, 4));
  std::printf("%10s %6s %5s %9s %7s\n", "MB", "grid", "pdl", "us", "TB/s");
  for (long long bytes : {33554432LL, 117440512LL}) {  // B of 4096x4096 and 14336x4096 bf16
    const int sets = int(std::max<long long>(2, (2 * 52428800LL) / bytes + 1));
    std::vector<void*> buffers(sets);
    for (void*& b : buffers) {
      CHECK(cudaMalloc(&b, bytes));
      CHECK(cudaMemset(b, 1, bytes));
    }
    for (int grid_per_sm : {4, 8, 16}) {
      for (int pdl : {0, 1, 2}) {
        const int grid = grid_per_sm * sms;
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(grid);
        config.blockDim = dim3(256);
        config.stream = stream;
        config.attrs = pdl ? &attr : nullptr;
        config.numAttrs = pdl ? 1 : 0;
        const int launches = 200;
        std::vector<float> samples;
        for (int s = 0; s < 16; ++s) {
          CHECK(cudaEventRecord(start, stream));
          for (int l = 0; l < launches; ++l) {
            CHECK(cudaLaunchKernelEx(&config, read_once, (const uint4*)buffers[l % sets], bytes / 16, sink, pdl));
          }
          CHECK(cudaEventRecord(stop, stream));
          CHECK(cudaEventSynchronize(stop));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, start, stop));
          if (s > 0) samples.push_back(ms * 1000.0f / launches);  // the first sample warms up
        }
        std::sort(samples.begin(), samples.end());
        const float us = samples[samples.size() / 2];
        std::printf("%10.2f %6d %5d %9.2f %7.2f\n", bytes / 1e6, grid, pdl, us, bytes / (us * 1e6));
      }
    }
    for (void* b : buffers) CHECK(cudaFree(b));
  }
  return 0;
}
