#!/usr/bin/env bash
# Call 7 (nvidia-h200): after the review's mend (the maps before the copies, every turn given
# back, a map refused for a padded operand's caller rows) and the compressed model files: the
# GPU tests, the padded and layout launch tests, overlapped launches (PDL, also with the
# weights loading first), and a --fast tuning with the shipped model, now of version 2.
set -u
. bench/results/2026-12-01b-h200-padded-operands/env.sh
timeout 60 build-gpu/bin/gpu_test >"$work/gpu_test.log" 2>&1; echo "gpu_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/gpu_test.log"
GEMMTUNE_WGMMA_TEST_CONFIGS=2 timeout 40 build-gpu/bin/wgmma_launch_test \
  --gtest_filter='*PaddedCopies*:*EveryLayout*:*AlphaBeta*' >"$work/wgmma_launch_test.log" 2>&1
echo "wgmma_launch_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$work/wgmma_launch_test.log"
timeout 25 build-gpu/bin/overlapped_launch_test >"$work/overlapped.log" 2>&1; echo "overlapped rc=$?"
GEMMTUNE_PDL=weights timeout 20 build-gpu/bin/overlapped_launch_test --gtest_filter='*AsItsATheOutput*' \
  >>"$work/overlapped.log" 2>&1; echo "overlapped weights rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$work/overlapped.log"
GEMMTUNE_MODEL_DIR=data/models timeout 20 build-gpu/bin/gemmtune tune --device cuda --dtype bf16 --layout tn \
  --m 300 --n 4096 --k 4096 --fast --json >"$work/fast-tn.json" 2>"$work/fast-tn.log"; echo "fast rc=$?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["selection"]); b=d["best"]; print(b["backend"], b["config"], round(b["time_us"],1))' "$work/fast-tn.json"
tar -czf "$OUT/call7.tgz" -C "$work" .
