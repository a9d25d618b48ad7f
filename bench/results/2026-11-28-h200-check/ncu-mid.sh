#!/usr/bin/env bash
# which kernel (tile, cluster, split) cuBLASLt's first pick runs at the mid-m shapes, bf16 nt, H200
set -u
P=build/probes/wgmma_probe
for S in 300x6144x4096 256x6144x4096 300x14336x4096 300x4096x14336 512x4096x14336 256x4096x14336; do
  echo "== $S"
  ncu --clock-control none --launch-count 3 --kernel-name regex:'^(?!gemmtune).*' --section LaunchStats \
    $P bench bf16 $S 64.64.8.1.1.1 2>&1 | grep -E '^  [a-zA-Z_].*\(|Grid Size|Cluster Size|Registers Per|Block Size|Shared Memory Config|Dynamic Shared' | head -12
done
