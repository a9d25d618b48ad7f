#!/usr/bin/env bash
# Call 5 (nvidia-h200): what ships, at the end of the session. gpu_test and wgmma_launch_test in
# full, compute-sanitizer memcheck over gpu_test, and pad_copy_chunks_probe once more (its
# "before" chunk now worked out as for a copy at the caller's own pitch).
set -u
. bench/results/2026-12-01e-h200-cublaslt-padded/env.sh
timeout 300 build-gpu/bin/gpu_test >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^cublaslt:" "$work/gpu_test.log"
timeout 200 build-gpu/bin/wgmma_launch_test >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/wgmma_launch_test.log"
timeout 200 compute-sanitizer --tool memcheck build-gpu/bin/gpu_test --gtest_filter='-*Worker*' >"$work/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$work/memcheck.log" | tail -1
build-gpu/bin/pad_copy_chunks_probe >"$work/pad-copy-chunks.csv" 2>&1; cat "$work/pad-copy-chunks.csv"
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
