#!/usr/bin/env bash
# Builds the GEMV decode-kernel probe for Hopper (needs nvcc here; the binary needs only the CUDA
# runtime and cuBLASLt on the GPU machine, found through the rpath). ptxas's registers and
# spills of every kernel go to OUT_DIR/gemv_probe.resources.txt.
# Run from the repository root: bench/probes/skinny/build.sh [OUT_DIR]
set -euo pipefail
out=${1:-build/probes}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
"$cuda"/bin/nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v \
  bench/probes/skinny/{gemv_probe,operands,kernels,check,bench}.cu -o "$out/gemv_probe" \
  -lcublasLt -Xlinker -rpath -Xlinker /usr/local/cuda/lib64 2> "$out/gemv_probe.resources.txt" || {
  grep -v "^ptxas info" "$out/gemv_probe.resources.txt" >&2
  exit 1
}
spills=$(grep -c "[1-9][0-9]* bytes spill" "$out/gemv_probe.resources.txt" || true)
echo "built $out/gemv_probe ($(grep -c 'Used [0-9]* registers' "$out/gemv_probe.resources.txt") kernels, $spills with spills)"
