// The pad-copy kernel (kernels/pad_copy.cuh) by chunk, in one process: each copy timed with the
// chunk its lines allowed before (the widest of 8, 4, 2, 1 bytes that divides the source's
// pitch, line and address) and with 16-byte chunks shifted into place; chunk_now is the one it
// gets now. CUDA events around batches of 20 copies, the median of 11 batches; the two take
// turns batch by batch. GB/s counts the bytes read and written.
//
//   pad_copy_chunks_probe        (shapes below: lines, line bytes, source pitch, source offset)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "backends/cuda/pad_copy_kernel.h"
#include "backends/cuda/cuda_module.h"
#include "gemmtune/device.h"

using namespace gemmtune;

namespace {

struct Case {
  const char* what;
  long long lines, line_bytes, pitch, offset;
};

}  // namespace

int main() {
  const DeviceInfo device = *find_device("cuda:0");
  auto function = cuda::pad_copy_function(device.cuda);
  if (!function.is_ok()) {
    std::fprintf(stderr, "%s\n", function.status().to_string().c_str());
    return 1;
  }
  const std::vector<Case> cases = {
      {"A of 4096^3 bf16 one element off (moved)", 4096, 8192, 8192, 2},
      {"A of 4096^3 bf16 16 bytes off (moved)", 4096, 8192, 8192, 16},
      {"A of 4096^3 s8 one byte off (moved)", 4096, 4096, 4096, 1},
      {"tn A, m=300 bf16, k=4096 (padded)", 4096, 600, 600, 0},
      {"tn A, m=100 bf16, k=14336 (padded)", 14336, 200, 200, 0},
      {"nn B, n=4097 bf16, k=4096 (padded)", 4096, 8194, 8194, 0},
      {"nn B, n=1001 f16, k=4096 (padded)", 4096, 2002, 2002, 0},
      {"nt A, k=4095 s8, m=4096 (padded)", 4096, 4095, 4095, 0},
  };
  std::printf("case,chunk_before,us_before,us_16,ratio,gb_s_16,chunk_now\n");
  for (const Case& c : cases) {
    const long long copy_pitch = (c.line_bytes + 15) / 16 * 16;
    char *source = nullptr, *copy = nullptr;
    cudaMalloc(&source, size_t(c.offset + c.lines * c.pitch));
    cudaMalloc(&copy, size_t(c.lines * copy_pitch));
    cudaMemset(source, 1, size_t(c.offset + c.lines * c.pitch));
    const char* src = source + c.offset;
    // The chunk the kernel took before 16-byte chunks: as a copy at the source's own pitch.
    const cuda::PaddedCopyShape narrow{c.lines, c.line_bytes, c.pitch, 1};
    int before = cuda::pad_copy_chunk_bytes(narrow, src, copy);
    // What the kernel takes now for this copy.
    const int now = cuda::pad_copy_chunk_bytes(cuda::PaddedCopyShape{c.lines, c.line_bytes, c.pitch, copy_pitch}, src, copy);
    long long src_pitch = c.pitch, dst_pitch = copy_pitch;
    unsigned line_bytes = unsigned(c.line_bytes), lines = unsigned(c.lines);
    auto launch = [&](int chunk) {
      void* params[] = {&src, &src_pitch, &copy, &dst_pitch, &line_bytes, &lines, &chunk};
      const long long chunks = c.lines * ((c.line_bytes + chunk - 1) / chunk);
      const unsigned blocks = unsigned(std::clamp<long long>((chunks + 255) / 256, 1, device.cuda.sm_count * 16LL));
      (void)cuda::enqueue_launch(*function, blocks, 1, 256, 0, nullptr, params, false, "pad copy");
    };
    std::vector<float> times[2];
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int round = 0; round < 12; ++round) {
      for (int which = 0; which < 2; ++which) {
        cudaEventRecord(start);
        for (int i = 0; i < 20; ++i) launch(which == 0 ? before : 16);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (round > 0) times[which].push_back(ms * 1000 / 20);  // the first round warms up
      }
    }
    for (auto& t : times) std::sort(t.begin(), t.end());
    const double us_before = times[0][times[0].size() / 2], us_16 = times[1][times[1].size() / 2];
    const double bytes = 2.0 * double(c.lines) * double(c.line_bytes);
    std::printf("%s,%d,%.2f,%.2f,%.2f,%.0f,%d\n", c.what, before, us_before, us_16, us_before / us_16, bytes / us_16 / 1e3,
                now);
    cudaFree(source);
    cudaFree(copy);
  }
  return 0;
}
