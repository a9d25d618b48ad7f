#!/usr/bin/env bash
# wave-fitted widths of the 128-row cooperative tile, bf16 nt, H200
set -u
P=build/probes/wgmma_probe
S=1024x14336x4096,1000x14336x4096,2048x14336x4096,3000x14336x4096,512x14336x4096,4096x4096x4096,1024x6144x4096,2048x4096x14336
C="128.256.4.2.1.1 128.224.4.2.1.1 128.208.4.2.1.1 128.192.4.2.1.1 128.176.4.2.1.1 128.160.4.2.1.1 128.144.4.2.1.1"
for r in 1 2; do $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas' | tee $OUT/widths-round$r.txt; done
