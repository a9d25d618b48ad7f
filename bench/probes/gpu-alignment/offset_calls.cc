// GPU time of Session::gemm when A lies where views into a larger buffer put it: on cudaMalloc's
// 256-byte grid, 16 bytes past it (still TMA's grid) and one bf16 element past it (off TMA's:
// the picked wgmma kernel refuses the call and the session runs it with cuBLASLt's algorithm for
// that alignment). bf16, layout nt (C = A·Wᵀ), the pick tuned on aligned operands. Batches of 40
// calls between two CUDA events, the median of 15 batches; offsets take turns batch by batch.
// torch_offsets.py gives PyTorch's figures for the same views.
//
//   offset_calls_probe [M N K ...]     (default 16 4096 4096, 300 4096 4096, 4096 4096 4096)
//   OFFSET_PROBE_BACKENDS=cublaslt     the backends the pick is tuned among (comma-separated;
//                                      default: every backend of the device)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gemmtune/session.h"

namespace {

using namespace gemmtune;
constexpr int kBatch = 40;
constexpr int kBatches = 15;
constexpr std::size_t kOffsets[] = {0, 16, 2};

int fail(const Status& status) {
  std::fprintf(stderr, "offset_calls_probe: %s\n", status.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> dims = {16, 4096, 4096, 300, 4096, 4096, 4096, 4096, 4096};
  if (argc > 3) {
    dims.clear();
    for (int i = 1; i + 2 < argc; i += 3) {
      for (int j = 0; j < 3; ++j) dims.push_back(std::atoll(argv[i + j]));
    }
  }
  SessionOptions options;
  options.device = "cuda:0";
  if (const char* backends = std::getenv("OFFSET_PROBE_BACKENDS")) {
    std::string list = backends;
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      if (comma > at) options.tuning.backends.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  auto session = Session::create(options);
  if (!session.is_ok()) return fail(session.status());
  std::printf("m,n,k,a_offset_bytes,us,pick\n");
  for (std::size_t s = 0; s + 2 < dims.size(); s += 3) {
    auto problem = Problem::create(dims[s], dims[s + 1], dims[s + 2], DType::bf16, "nt");
    if (!problem.is_ok()) return fail(problem.status());
    const Problem& p = *problem;
    char *a = nullptr, *b = nullptr, *c = nullptr;
    cudaMalloc(&a, std::size_t(p.a_elements()) * 2 + 256);
    cudaMalloc(&b, std::size_t(p.b_elements()) * 2);
    cudaMalloc(&c, std::size_t(p.c_elements()) * 2);
    cudaMemset(a, 0, std::size_t(p.a_elements()) * 2 + 256);
    cudaMemset(b, 0, std::size_t(p.b_elements()) * 2);
    if (Status tuned = session->get()->gemm(p, a, b, c); !tuned.is_ok()) return fail(tuned);
    std::vector<std::vector<double>> times(std::size(kOffsets));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int round = -2; round < kBatches; ++round) {  // two rounds of warm-up
      for (std::size_t o = 0; o < std::size(kOffsets); ++o) {
        cudaEventRecord(start);
        for (int i = 0; i < kBatch; ++i) {
          if (Status ran = session->get()->gemm(p, a + kOffsets[o], b, c); !ran.is_ok()) return fail(ran);
        }
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (round >= 0) times[o].push_back(ms * 1000 / kBatch);
      }
    }
    auto pick = session->get()->pick(p);
    for (std::size_t o = 0; o < std::size(kOffsets); ++o) {
      std::sort(times[o].begin(), times[o].end());
      std::printf("%lld,%lld,%lld,%zu,%.2f,%s %s\n", (long long)p.m(), (long long)p.n(), (long long)p.k(), kOffsets[o],
                  times[o][times[o].size() / 2], pick.is_ok() ? pick->backend.c_str() : "?",
                  pick.is_ok() ? pick->config.to_string().c_str() : "");
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  return 0;
}
