#!/usr/bin/env bash
# A call on the nvidia-h200: the cublaslt family's new kernels (f32 partial sums, padded copies,
# a workspace per stream). The GPU tests of the cublaslt family and the padded and off-grid
# tests, compute-sanitizer over the new tests, cuBLASLt's algorithms alone on padded copies
# (the probe), then gemmtune against cuBLASLt (bench, same run) on the tn and nn shapes of
# 2026-12-01b and PyTorch's figures for the tn ones. Usage: call.sh NAME (the archive's name).
set -u
. bench/results/2026-12-01e-h200-cublaslt-padded/env.sh
timeout 240 build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.*:Gpu.TuningLists*:Gpu.OperandsWith*:Gpu.OperandsAtAny*:Gpu.OffGrid*:Gpu.TheHarness*' \
  >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^cublaslt:" "$work/gpu_test.log"
timeout 200 compute-sanitizer --tool memcheck build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.*' >"$work/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$work/memcheck.log" | tail -1
build-gpu/bin/cublaslt_padded_probe 300 1024 512 0 3 >"$work/probe.txt" 2>&1
for layout in tn nn; do
  timeout 150 build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --layout $layout --shapes $R/shapes-$layout.txt \
    --json --out "$work/bench-$layout.json" >"$work/bench-$layout.txt" 2>"$work/bench-$layout.log"; echo "bench $layout rc=$?"
  tail -14 "$work/bench-$layout.txt"
done
timeout 120 python3 bench/probes/gpu-padding/torch_misaligned.py >"$work/torch-misaligned.csv" 2>&1; cat "$work/torch-misaligned.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
