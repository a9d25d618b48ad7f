#!/usr/bin/env bash
# the ring's stage and phase kept as counters instead of it % stages (alt) against the template, bf16 nt, H200
set -u
P=build/probes/wgmma_probe
ALT=tmp-gpu/alt/gemm_wgmma.cuh
S=1024x14336x4096,4096x4096x4096,2048x14336x4096
C="128.176.4.2.1.1 128.176.5.2.1.1 128.128.4.2.1.1 128.128.6.2.1.1 128.256.4.2.1.1 128.128.6.2.1.1.pp"
( WGMMA_TEMPLATE=$ALT timeout 200 $P check 2>&1 | tail -3 ) | tee $OUT/ring-check.txt
for r in 1 2; do
  echo "== template"; $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas|device:|at most'
  echo "== alt"; WGMMA_TEMPLATE=$ALT $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas|device:|at most'
done | tee $OUT/ring-bench.txt
