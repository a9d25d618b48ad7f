// Probe of the Hopper template (src/backends/cuda/kernels/gemm_wgmma.cuh) outside the library:
// compiles instances with NVRTC through the backend's own source and tensor-map code, checks
// them element by element against a plain reference kernel, and times them against cuBLASLt's
// first heuristic pick in the same run. Built by bench/probes/wgmma/build.sh (host code only).
//
//   wgmma_probe compile [CONFIG...]      compile only (no GPU needed): registers, spills, time
//                                        WGMMA_PROBE_WORKERS=1: one compile at a time; WGMMA_PROBE_DTYPE=bf16: one
//                                        input type; WGMMA_PROBE_ARCH=compute_90a: NVRTC to PTX only (the front
//                                        end's share of the time); WGMMA_PROBE_EXTRA=OPTION: one more NVRTC
//                                        option; WGMMA_PROBE_DUMP=DIR: each cubin to DIR/N.cubin
//   every mode: WGMMA_TEMPLATE=FILE another template; WGMMA_PROBE_LEAVE_OUT=fixup (or fence): split-k
//                                        through the workspace without its fix-up (or its fence), to
//                                        time the rest (wrong results; kernels.cc, left_out)
//   wgmma_probe check                    the correctness matrix (dtypes, layouts, odd sizes, alpha/beta)
//   wgmma_probe bench DTYPE SHAPES [CONFIG...]   time on "MxNxK,..." (nt layout), CONFIG as below
//   wgmma_probe streamk [CONFIG...]      stream-K against the plain grid: checks the .sk variant
//                                        of each CONFIG (default: the main tiles) on odd shapes
//                                        and on the mid shapes below, launched twice (the tile
//                                        counters must be back at zero), then times each CONFIG
//                                        and its .sk variant beside cuBLASLt on the mid bf16 nt
//                                        shapes (300/1000/2048×14336×4096, 256×4096×4096,
//                                        512×6144×4096, 3000×4096×4096, 4096³), a table last
//
// CONFIG: bm.bn.stages.consumers.cluster_m.cluster_n[.swap][.pp], e.g. 128.256.4.2.2.1
//   swap: C' = Cᵀ (A and B exchanged); pp: ping-pong consumers; direct: no TMA-store epilogue;
//   d0: release each stage once its wgmmas finish; gN: group_m = N; kN: split k in N slices;
//   sk: stream-K (the last wave's k-blocks shared out among all clusters); cl (with kN): the N slices
//   of a tile are one cluster, summed in distributed shared memory
//
// The grid is as the backend (wgmma_backend.cc) sizes it: the clusters that run at once
// (cuOccupancyMaxActiveClusters), all of them under stream-K, else no more than the units.
//
// The parts: wgmma_probe.h lists the files and what each holds.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "wgmma_probe.h"

using namespace wgmma_probe;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wgmma_probe compile|check|bench|streamk ...\n");
    return 2;
  }
  g_template = template_text(template_path());
  const std::string mode = argv[1];
  if (mode == "compile") {
    std::vector<WgmmaInstance> all;
    for (int i = 2; i < argc; ++i) {
      Config c = parse_config(argv[i]);
      for (int in = 0; in < 4; ++in) {
        // WGMMA_PROBE_DTYPE=bf16 (f16, f32, s8) compiles that input type only.
        const char* only = std::getenv("WGMMA_PROBE_DTYPE");
        static const char* kNames[] = {"f16", "bf16", "f32", "s8"};
        if (only && std::string(only) != kNames[in]) continue;
        const Type type = in == 0 ? Type::f16 : in == 1 ? Type::bf16 : in == 2 ? Type::f32 : Type::s8;
        Shape p{4096, 4096, 4096, type, type == Type::s8 ? Type::s32 : type};
        int dummy;
        all.push_back(map_problem(p, c, &dummy, &dummy).instance);
      }
    }
    compile_all(all, false);
    return 0;
  }
  CHECK_CU(cuInit(0));
  CHECK_CUDA(cudaFree(nullptr));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("device: %s, %d SMs\n", prop.name, g_sms);
  if (mode == "check") {
    load_reference();
    return run_check();
  }
  if (mode == "streamk") {
    load_reference();
    std::vector<Config> configs;
    for (int i = 2; i < argc; ++i) configs.push_back(parse_config(argv[i]));
    return run_stream_k(configs);
  }
  if (mode == "bench" && argc >= 4) {
    const std::string t = argv[2];
    const Type in = t == "bf16" ? Type::bf16 : t == "f16" ? Type::f16 : t == "s8" ? Type::s8 : Type::f32;
    std::vector<Config> configs;
    for (int i = 4; i < argc; ++i) configs.push_back(parse_config(argv[i]));
    return run_bench(in, argv[3], configs);
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
