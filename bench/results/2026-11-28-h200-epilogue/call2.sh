#!/usr/bin/env bash
# Where the wgmma kernel's time goes, take 2: the epilogue left out with the accumulators kept (skip 4).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
P=build/probes/wgmma_probe
T0=$(date +%s)
SH=1024x14336x4096,4096x4096x4096
CF="128.224.4.2.1.1 128.256.4.2.1.1 128.224.4.2.1.1.d0"
for s in 0 2 4 6; do echo "== bf16 skip $s"; WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$s $P bench bf16 $SH $CF 2>&1 | grep -v "^compiled\|ptxas"; done 2>&1 | tee $OUT/log.txt
echo "probe total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum
for s in 0 2 4 6; do
  echo "-- skip $s 128.224 1024x14336x4096" >> $OUT/ncu.txt
  WGMMA_PROBE_EXTRA=-DGT_PROBE_SKIP=$s timeout 150 $NCU --clock-control none -k gemmtune_gemm_wgmma --launch-skip 5 --launch-count 1 --metrics $M $P bench bf16 1024x14336x4096 128.224.4.2.1.1 >> $OUT/ncu.txt 2>&1
done
grep -E "^-- |gpu__time|tensor_op|per_second|l1tex|inst_exec" $OUT/ncu.txt | tee -a $OUT/log.txt
echo "-- warp states, full kernel" >> $OUT/ncu-ws.txt
timeout 150 $NCU --clock-control none -k gemmtune_gemm_wgmma --launch-skip 5 --launch-count 1 --section WarpStateStats --section SchedulerStats $P bench bf16 1024x14336x4096 128.224.4.2.1.1 >> $OUT/ncu-ws.txt 2>&1
grep -E "Stall|stall|Warp Cycles|Issued|Eligible|Active Warps|No Eligible|One or More" $OUT/ncu-ws.txt | head -40 | tee -a $OUT/log.txt
echo "total $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
