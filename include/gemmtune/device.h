// What gemmtune knows of the machine it runs on. The fingerprint enters every cache key, so a
// tuning result is only reused on hardware it was measured on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune {

enum class DeviceKind : std::uint8_t { cpu, cuda };

struct CpuInfo {
  std::string model;  // "AMD EPYC 9R14", from /proc/cpuinfo
  // cpuid's display family and model (6 and 207 for Emerald Rapids, 25 and 1 for Zen 3 Milan);
  // 0 where cpuid has none. A hypervisor often reports one model name ("Intel(R) Xeon(R)
  // Processor") for several generations with the same features, cores and L2; these tell them
  // apart.
  int family = 0;
  int model_number = 0;
  // Instruction-set features gemmtune's kernels use.
  bool sse42 = false, avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false;
  bool avx512_bf16 = false, avx512_vnni = false, avx512_fp16 = false;
  int logical_cores = 1;
  int physical_cores = 1;
  std::int64_t l1d_bytes = 32 << 10;  // per core
  std::int64_t l2_bytes = 1 << 20;    // per core
  std::int64_t l3_bytes = 8 << 20;    // per socket (shared)
  // GEMMTUNE_CPU_ISA (generic|avx2|avx512|avx512_vnni) capped what the kernels may use; ""
  // when unset.
  std::string isa_cap;

  // The best ISA level the kernels may use: 0 generic, 1 AVX2 (+FMA), 2 AVX-512 (F+BW+VL),
  // 3 AVX-512 with VNNI (int8 dot products), 4 AVX-512 with VNNI and BF16 (bf16 dot products).
  int best_isa() const;
  // Clears the features above ISA level `isa`, so that best_isa() is at most `isa`: what
  // GEMMTUNE_CPU_ISA does, and what a build that compiled fewer kernel levels does to the
  // cpu backend's view of the machine.
  void cap_isa(int isa);
  std::vector<std::string> feature_names() const;
};

// A CUDA device as the CUDA backends see it; plain fields, so core needs no CUDA headers.
struct CudaInfo {
  int index = 0;
  std::string name;                       // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;         // compute capability
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_memory_bytes = 0;
  std::int64_t shared_memory_per_block_optin = 0;  // the most a block may ask for
  std::int64_t shared_memory_per_sm = 0;
  int registers_per_block = 0;
  int registers_per_sm = 0;
  int max_threads_per_block = 0;
  int driver_version = 0;   // 13000 for 13.0
  int runtime_version = 0;
  int nvrtc_major = 0, nvrtc_minor = 0;
  // "sm_90a" on Hopper (the arch-specific target wgmma needs), else "sm_XY".
  std::string arch() const;
};

struct DeviceInfo {
  DeviceKind kind = DeviceKind::cpu;
  std::string name;  // "cpu" or "cuda:0"
  CpuInfo cpu;       // for kind == cpu: the host; for cuda: the host that drives it
  CudaInfo cuda;     // for kind == cuda

  // Stable across runs on the same machine, different across machine types: for a CPU its
  // model name, cpuid family and model, features, core count and L2.
  std::string fingerprint() const;
  // Coarser than the fingerprint: what decides which configs run and how they rank, shared by
  // machines of one type. "cpu/avx512/2t" (widest usable ISA, logical cores) or
  // "cuda/sm_90a/132sm" (target architecture, SMs). Lookup tables may name it instead of a
  // fingerprint.
  std::string device_class() const;
};

// The host CPU, detected once (cpuid, /proc/cpuinfo, /sys caches).
const CpuInfo& host_cpu();

// "cpu" → the host; "cuda" or "cuda:N" → that GPU, if this build has the CUDA backends and
// the machine has the device (else an `unavailable` error saying which is missing).
Result<DeviceInfo> find_device(const std::string& name);

// Defined by the platform registry: the CUDA device `index`, or why there is none.
Result<DeviceInfo> detect_cuda_device(int index);

}  // namespace gemmtune
