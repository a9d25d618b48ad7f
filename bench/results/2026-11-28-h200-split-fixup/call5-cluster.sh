#!/usr/bin/env bash
# Split clusters (reduce=cluster): the check matrix, the probe's timing against the workspace
# split and no fix-up at all, the library's launch tests, config_runner at the decode shapes.
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUBIN_CACHE=/tmp/cc; mkdir -p $GEMMTUNE_CUBIN_CACHE
( build/probes/wgmma_probe check 2>&1 | grep -E "passed|FAIL|wrong|error" | tail -30 ) > $OUT/check.txt 2>&1 &
R=build-gpu/bin/config_runner
cfgs() { local m=$1
  echo "cublaslt:rank=1"
  for s in 2 4; do
    echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 splitk=$s cm=1 cn=1 swap=1"
    echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 splitk=$s reduce=cluster cm=1 cn=1 swap=1"
    echo "bm=128 bn=$m bk=64 stages=6 warps=12 gm=8 splitk=$s reduce=cluster cm=1 cn=1 swap=1"
  done
  echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 splitk=8 reduce=cluster cm=1 cn=1 swap=1"
  echo "bm=128 bn=$m bk=64 stages=8 warps=12 gm=8 cm=1 cn=1 swap=1"
}
S="64x4096x4096 32x4096x4096 16x4096x4096 64x4096x14336 32x4096x14336 64x14336x4096 32x14336x4096"
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  PROBE_LAUNCHES=1 $R wgmma $1 $2 $3 bf16 nt "${C[@]}" > /dev/null 2>$OUT/compile-$sh.err &
done; wait
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  echo "== $sh" >> $OUT/cluster.txt
  PROBE_ROUNDS=11 $R wgmma $1 $2 $3 bf16 nt "${C[@]}" 2>&1 | sed -e 's/ TFLOP\/s.*host//' >> $OUT/cluster.txt
done
for t in wgmma_launch_test overlapped_launch_test; do timeout 300 build-gpu/bin/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? $(tail -1 $OUT/$t.txt)"; done
cat $OUT/check.txt $OUT/cluster.txt
