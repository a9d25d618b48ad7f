#!/usr/bin/env bash
# After the rename (kernel/rank fields, the mma family's files): the GPU tests and the quick
# check, and --fast with the shipped H100 model (trained on the legacy feature cfg_algo).
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CACHE=off
for m in 300 1000; do
  build-gpu/bin/gemmtune tune --device cuda --dtype bf16 --layout nt --m $m --n 4096 --k 4096 --fast 2>&1 | tail -4
done | tee $OUT/fast.txt
GPU_CHECK_NK=4096x4096 GPU_CHECK_CUTLASS=0 GPU_CHECK_FAMILY="" scripts/gpu-check --quick 2>&1 | tail -80
