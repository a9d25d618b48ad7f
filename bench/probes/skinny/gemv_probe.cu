// Probe of the GEMV-style decode kernel (the library's src/backends/cuda/kernels/gemm_gemv.cuh, issue
// 30), its templates instantiated here outside the library.
//
// Built here (needs nvcc), run on the GPU machine from the repository root (needs only the CUDA
// 13 runtime and cuBLASLt under /usr/local/cuda/lib64, found through the binary's rpath):
//
//   bench/probes/skinny/build.sh                   # -> build/probes/gemv_probe
//   build/probes/gemv_probe                        # check, then bench; one to two minutes
//   build/probes/gemv_probe check | bench          # one half
//   GEMV_PROBE_ALL=1 build/probes/gemv_probe bench # every timed candidate, not each variant's best
//
// check: every variant and dtype against a float64 host reference, every element of C, on
// random inputs (never zeros): m ∈ {1, 2, 3, 5, 8, 16} (m < M for 3 and 5), odd n and k
// (4100 × 4104, 4099 × 4100 with k's last vector partial, 37 × 40), padding of A, B and C
// poisoned with NaN (or 127 for s8) so a read past k or a write past n shows; C poisoned when
// beta = 0; alpha/beta; splits that do not divide the steps (3, 7, more slices than steps);
// a 1- or 2-CTA grid so warps loop over groups; with and without programmatic dependent launch.
// Small-integer inputs make the f32 sums exact, so those checks compare bit for bit; real-valued
// inputs are checked within a bound.
//
// bench: bf16 in and out, m ∈ {1, 8, 16}, (n, k) ∈ {(4096, 4096), (14336, 4096), (4096, 14336)}:
// each variant × warps × split, with and without PDL, beside the read-only floor (read_once.cuh
// over B's bytes, plain and PDL) and cuBLASLt's first heuristic algorithm for the same problem.
// Back-to-back launches between CUDA events over operand sets rotated through more than 100 MB,
// each sample ≥ 1 ms, candidates interleaved sample by sample, the median of 15 samples. Every
// timed kernel's C (and cuBLASLt's) is checked against the reference first. The last table: m, n,
// k, variant, µs, TB/s (A + B + C bytes over the time), cuBLASLt's time over it, the floor's
// (same launch mode) over it.
//
// The parts: gemv_probe.cuh lists the files and what each holds.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gemv_probe.cuh"

using namespace gemv_probe;

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  if (what != "all" && what != "check" && what != "bench") {
    std::fprintf(stderr, "usage: gemv_probe [check|bench|all]\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  g_device.sms = prop.multiProcessorCount;
  g_device.shared_optin = prop.sharedMemPerBlockOptin;
  CUDA_OK(cudaStreamCreateWithFlags(&g_device.stream, cudaStreamNonBlocking));
  g_device.workspace = DeviceBuffer(64 << 20);
  g_device.counters = DeviceBuffer(4 << 20);
  CUDA_OK(cudaMemset(g_device.counters.ptr, 0, g_device.counters.bytes));
  int clock_khz = 0, mem_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  std::printf("%s: %d SMs, L2 %d MB, %zu KB shared memory a block at most, clocks %d / %d MHz; %zu kernels\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin >> 10,
              clock_khz / 1000, mem_khz / 1000, all_kernels().size());
  g_print_all = std::getenv("GEMV_PROBE_ALL") != nullptr;
  int rc = 0;
  if (what != "bench") rc |= run_checks();
  if (what != "check") rc |= run_bench();
  return rc;
}
