#!/usr/bin/env bash
# Call 6 (nvidia-h200): padded copies in one buffer of the device's (padded_copies_buffer), for
# wgmma's and cuBLASLt's padded kernels. The padded and cublaslt tests of gpu_test (the new one:
# six padded kernels of three problems from six streams at once), in both GEMMTUNE_PDL modes
# that matter (on, weights); wgmma_launch_test's padded, threads and misaligned tests; memcheck.
set -u
. bench/results/2026-12-01e-h200-cublaslt-padded/env.sh
for pdl in on weights; do
  GEMMTUNE_PDL=$pdl timeout 150 build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.*:Gpu.OperandsWith*:Gpu.OffGrid*' \
    >"$work/gpu_test-$pdl.log" 2>&1; echo "gpu_test PDL=$pdl rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/gpu_test-$pdl.log"
done
GEMMTUNE_WGMMA_TEST_CONFIGS=2 timeout 120 build-gpu/bin/wgmma_launch_test --gtest_filter='*Padded*:*Thread*:*Misaligned*:*LeadingDim*' \
  >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/wgmma_launch_test.log"
timeout 120 compute-sanitizer --tool memcheck build-gpu/bin/gpu_test --gtest_filter='GpuCublasLt.PaddedKernels*' \
  >"$work/memcheck.log" 2>&1; echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$work/memcheck.log" | tail -1
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
