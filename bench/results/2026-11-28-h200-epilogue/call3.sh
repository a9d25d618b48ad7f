#!/usr/bin/env bash
# The tail map: correctness (probe check, wgmma_launch_test) and old/new timing, alternated.
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_CACHE_HOME=/tmp/cache
T0=$(date +%s)
SH=1024x14336x4096,1000x14336x4096,512x14336x4096,4096x4096x4096
CF="128.224.4.2.1.1 128.176.4.2.1.1 128.96.6.2.1.1 128.256.4.2.1.1"
for r in 1 2; do
  echo "== old $r"; WGMMA_TEMPLATE=tmp-gpu/old/gemm_wgmma.cuh tmp-gpu/old/wgmma_probe bench bf16 $SH $CF 2>&1 | grep -v "^compiled\|ptxas"
  echo "== new $r"; build/probes/wgmma_probe bench bf16 $SH $CF 2>&1 | grep -v "^compiled\|ptxas"
done 2>&1 | tee $OUT/log.txt
echo "== f32 out (tf32) new vs old" | tee -a $OUT/log.txt
echo "timing $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
build/probes/wgmma_probe check > $OUT/check.txt 2>&1; echo "probe check rc $?" | tee -a $OUT/log.txt; grep -v "^compiled\|ptxas" $OUT/check.txt | tail -5 | tee -a $OUT/log.txt
build-gpu/bin/wgmma_launch_test > $OUT/launch-test.txt 2>&1; echo "wgmma_launch_test rc $?" | tee -a $OUT/log.txt
grep -E "^\[  (PASSED|FAILED)|^\[  FAILED|OK \]|FAILED \]" $OUT/launch-test.txt | tail -30 | tee -a $OUT/log.txt
echo "total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
