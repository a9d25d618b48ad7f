#!/usr/bin/env bash
# Issue 29/31: cuBLASLt's wave-fitted tiles (176 wide at 1024x14336, swapped 256x144 at 1000 and
# 3000 rows; 128x128 ping-pong for s8) against ours, and CUTLASS instances of those widths.
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass; mkdir -p $GEMMTUNE_CUTLASS_DIR; tar -xJf build-gpu/deps/cutlass-headers.tar.xz -C $GEMMTUNE_CUTLASS_DIR
export XDG_CACHE_HOME=/tmp/cache
R=build-gpu/bin/config_runner
nvidia-smi > $OUT/gpu.txt 2>&1
T0=$(date +%s)
C256="bm=128 bn=256 bk=64 cm=1 cn=1"; C224="bm=128 bn=224 bk=64 cm=1 cn=1"; C176="bm=128 bn=176 bk=64 cm=1 cn=1"
CS8PP="bm=128 bn=128 bk=128 cm=1 cn=1 pp=1"; CS8="bm=128 bn=256 bk=128 cm=2 cn=1"
for c in "$C256" "$C224" "$C176"; do PROBE_LAUNCHES=1 $R cutlass 1024 4096 4096 bf16 nt "$c" > /dev/null 2>>$OUT/build.err & done
for c in "$CS8PP" "$CS8"; do PROBE_LAUNCHES=1 $R cutlass 1024 4096 4096 s8 nt "$c" > /dev/null 2>>$OUT/build.err & done
wait
echo "cutlass builds: $(( $(date +%s) - T0 )) s" | tee $OUT/log.txt
W="bk=64 warps=12 gm=8 cm=1 cn=1"
{
for rep in 1 2; do
echo "== repeat $rep"
$R cublaslt 1024 14336 4096 bf16 nt "algo=1" "wgmma:bm=128 bn=224 stages=4 $W" "wgmma:bm=128 bn=176 stages=5 $W" "wgmma:bm=128 bn=176 stages=4 $W" \
   "cutlass:$C256" "cutlass:$C224" "cutlass:$C176"
$R cublaslt 1000 14336 4096 bf16 nt "algo=1" "wgmma:bm=128 bn=224 stages=4 $W" "wgmma:bm=256 bn=144 stages=4 $W swap=1" "wgmma:bm=128 bn=176 stages=5 $W"
$R cublaslt 3000 14336 4096 bf16 nt "algo=1" "wgmma:bm=128 bn=192 stages=4 $W" "wgmma:bm=256 bn=144 stages=4 $W swap=1" "wgmma:bm=128 bn=176 stages=5 $W"
$R cublaslt 512 14336 4096 bf16 nt "algo=1" "wgmma:bm=128 bn=224 stages=4 $W" "cutlass:$C256" "cutlass:$C224" "cutlass:$C176"
$R cublaslt 256 6144 4096 bf16 nt "algo=1" "wgmma:bm=128 bn=96 stages=6 $W" "wgmma:bm=128 bn=64 stages=8 $W swap=1" "wgmma:bm=128 bn=128 stages=6 $W swap=1"
$R cublaslt 4096 14336 4096 s8 nt "algo=1" "wgmma:bm=128 bn=128 bk=128 stages=6 warps=12 gm=8 cm=1 cn=1 pp=1" "wgmma:bm=128 bn=256 bk=128 stages=4 warps=12 gm=8 cm=1 cn=1" "cutlass:$CS8PP" "cutlass:$CS8"
$R cublaslt 4096 4096 4096 s8 nt "algo=1" "wgmma:bm=128 bn=128 bk=128 stages=6 warps=12 gm=8 cm=1 cn=1 pp=1" "wgmma:bm=128 bn=256 bk=128 stages=4 warps=12 gm=8 cm=1 cn=1" "cutlass:$CS8PP" "cutlass:$CS8"
done
} 2>&1 | tee -a $OUT/log.txt
echo "total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
