#!/usr/bin/env bash
# Issue 30: stream-K for the swapped wgmma tiles at decode shapes whose grid ends in a partial wave.
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUBIN_CACHE=/tmp/cc; mkdir -p $GEMMTUNE_CUBIN_CACHE
R=build-gpu/bin/config_runner
cfgs() {
  local m=$1
  echo "cublaslt:rank=1"
  [ $m -le 16 ] && echo "skinny:bm=16 bn=32 bk=128 stages=2 warps=16 kw=8 splitk=1 a=group"
  echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 cm=1 cn=1 swap=1"
  echo "bm=128 bn=$m bk=64 stages=8 warps=12 gm=8 cm=1 cn=1 swap=1"
  echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 splitk=2 cm=1 cn=1 swap=1"
  echo "bm=128 bn=$m bk=64 stages=8 warps=12 gm=8 splitk=2 cm=1 cn=1 swap=1"
  echo "bm=64 bn=$m bk=64 stages=8 warps=8 gm=8 streamk=1 cm=1 cn=1 swap=1"
  echo "bm=128 bn=$m bk=64 stages=8 warps=12 gm=8 streamk=1 cm=1 cn=1 swap=1"
  echo "bm=256 bn=$m bk=64 stages=5 warps=12 gm=8 streamk=1 cm=1 cn=1 swap=1"
  echo "bm=64 bn=$m bk=64 stages=8 warps=12 gm=8 streamk=1 cm=1 cn=1 swap=1 pp=1"
}
S="32x14336x4096 64x14336x4096 16x14336x4096 32x4096x4096 64x4096x4096 32x4096x14336 64x4096x14336"
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  PROBE_LAUNCHES=1 $R wgmma $1 $2 $3 bf16 nt "${C[@]}" > /dev/null 2>$OUT/compile-$sh.err &
done; wait
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  echo "== $sh" >> $OUT/streamk.txt
  PROBE_ROUNDS=11 $R wgmma $1 $2 $3 bf16 nt "${C[@]}" >> $OUT/streamk.txt 2>&1
done
sed -e 's/ TFLOP\/s.*host//' $OUT/streamk.txt
