// Runs given configs of one of gemmtune's GPU families on one shape, for profiling and for
// timing a config the tuner would not offer. The kernels come from the library exactly as the
// tuner prepares them (NVRTC, the cubin cache, the launch settings of GEMMTUNE_PDL).
//
// Built with the bench targets (`config_runner`; scripts/gpu-check --build-only puts it in
// build-gpu/bin). On the GPU machine, from the repository root:
//   LD_LIBRARY_PATH=build-gpu/deps build-gpu/bin/config_runner skinny 32 4096 4096 bf16 nt
//     "bm=32 bn=16 bk=64 stages=2 warps=8 kw=8" "bm=32 bn=32 bk=64 stages=2 warps=16 kw=8 a=group"
//   PROBE_LAUNCHES=1 compute-sanitizer --tool racecheck build-gpu/bin/config_runner skinny ...
//
//   config_runner FAMILY M N K DTYPE LAYOUT "CONFIG" ["CONFIG" ...]
//     FAMILY   skinny | wgmma | cublaslt | cutlass (with GEMMTUNE_CUTLASS_DIR): the family of
//              every CONFIG without a prefix
//     CONFIG   as the tuner prints it: "bm=32 bn=16 bk=64 stages=2 warps=8 kw=8 splitk=1", or
//              prefixed with another family, so that families are timed in the same rounds:
//              "cublaslt:rank=1" (cuBLASLt's first heuristic pick, the peer of the bench)
//
// Each config is timed in interleaved rounds (CUDA events around 200 back-to-back calls, the
// operands rotated over copies that together exceed the L2 twice); the median round is printed
// as µs, TB/s of A + B + C and TFLOP/s, with the host's time to enqueue one call (where it
// nears the kernel's time, the launches, not the kernel, set the pace). With PROBE_LAUNCHES=N
// each config only runs N times, untimed: under `ncu --launch-skip` one launch of each config
// is profiled. PROBE_ROUNDS=N times N rounds instead of 15.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/cuda_backends.h"
#include "core/backend.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"

using namespace gemmtune;

