#!/usr/bin/env bash
# Call 3 (nvidia-h200): the pad-copy kernel's 16-byte shifted chunks. The copy's own test and
# memcheck over it, the off-grid, padded and cublaslt tests, wgmma's padded and misaligned
# launch tests; the copy alone by chunk (pad_copy_chunks_probe, before and after in one
# process); Session::gemm with A off the grid (offset_calls_probe, two runs) and PyTorch's
# figures for the same views (torch_offsets.py). Usage: call3.sh NAME (the archive's name).
set -u
. bench/results/2026-12-01e-h200-cublaslt-padded/env.sh
timeout 200 build-gpu/bin/gpu_test --gtest_filter='Gpu.ThePadCopy*:Gpu.OperandsAtAny*:Gpu.OffGrid*:Gpu.AMultiKernel*:Gpu.OperandsWith*:GpuCublasLt.*' \
  >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^cublaslt:" "$work/gpu_test.log"
timeout 150 compute-sanitizer --tool memcheck build-gpu/bin/gpu_test --gtest_filter='Gpu.ThePadCopy*:Gpu.OperandsAtAny*' \
  >"$work/memcheck.log" 2>&1; echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$work/memcheck.log" | tail -1
GEMMTUNE_WGMMA_TEST_CONFIGS=2 timeout 150 build-gpu/bin/wgmma_launch_test --gtest_filter='*Padded*:*Misaligned*:*LeadingDim*' \
  >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/wgmma_launch_test.log"
build-gpu/bin/pad_copy_chunks_probe >"$work/pad-copy-chunks.csv" 2>&1; cat "$work/pad-copy-chunks.csv"
shapes="16 4096 4096 300 4096 4096 4096 4096 4096 16 4096 14336 1 4096 4096"
for run in 1 2; do
  timeout 120 build-gpu/bin/offset_calls_probe $shapes >"$work/gemmtune-$run.csv" 2>"$work/gemmtune-$run.err"; echo "offset_calls $run rc=$?"
done
cat "$work/gemmtune-1.csv"
timeout 120 python3 bench/probes/gpu-alignment/torch_offsets.py $shapes >"$work/torch-1.csv" 2>&1; cat "$work/torch-1.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
