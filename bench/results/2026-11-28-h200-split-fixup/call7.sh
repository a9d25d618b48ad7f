#!/usr/bin/env bash
# After the retrain: the GPU check (tests, sanitizer, bf16 LLM sweep M <= 1024) and cold tunings
# with the new model at three decode shapes.
set -u
cd "$(dirname "$0")/../../.."
GPU_CHECK_DTYPES="bf16" GPU_CHECK_CUTLASS=0 GPU_CHECK_FAMILY="" OUT=$OUT/check timeout 420 scripts/gpu-check --quick > /tmp/check.log 2>&1; echo "gpu-check rc $?" >> /tmp/check.log
tail -40 /tmp/check.log > $OUT/check-tail.txt
LIVE_SHAPES="8,4096,4096 32,4096,4096 64,4096,14336" OUT=$OUT/live timeout 150 scripts/gpu-sweep --live > /tmp/live.log 2>&1; echo "live rc $?" >> /tmp/live.log
tail -3 /tmp/live.log >> $OUT/check-tail.txt
cat $OUT/check-tail.txt; cat $OUT/live/live.csv