namespace {

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));            \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// Random small values of the dtype's width: bf16/f16 bit patterns of moderate magnitude, or s8.
void fill_random(std::vector<unsigned char>& bytes, DType type, unsigned seed) {
  std::mt19937 rng(seed);
  if (dtype_size(type) == 1) {
    for (auto& b : bytes) b = (unsigned char)(rng() % 15) - 7;
    return;
  }
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) {
    // exponent near 1.0, random mantissa and sign: valid in both bf16 and f16
    const unsigned short v = (unsigned short)(0x3c00 | (rng() & 0x03ff) | ((rng() & 1) << 15));
    bytes[i] = (unsigned char)(v & 0xff);
    bytes[i + 1] = (unsigned char)(v >> 8);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: config_runner skinny|wgmma|cutlass M N K DTYPE LAYOUT CONFIG [CONFIG...]\n");
    return 2;
  }
  const std::string family = argv[1];
  const auto dtype = parse_dtype(argv[5]);
  if (!dtype.is_ok()) {
    std::fprintf(stderr, "%s\n", dtype.status().message().c_str());
    return 2;
  }
  const auto problem = Problem::create(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), *dtype, argv[6]);
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  const auto device = find_device("cuda:0");
  if (!device.is_ok()) {
    std::fprintf(stderr, "%s\n", device.status().message().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(cuda::make_skinny_backend(device->cuda));
  backends.push_back(cuda::make_wgmma_backend(device->cuda));
  backends.push_back(cuda::make_cublaslt_backend(device->cuda));
  // CUTLASS only where it is located (GEMMTUNE_CUTLASS_DIR); otherwise asking for it says why.
  auto cutlass = cuda::make_cutlass_backend(device->cuda);
  if (cutlass.is_ok()) backends.push_back(std::move(*cutlass));
  auto backend_named = [&](const std::string& name) -> Backend* {
    for (auto& backend : backends)
      if (backend->name() == name) return backend.get();
    if (name == "cutlass" && !cutlass.is_ok()) {
      std::fprintf(stderr, "no cutlass family: %s\n", cutlass.status().message().c_str());
    } else {
      std::fprintf(stderr, "unknown family %s (skinny | wgmma | cublaslt | cutlass)\n", name.c_str());
    }
    std::exit(2);
  };
  backend_named(family);

  const Problem& p = *problem;
  const std::size_t a_bytes = std::size_t(p.a_elements()) * dtype_size(p.a_type());
  const std::size_t b_bytes = std::size_t(p.b_elements()) * dtype_size(p.b_type());
  const std::size_t c_bytes = std::size_t(p.c_elements()) * dtype_size(p.c_type());
  const std::size_t set_bytes = a_bytes + b_bytes + c_bytes;
  const int sets = int(std::max<std::size_t>(2, (100u << 20) / set_bytes + 1));  // > 2× the 50 MB L2
  std::vector<void*> a(sets), b(sets), c(sets);
  std::vector<unsigned char> host(std::max(a_bytes, b_bytes));
  for (int s = 0; s < sets; ++s) {
    CHECK_CUDA(cudaMalloc(&a[s], a_bytes));
    CHECK_CUDA(cudaMalloc(&b[s], b_bytes));
    CHECK_CUDA(cudaMalloc(&c[s], c_bytes));
    host.resize(a_bytes);
    fill_random(host, p.a_type(), 2 * s + 1);
    CHECK_CUDA(cudaMemcpy(a[s], host.data(), a_bytes, cudaMemcpyHostToDevice));
    host.resize(b_bytes);
    fill_random(host, p.b_type(), 2 * s + 2);
    CHECK_CUDA(cudaMemcpy(b[s], host.data(), b_bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(c[s], 0, c_bytes));
  }
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::vector<std::string> names;
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (int i = 7; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t colon = arg.find(':');
    Backend* backend = backend_named(colon == std::string::npos ? family : arg.substr(0, colon));
    const auto config = KernelConfig::parse(colon == std::string::npos ? arg : arg.substr(colon + 1));
    if (!config.is_ok()) {
      std::fprintf(stderr, "config %s: %s\n", argv[i], config.status().message().c_str());
      return 2;
    }
    auto kernel = backend->prepare(p, *config);
    if (!kernel.is_ok()) {
      std::fprintf(stderr, "config %s: %s\n", argv[i], kernel.status().message().c_str());
      continue;
    }
    names.push_back(std::string(backend->name()) + ":" + config->to_string());
    kernels.push_back(std::move(*kernel));
  }
  auto launch = [&](Kernel& kernel, int call) {
    const int s = call % sets;
    const Status status = kernel.run(GemmArgs{a[s], b[s], c[s], stream});
    if (!status.is_ok()) {
      std::fprintf(stderr, "run: %s\n", status.message().c_str());
      std::exit(1);
    }
  };

  if (const char* launches = std::getenv("PROBE_LAUNCHES")) {
    for (auto& kernel : kernels)
      for (int call = 0; call < std::atoi(launches); ++call) launch(*kernel, call);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::printf("ran %zu configs, %s launches each\n", kernels.size(), launches);
    return 0;
  }

  // PROBE_ROUNDS lengthens a run, so that a clock and power trace (power.sh) sees the kernel
  // at a steady state.
  const int kCalls = 200;
  const int kRounds = std::getenv("PROBE_ROUNDS") ? std::max(1, std::atoi(std::getenv("PROBE_ROUNDS"))) : 15;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<std::vector<double>> us(kernels.size()), host_us(kernels.size());
  for (int round = -1; round < kRounds; ++round) {  // round -1 warms up
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      CHECK_CUDA(cudaEventRecord(start, stream));
      const auto enqueue_start = std::chrono::steady_clock::now();
      for (int call = 0; call < kCalls; ++call) launch(*kernels[i], call);
      const std::chrono::duration<double, std::micro> enqueued = std::chrono::steady_clock::now() - enqueue_start;
      if (round >= 0) host_us[i].push_back(enqueued.count() / kCalls);
      CHECK_CUDA(cudaEventRecord(stop, stream));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (round >= 0) us[i].push_back(1000.0 * ms / kCalls);
    }
  }
  std::printf("%s %lldx%lldx%lld %s %s, %d operand sets, median of %d rounds of %d calls\n", family.c_str(),
              (long long)p.m(), (long long)p.n(), (long long)p.k(), argv[5], argv[6], sets, kRounds, kCalls);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    std::sort(us[i].begin(), us[i].end());
    std::sort(host_us[i].begin(), host_us[i].end());
    const double t = us[i][us[i].size() / 2];
    std::printf("%9.2f us %6.2f TB/s %7.1f TFLOP/s %7.2f us host  %s\n", t, set_bytes / t / 1e6,
                2.0 * p.m() * p.n() * p.k() / t / 1e6, host_us[i][host_us[i].size() / 2], names[i].c_str());
  }
  return 0;
}
