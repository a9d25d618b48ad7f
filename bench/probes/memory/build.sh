#!/usr/bin/env bash
# Builds the read-floor probe for Hopper (runs on the GPU machine; needs nvcc here).
# Run from the repository root: bench/probes/memory/build.sh [OUT_DIR]
set -euo pipefail
out=${1:-build/probes}
mkdir -p "$out"
"${CUDA_HOME:-/usr/local/cuda}"/bin/nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
  bench/probes/memory/read_floor.cu -o "$out/read_floor"
echo "built $out/read_floor"
