#!/usr/bin/env bash
# Where the split-k fix-up's time goes: the template with the fix-up left out (8) or its fence (16).
set -u
cd "$(dirname "$0")/../../.."
/usr/bin/env python3 bench/results/2026-11-28-h200-split-fixup/call3-patch-skip.py || exit 1
export WGMMA_TEMPLATE=src/backends/cuda/kernels/gemm_wgmma_skip.cuh
SH="64x4096x4096,32x4096x4096,64x14336x4096,64x4096x14336"
CF="64.64.8.1.1.1.swap.k2 64.64.8.1.1.1.swap 128.64.8.2.1.1.swap 128.64.8.2.1.1.swap.k2 64.64.8.1.1.1.swap.k4 128.64.8.2.1.1.swap.k4 64.32.8.1.1.1.swap.k2"
for skip in 0 8 16 0; do
  echo "== GT_PROBE_SKIP=$skip" | tee -a $OUT/skip.txt
  WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$skip build/probes/wgmma_probe bench bf16 $SH $CF 2>&1 | tee -a $OUT/skip.txt
done
