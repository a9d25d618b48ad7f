#!/usr/bin/env bash
# stages against time: is it the shared memory taken or the ring's modulo? bf16 nt, H200
set -u
P=build/probes/wgmma_probe
S=1024x14336x4096,4096x4096x4096
C="128.176.3.2.1.1 128.176.4.2.1.1 128.176.5.2.1.1 128.128.4.2.1.1 128.128.5.2.1.1 128.128.6.2.1.1 128.256.3.2.1.1 128.256.4.2.1.1 128.176.4.2.1.1.direct 128.176.5.2.1.1.direct"
for r in 1 2; do $P bench bf16 $S $C 2>&1 | grep -v -E 'compiled|ptxas|device:|at most'; done
