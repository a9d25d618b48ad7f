#!/usr/bin/env bash
# Call 1 (nvidia-h200): 1b4a585 (OperandCopies: the copies of two operands in one buffer, one
# class for wgmma's padded copies, cuBLASLt's and the session's off-grid copies) on the GPU:
# gpu_test's padded, off-grid, multi-kernel, pad-copy and cuBLASLt tests in both GEMMTUNE_PDL
# modes that matter; wgmma_launch_test's padded, threads, misaligned and leading-dim tests;
# memcheck. Then cuBLASLt's picks with A 16 bytes off (its algorithm for that alignment, read in
# place) against one element off (copied onto the grid first) and aligned, over a sweep of m
# (offset_calls_probe with OFFSET_PROBE_BACKENDS=cublaslt), and PyTorch's for the same views.
set -u
. scripts/gpu-call-env
for pdl in on weights; do
  GEMMTUNE_PDL=$pdl timeout 200 build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.*:Gpu.OperandsWith*:Gpu.OperandsAtAny*:Gpu.OffGrid*:Gpu.AMultiKernel*:Gpu.ThePadCopy*' \
    >"$work/gpu_test-$pdl.log" 2>&1; echo "gpu_test PDL=$pdl rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/gpu_test-$pdl.log"
done
GEMMTUNE_WGMMA_TEST_CONFIGS=2 timeout 150 build-gpu/bin/wgmma_launch_test --gtest_filter='*Padded*:*Thread*:*Misaligned*:*LeadingDim*' \
  >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/wgmma_launch_test.log"
timeout 150 compute-sanitizer --tool memcheck build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.PaddedKernels*:Gpu.OffGrid*' \
  >"$work/memcheck.log" 2>&1; echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$work/memcheck.log" | tail -1
shapes="16 4096 14336 32 4096 14336 64 4096 14336 128 4096 14336 256 4096 14336 1024 4096 14336 4096 4096 14336 64 4096 4096 256 4096 4096 1024 4096 4096 4096 4096 4096"
OFFSET_PROBE_BACKENDS=cublaslt timeout 200 build-gpu/bin/offset_calls_probe $shapes >"$work/cublaslt-offsets.csv" 2>"$work/cublaslt-offsets.err"
echo "offset_calls rc=$?"; cat "$work/cublaslt-offsets.csv"
timeout 120 python3 bench/probes/gpu-alignment/torch_offsets.py $shapes >"$work/torch-offsets.csv" 2>&1; cat "$work/torch-offsets.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
