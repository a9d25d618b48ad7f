#!/usr/bin/env bash
# The retrained model live (cold tunings, default space and --fast), then the GPU tests and sanitizers.
set -u
T0=$(date +%s)
mkdir -p $OUT/live
OUT=$OUT/live scripts/gpu-sweep --live > $OUT/live-run.txt 2>&1; echo "live rc $?" >> $OUT/live-run.txt
grep -h "cost model" $OUT/live/live-*-fast.json | head -3 >> $OUT/live-run.txt
(cd $OUT/live && tar czf ../live-tunings.tgz live-*.json live.log 2>/dev/null)
cat $OUT/live-run.txt; echo "live $(( $(date +%s) - T0 )) s"
GPU_CHECK_CUTLASS=0 timeout 330 scripts/gpu-check --quick --no-bench > $OUT/gpu-check.txt 2>&1; echo "gpu-check rc $?"
tail -25 $OUT/gpu-check.txt
echo "total $(( $(date +%s) - T0 )) s"
