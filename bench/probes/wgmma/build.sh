#!/usr/bin/env bash
# Builds the Hopper-template probe (host code only; the kernels are compiled at run time by
# NVRTC). Run from the repository root: bench/probes/wgmma/build.sh [OUT_DIR]
#
# Stream-K against the plain grid, on the GPU machine, from the repository root (the probe reads
# src/backends/cuda/kernels/ at run time): one command checks the stream-K variants (twice-launched,
# odd shapes, alpha/beta, s8) and times them beside the plain tiles and cuBLASLt on the mid shapes,
# a table last:
#   build/probes/wgmma_probe streamk                      # the main tiles of the default list
#   build/probes/wgmma_probe streamk 128.256.4.2.1.1 ...  # or these tiles (and their .sk variants)
set -euo pipefail
out=${1:-build/probes}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -std=c++20 -O2 -Wall -Wextra -Iinclude -I"$cuda/include" \
  bench/probes/wgmma/{wgmma_probe,kernels,problems,check,bench,stream_k}.cc src/backends/cuda/wgmma_kernel_source.cc src/backends/cuda/wgmma_tensor_map.cc src/backends/cuda/padded_operand.cc \
  src/backends/cuda/wgmma_config_space.cc src/backends/cuda/wgmma_config_checks.cc src/core/{status,dtype,problem,config,config_space}.cc \
  -L"$cuda/lib64" -L"$cuda/lib64/stubs" -lcudart -lnvrtc -lcublasLt -lcuda -lpthread -o "$out/wgmma_probe"
echo "built $out/wgmma_probe"
