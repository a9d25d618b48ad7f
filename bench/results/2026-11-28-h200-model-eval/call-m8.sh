#!/usr/bin/env bash
# m = 8 as a training shape: sweep every family (but CUTLASS) at m = 8 of the four (N, K), train
# the model on the merged sweeps plus these, and tune three decode shapes cold with it.
set -u
cd "$(dirname "$0")/../../.."
# The merged sweep of 2026-11-28-h200-split-fixup's call 6, carried as an untracked file then.
zcat bench/results/2026-11-28-h200-model-eval/train.csv.gz > /tmp/merged-train.csv
export LD_LIBRARY_PATH=$PWD/build-gpu-kit/deps:/usr/local/cuda/lib64
mkdir -p /tmp/sw8
OUT=/tmp/sw8 SETS=train TRAIN_M=8 TRAIN_CONFIGS=32 scripts/gpu-sweep --minutes 3 > /tmp/sw8/sweep.log 2>&1; echo "sweep rc $?" >> /tmp/sw8/sweep.log
tail -3 /tmp/sw8/sweep.log
cp /tmp/sw8/gpu-train.csv $OUT/gpu-train-m8.csv; cp /tmp/sw8/sweep.log $OUT/sweep-m8.log
build-gpu-kit/bin/gemmtune model train --data /tmp/merged-train.csv,/tmp/sw8/gpu-train.csv --out data/models/cuda-sm_90a-132sm.json 2>&1 | tail -2
cp data/models/cuda-sm_90a-132sm.json $OUT/
LIVE_SHAPES="8,4096,4096 8,14336,4096 16,4096,14336" OUT=$OUT/live timeout 100 scripts/gpu-sweep --live > /tmp/live.log 2>&1; echo "live rc $?"
cat $OUT/live/live.csv
