#!/usr/bin/env bash
# Builds the Hopper-template probe (host code only; the kernels are compiled at run time by
# NVRTC). Run from the repository root: bench/probes/wgmma/build.sh [OUT_DIR]
set -euo pipefail
out=${1:-build/probes}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -std=c++20 -O2 -Wall -Wextra -Iinclude -I"$cuda/include" \
  bench/probes/wgmma/wgmma_probe.cc src/backends/cuda/wgmma_kernel_source.cc src/backends/cuda/wgmma_tensor_map.cc \
  src/backends/cuda/wgmma_config_space.cc src/core/{status,dtype,problem,config,config_space}.cc \
  -L"$cuda/lib64" -L"$cuda/lib64/stubs" -lcudart -lnvrtc -lcublasLt -lcuda -lpthread -o "$out/wgmma_probe"
echo "built $out/wgmma_probe"
