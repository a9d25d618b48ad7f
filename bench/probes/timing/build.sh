#!/usr/bin/env bash
# Builds the operand-placement probe for Hopper (needs nvcc here; the binary needs only the CUDA
# runtime and cuBLASLt on the GPU machine, found through the rpath).
# Run from the repository root: bench/probes/timing/build.sh [OUT_DIR]
set -euo pipefail
out=${1:-build/probes}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
"$cuda"/bin/nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/probes/timing/placement_probe.cu \
  -o "$out/placement_probe" -lcublasLt -Xlinker -rpath -Xlinker /usr/local/cuda/lib64
echo "built $out/placement_probe"
