#!/usr/bin/env bash
# cuBLASLt's mid-m configurations (ncu-mid.txt) in our kernel, bf16 nt, H200
set -u
P=build/probes/wgmma_probe
run() { local S=$1; shift; for r in 1 2; do $P bench bf16 $S "$@" 2>&1 | grep -v -E 'compiled|ptxas|device:|at most'; done; }
run 300x6144x4096 64.256.4.2.1.1.pp 192.80.6.3.1.1.swap 192.80.6.3.1.2.swap 192.80.6.3.2.1.swap 192.80.5.3.1.1.swap 128.80.6.2.1.1.swap
run 256x6144x4096 128.96.6.2.1.1 128.96.6.2.1.2 128.96.6.2.2.1 128.96.7.2.1.2
run 300x4096x14336 64.152.8.1.1.1.swap 64.152.7.1.2.1.swap 64.152.8.1.2.1.swap 64.152.8.1.1.2.swap
run 512x4096x14336 64.256.4.2.1.1.pp 128.128.6.2.1.1 128.128.6.2.2.1 128.128.6.2.1.2
run 300x14336x4096 256.152.4.2.1.1.swap 256.152.4.2.2.1.swap 256.152.4.2.1.2.swap 192.152.4.3.1.1.swap
