#!/usr/bin/env bash
# Call 8 (nvidia-h200): a small operand read where it lies by the TMA families (up to half a
# MiB, from 16 bytes up) instead of copied onto the 256-byte grid. The off-grid tests, then
# Session::gemm with A 16 bytes and one element off at decode shapes whose A is 459 KB, 917 KB
# and 1.8 MB (offset_calls_probe), and PyTorch's figures for the first (torch_offsets.py).
set -u
. bench/results/2026-12-01e-h200-cublaslt-padded/env.sh
timeout 100 build-gpu/bin/gpu_test --gtest_filter='Gpu.OperandsAtAny*:Gpu.OffGrid*:Gpu.AMultiKernel*' >"$work/gpu_test.log" 2>&1
echo "gpu_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/gpu_test.log"
timeout 100 build-gpu/bin/offset_calls_probe 16 4096 14336 32 4096 14336 64 4096 14336 >"$work/gemmtune-1.csv" 2>"$work/gemmtune-1.err"
echo "offset_calls rc=$?"; cat "$work/gemmtune-1.csv"
timeout 60 python3 bench/probes/gpu-alignment/torch_offsets.py 16 4096 14336 >"$work/torch-1.csv" 2>&1; cat "$work/torch-1.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
