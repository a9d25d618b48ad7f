#!/usr/bin/env bash
# Calls 4 and 5 (nvidia-h200): operands TMA cannot address, read from padded copies (call 4:
# copied by cudaMemcpy2DAsync; call 5: by kernels/pad_copy.cuh). Usage: call.sh NAME (the archive). The wgmma launch
# tests and the GPU tests, compute-sanitizer over the new test, then gemmtune against cuBLASLt
# (bench, same run) on tn shapes with lda = m (100, 300, 37: not 16-byte multiples; 1000 is)
# and nn shapes with ldb = 4100; PyTorch's figures for the same tn shapes.
set -u
. bench/results/2026-12-01b-h200-padded-operands/env.sh
timeout 200 build-gpu/bin/wgmma_launch_test >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|PaddedCopies" "$work/wgmma_launch_test.log"
GEMMTUNE_WGMMA_TEST_CONFIGS=1 timeout 120 compute-sanitizer --tool memcheck build-gpu/bin/wgmma_launch_test \
  --gtest_filter='*PaddedCopies*' >"$work/sanitizer.log" 2>&1; echo "sanitizer rc=$?"; tail -3 "$work/sanitizer.log"
for layout in tn nn; do
  timeout 120 build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --layout $layout --shapes $R/shapes-$layout.txt \
    --json --out "$work/bench-$layout.json" >"$work/bench-$layout.txt" 2>"$work/bench-$layout.log"; echo "bench $layout rc=$?"
done
python3 bench/probes/gpu-padding/torch_misaligned.py >"$work/torch-misaligned.csv" 2>&1
timeout 100 build-gpu/bin/gpu_test >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/gpu_test.log"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
