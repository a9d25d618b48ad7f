#!/usr/bin/env bash
# A device call (nvidia-h200): bf16 tn training shapes whose A columns are not 16-byte multiples
# at every size (m = 52, 180, 620, 2020; N, K of the LLM sweep), every family as in the model's
# other training sweeps (40 configs of each), so that the model sees cuBLASLt's and wgmma's
# padded choices win or lose beyond m = 1.
set -u
work=$(mktemp -d)
DTYPE=bf16 LAYOUT=tn TRAIN_M="52 180 620 2020" SETS=train TRAIN_CONFIGS=40 OUT="$work" \
  GEMMTUNE_CUBIN_CACHE=/tmp/cubins scripts/gpu-sweep --minutes 8 >"$work/sweep.log" 2>&1
echo "rc=$?"; tail -2 "$work/sweep.log"
rm -f "$work"/*-shapes.txt
tar -czf "$OUT/${1:-call}.tgz" -C "$work" .
