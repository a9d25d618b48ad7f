#!/usr/bin/env bash
# cuBLASLt's tile in our terms (128x176, 5 stages, cluster along m), bf16 nt, H200
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
P=build/probes/wgmma_probe
S=1024x14336x4096,2048x14336x4096,4096x4096x4096,1000x14336x4096
C="128.224.4.2.1.1 128.256.4.2.1.1 128.176.4.2.1.1 128.176.5.2.1.1 128.176.4.2.2.1 128.176.5.2.2.1 128.224.4.2.2.1 128.176.5.2.2.1.g16"
for r in 1 2; do $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas' | tee $OUT/c176-round$r.txt; done
