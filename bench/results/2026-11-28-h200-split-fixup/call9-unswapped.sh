#!/usr/bin/env bash
# Split clusters on unswapped tiles (the default space keeps the workspace there): each split-2
# config beside its cluster twin, at the shapes where unswapped splits are offered.
set -u
cd "$(dirname "$0")/../../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUBIN_CACHE=/tmp/cc; mkdir -p $GEMMTUNE_CUBIN_CACHE
R=build-gpu/bin/config_runner
twin() { echo "$1"; echo "$2 reduce=cluster"; }
cfgs() { case $1 in
  64) twin "bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 splitk=2" "bm=64 bn=64 bk=64 stages=8 warps=8 gm=8 splitk=2";;
  128) twin "bm=128 bn=64 bk=64 stages=8 warps=12 gm=8 splitk=2" "bm=128 bn=64 bk=64 stages=8 warps=12 gm=8 splitk=2"
       twin "bm=64 bn=128 bk=64 stages=8 warps=8 gm=8 splitk=2" "bm=64 bn=128 bk=64 stages=6 warps=8 gm=8 splitk=2";;
  256) twin "bm=128 bn=128 bk=64 stages=6 warps=12 gm=8 splitk=2" "bm=128 bn=128 bk=64 stages=4 warps=12 gm=8 splitk=2"
       twin "bm=128 bn=256 bk=64 stages=4 warps=12 gm=8 splitk=2" "bm=128 bn=256 bk=64 stages=2 warps=12 gm=8 splitk=2";;
  512) twin "bm=128 bn=256 bk=64 stages=4 warps=12 gm=8 splitk=2" "bm=128 bn=256 bk=64 stages=2 warps=12 gm=8 splitk=2"
       twin "bm=128 bn=128 bk=64 stages=6 warps=12 gm=8 splitk=2" "bm=128 bn=128 bk=64 stages=4 warps=12 gm=8 splitk=2";;
esac; }
S="64x4096x4096 128x4096x4096 256x4096x4096 512x4096x14336 256x4096x14336"
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  PROBE_LAUNCHES=1 $R wgmma $1 $2 $3 bf16 nt "${C[@]}" > /dev/null 2>&1 &
done; wait
for sh in $S; do set -- ${sh//x/ }; mapfile -t C < <(cfgs $1)
  echo "== $sh" >> $OUT/unswapped.txt
  PROBE_ROUNDS=11 $R wgmma $1 $2 $3 bf16 nt "cublaslt:rank=1" "${C[@]}" 2>&1 | sed -e 's/ TFLOP\/s.*host//' >> $OUT/unswapped.txt
done
cat $OUT/unswapped.txt
