#!/usr/bin/env bash
# stream-K on the swapped tiles of mid m (256-512 rows), bf16 nt, H200
set -u
P=build/probes/wgmma_probe
$P streamk 128.152.4.2.1.1.swap 64.152.8.1.1.1.swap 256.152.4.2.1.1.swap 2>&1 | grep -v -E 'compiled|ptxas' | tee $OUT/midm-streamk.txt
S=300x6144x4096,256x6144x4096,300x14336x4096,300x4096x14336,512x4096x14336,256x4096x14336
C="64.256.4.2.1.1.pp 128.152.4.2.1.1.swap 128.152.4.2.1.1.swap.sk 64.152.8.1.1.1.swap 64.152.8.1.1.1.swap.sk 256.152.4.2.1.1.swap.sk 128.192.4.2.1.1.sk 128.256.4.2.1.1.sk"
for r in 1 2; do $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas' | tee $OUT/midm-round$r.txt; done
