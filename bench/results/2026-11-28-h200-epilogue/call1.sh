#!/usr/bin/env bash
# Where the wgmma kernel's time goes: each part left out in turn (GT_PROBE_SKIP 1 wgmma, 2 loads, 4 epilogue).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
P=build/probes/wgmma_probe
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $OUT/gpu.txt 2>&1
T0=$(date +%s)
SH=1024x14336x4096,8192x14336x4096,4096x4096x4096
CF="128.224.4.2.1.1 128.256.4.2.1.1 128.256.4.2.2.1 128.256.4.2.1.2"
for s in 0 1 2 4 6; do echo "== bf16 skip $s"; WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$s $P bench bf16 $SH $CF 2>&1 | grep -v "^compiled\|ptxas"; done 2>&1 | tee $OUT/log.txt
for s in 0 1 2 6; do echo "== s8 skip $s"; WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$s $P bench s8 4096x14336x4096 128.256.4.2.1.1 128.256.4.2.2.1 2>&1 | grep -v "^compiled\|ptxas"; done 2>&1 | tee -a $OUT/log.txt
echo "probe total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,dram__bytes_read.sum,sm__cycles_elapsed.avg.per_second,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
for s in 0 1 2; do
  echo "-- skip $s 128.224 1024x14336x4096" >> $OUT/ncu.txt
  WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$s timeout 150 $NCU --clock-control none -k gemmtune_gemm_wgmma --launch-skip 5 --launch-count 1 --metrics $M $P bench bf16 1024x14336x4096 128.224.4.2.1.1 >> $OUT/ncu.txt 2>&1
done
grep -E "^-- |gpu__time|tensor_op|lts__|dram__|per_second|l1tex" $OUT/ncu.txt | tee -a $OUT/log.txt
echo "total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
