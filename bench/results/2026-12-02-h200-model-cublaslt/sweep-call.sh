#!/usr/bin/env bash
# A device call (nvidia-h200): cuBLASLt's choices swept again, alone (BACKENDS=cublaslt), over
# the shapes of every sweep the shipped GPU model was trained on (SETS=train) or is scored on
# (SETS=heldout), so that scripts/sweep-replace-rows can put them in place of the rows of
# cuBLASLt's old version (before its choices kept f32 partial sums and padded unaligned rows).
#   bash sweep-call.sh train|heldout NAME
set -u
which=$1
work=$(mktemp -d)
deadline=$(( $(date +%s) + ${BUDGET_S:-500} ))
run() {  # DTYPE LAYOUT TRAIN_M HELDOUT_M DIR
  local left=$(( (deadline - $(date +%s)) / 60 ))
  [ "$left" -ge 1 ] || { echo "no time left for $1 $2"; return; }
  mkdir -p "$work/$5"
  BACKENDS=cublaslt DTYPE=$1 LAYOUT=$2 TRAIN_M=$3 HELDOUT_M=$4 SETS=$which OUT="$work/$5" \
    scripts/gpu-sweep --minutes "$left" >"$work/$5/$1-$2.out" 2>&1
  echo "$1 $2 ($5): rc=$? $(date +%T)"
}
run bf16 nt "1 16 64 128 512 1024 2048 4096" "32 300 1000 3000" bf16-nt
run bf16 nt "8" "8" bf16-nt-m8
run f16 nt "1 8 16 64 128 512 1024 2048 4096" "32 100 300 1000 3000" f16-nt
run s8 nt "1 8 16 64 128 512 1024 2048 4096" "32 100 300 1000 3000" s8-nt
run bf16 nn "1 8 16 64 128 512 1024 2048 4096" "32 100 300 1000 3000" bf16-nn
run bf16 tn "1 8 16 64 128 512 1024 2048 4096" "32 100 300 1000 3000" bf16-tn
run f16 nn "1 8 16 64 128 512 1024 2048 4096" "32 100 300 1000 3000" f16-nn
find "$work" -name '*.csv' | xargs -r wc -l | tail -1
tar -czf "$OUT/${2:-call}.tgz" -C "$work" .
