#!/usr/bin/env bash
# Call 2 (nvidia-h200): the session copies an operand off the grid up to a 64th of the device's
# memory (64 MiB before). Every GPU test and compute-sanitizer (scripts/gpu-check --no-bench,
# CUTLASS left out), then the offsets probe at the shapes whose A passes 64 MiB, cuBLASLt's picks
# (OFFSET_PROBE_BACKENDS=cublaslt) and every family's, and PyTorch's for the same views.
set -u
. scripts/gpu-call-env
GPU_CHECK_CUTLASS=0 OUT="$work/gpu-check" timeout 420 scripts/gpu-check --no-bench >"$work/gpu-check.log" 2>&1
echo "gpu-check rc=$?"; tail -25 "$work/gpu-check.log"
shapes="4096 4096 14336 8192 4096 14336 2048 4096 14336"
OFFSET_PROBE_BACKENDS=cublaslt timeout 120 build-gpu/bin/offset_calls_probe $shapes >"$work/cublaslt-offsets.csv" 2>"$work/cublaslt-offsets.err"
echo "offset_calls cublaslt rc=$?"; cat "$work/cublaslt-offsets.csv"
timeout 120 build-gpu/bin/offset_calls_probe 4096 4096 14336 >"$work/all-offsets.csv" 2>"$work/all-offsets.err"
echo "offset_calls all rc=$?"; cat "$work/all-offsets.csv"
timeout 60 python3 bench/probes/gpu-alignment/torch_offsets.py 8192 4096 14336 >"$work/torch-offsets.csv" 2>&1; cat "$work/torch-offsets.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
