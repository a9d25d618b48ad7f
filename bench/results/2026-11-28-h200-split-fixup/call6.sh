#!/usr/bin/env bash
# Split clusters, final: the probe's check matrix, the launch tests, compute-sanitizer on a split
# cluster, a wgmma-only sweep for the cost model (the template's version changed), and the decode
# shapes with all choices against cuBLASLt.
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64
export GEMMTUNE_CUBIN_CACHE=/tmp/cc; mkdir -p $GEMMTUNE_CUBIN_CACHE
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/tests.txt
( build/probes/wgmma_probe check 2>&1 | grep -E -i "passed|FAIL|wrong|error" | tail -20 ) > /tmp/check.txt 2>&1 &
timeout 200 build-gpu/bin/wgmma_launch_test 2>&1 | tail -3 >> $OUT/tests.txt
timeout 100 build-gpu/bin/gpu_test --gtest_filter='*Wgmma*:*wgmma*:*StreamK*' 2>&1 | tail -3 >> $OUT/tests.txt
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer $tool" >> $OUT/tests.txt
  PROBE_LAUNCHES=2 timeout 120 compute-sanitizer --tool $tool build-gpu/bin/config_runner wgmma 40 1000 1040 bf16 nt \
    "bm=64 bn=40 bk=64 stages=8 warps=8 gm=8 splitk=2 reduce=cluster swap=1" 2>&1 | tail -3 >> $OUT/tests.txt
done
wait; cat /tmp/check.txt >> $OUT/tests.txt
export LD_LIBRARY_PATH=$PWD/build-gpu-kit/deps:/usr/local/cuda/lib64
mkdir -p /tmp/sw
OUT=/tmp/sw BACKENDS=wgmma TRAIN_CONFIGS=32 HELDOUT_M="32 300 1000 3000" HELDOUT_CONFIGS=40 scripts/gpu-sweep --minutes 5 > /tmp/sw/sweep.log 2>&1; echo "sweep rc $?" >> /tmp/sw/sweep.log
tail -4 /tmp/sw/sweep.log
tar -czf $OUT/sweep.tgz -C /tmp/sw .
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64
printf "1 4096 4096\n8 4096 4096\n16 4096 4096\n32 4096 4096\n64 4096 4096\n16 14336 4096\n32 14336 4096\n64 14336 4096\n16 4096 14336\n32 4096 14336\n64 4096 14336\n" > /tmp/decode.txt
GEMMTUNE_CACHE=off build-gpu/bin/gemmtune bench --device cuda --dtype bf16 --shapes /tmp/decode.txt --layout nt > $OUT/decode-bench.txt 2>/tmp/decode.err
tail -3 /tmp/decode.err >> $OUT/decode-bench.txt
cat $OUT/tests.txt $OUT/decode-bench.txt
