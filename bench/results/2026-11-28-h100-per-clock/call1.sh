#!/usr/bin/env bash
# Issue 31 diagnosis: are the CUTLASS instances slower per clock, or held lower by the power cap?
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/deps:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export GEMMTUNE_CUTLASS_DIR=/tmp/cutlass; mkdir -p $GEMMTUNE_CUTLASS_DIR; tar -xJf build-gpu/deps/cutlass-headers.tar.xz -C $GEMMTUNE_CUTLASS_DIR
export XDG_CACHE_HOME=/tmp/cache
R=build-gpu/bin/config_runner; P=bench/probes/config_runner/power.sh
{ nvidia-smi; nvidia-smi -q -d POWER,CLOCK; } > $OUT/gpu.txt 2>&1
T0=$(date +%s)
S8A="bm=128 bn=256 bk=128 cm=1 cn=1"; S8B="bm=128 bn=256 bk=128 cm=2 cn=1"
BFA="bm=128 bn=256 bk=64 cm=1 cn=1"; BFB="bm=128 bn=256 bk=64 cm=2 cn=1"; BFC="bm=128 bn=128 bk=64 cm=1 cn=1 pp=1"
for c in "$S8A" "$S8B"; do PROBE_LAUNCHES=1 $R cutlass 1024 4096 4096 s8 nt "$c" > /dev/null 2>>$OUT/build.err & done
for c in "$BFA" "$BFB" "$BFC"; do PROBE_LAUNCHES=1 $R cutlass 1024 4096 4096 bf16 nt "$c" > /dev/null 2>>$OUT/build.err & done
wait
echo "cutlass builds: $(( $(date +%s) - T0 )) s" | tee $OUT/log.txt
WS8="bm=128 bn=256 bk=128 stages=4 warps=12 gm=8 cm=1 cn=1"
WBF="bm=128 bn=256 bk=64 stages=4 warps=12 gm=8 cm=1 cn=1"
WBF224="bm=128 bn=224 bk=64 stages=4 warps=12 gm=8 cm=1 cn=1"
{
echo "== interleaved (15 rounds of 200 calls)"
$R cublaslt 4096 14336 4096 s8 nt "algo=1" "cutlass:$S8A" "cutlass:$S8B" "wgmma:$WS8"
$R cublaslt 1024 14336 4096 bf16 nt "algo=1" "cutlass:$BFA" "cutlass:$BFB" "cutlass:$BFC" "wgmma:$WBF224" "wgmma:$WBF"
$R cublaslt 4096 4096 4096 bf16 nt "algo=1" "cutlass:$BFA" "cutlass:$BFB" "wgmma:$WBF"
echo "== each alone, clocks and power"
$P 4096 14336 4096 s8 nt "cublaslt:algo=1" "cutlass:$S8A" "cutlass:$S8B" "wgmma:$WS8" "cublaslt:algo=1"
$P 1024 14336 4096 bf16 nt "cublaslt:algo=1" "cutlass:$BFA" "cutlass:$BFC" "wgmma:$WBF224" "cublaslt:algo=1"
PROBE_ROUNDS=15 $P 8192 8192 8192 bf16 nt "cublaslt:algo=1" "cutlass:$BFB" "wgmma:$WBF" "cublaslt:algo=1"
} 2>&1 | tee -a $OUT/log.txt
echo "== ncu at base clocks, one launch each" | tee -a $OUT/log.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg.per_second
for spec in "cublaslt|algo=1|1024 14336 4096 bf16" "cutlass|$BFA|1024 14336 4096 bf16" "wgmma|$WBF224|1024 14336 4096 bf16" \
            "cublaslt|algo=1|4096 14336 4096 s8" "cutlass|$S8A|4096 14336 4096 s8" "wgmma|$WS8|4096 14336 4096 s8"; do
  IFS='|' read fam cfg shape <<< "$spec"
  echo "-- $fam $cfg $shape" >> $OUT/ncu.txt
  PROBE_LAUNCHES=3 timeout 120 $NCU --launch-skip 2 --launch-count 1 --metrics $M $R $fam $shape nt "$cfg" >> $OUT/ncu.txt 2>&1
done
grep -E "^-- |gpu__time|sm__throughput|tensor_op|dram__bytes|lts__t_bytes|per_second" $OUT/ncu.txt | tee -a $OUT/log.txt
echo "total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
