#!/usr/bin/env bash
# Call 6 (nvidia-h200): cuBLASLt's algorithms on padded copies as choices too (kernel=padded; a change
# taken out again after this call, see the .md).
# The GPU tests (among them the padded choices of both families against the reference), then
# gemmtune against cuBLASLt on the same shapes as calls 4 and 5.
set -u
. bench/results/2026-12-01b-h200-padded-operands/env.sh
timeout 100 build-gpu/bin/gpu_test >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Unaligned" "$work/gpu_test.log"
GEMMTUNE_WGMMA_TEST_CONFIGS=2 timeout 60 build-gpu/bin/wgmma_launch_test --gtest_filter='*PaddedCopies*:*EveryLayout*' \
  >"$work/wgmma_launch_test.log" 2>&1; echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$work/wgmma_launch_test.log"
for layout in tn nn; do
  timeout 100 build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --layout $layout --shapes $R/shapes-$layout.txt \
    --json --out "$work/bench-$layout.json" >/dev/null 2>"$work/bench-$layout.log"; echo "bench $layout rc=$?"
done
tar -czf "$OUT/call6.tgz" -C "$work" .
