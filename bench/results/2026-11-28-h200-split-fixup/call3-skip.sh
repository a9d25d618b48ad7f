#!/usr/bin/env bash
# Where the split-k fix-up's time goes: the probe's template as it is, without the fix-up, and
# without its fence. Recorded in call 3 through a text patch of the template that made the same
# cut behind GT_PROBE_SKIP bits 8 and 16 (the headings of call3-skip.txt); the probe now makes it
# itself (WGMMA_PROBE_LEAVE_OUT, bench/probes/wgmma/kernels.cc).
set -u
cd "$(dirname "$0")/../../.."
SH="64x4096x4096,32x4096x4096,64x14336x4096,64x4096x14336"
CF="64.64.8.1.1.1.swap.k2 64.64.8.1.1.1.swap 128.64.8.2.1.1.swap 128.64.8.2.1.1.swap.k2 64.64.8.1.1.1.swap.k4 128.64.8.2.1.1.swap.k4 64.32.8.1.1.1.swap.k2"
for part in "" fixup fence ""; do
  echo "== left out: ${part:-nothing}" | tee -a $OUT/skip.txt
  WGMMA_PROBE_LEAVE_OUT=$part build/probes/wgmma_probe bench bf16 $SH $CF 2>&1 | tee -a $OUT/skip.txt
done
