#!/usr/bin/env bash
# ping-pong 128x144/152 against the cooperative picks, bf16 nt, H200/H100
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
P=build/probes/wgmma_probe
S=1024x14336x4096,2048x14336x4096,4096x4096x4096,512x14336x4096,4096x14336x4096,8192x8192x8192
C="128.256.4.2.1.1 128.224.4.2.1.1 128.256.4.2.2.1 128.144.5.2.1.1.pp 128.144.5.2.2.1.pp 128.152.5.2.1.1.pp 128.128.6.2.1.1.pp"
$P bench bf16 $S $C 2>&1 | tee $OUT/pp-round1.txt
$P bench bf16 1024x14336x4096,4096x4096x4096 $C 2>&1 | tee $OUT/pp-round2.txt
