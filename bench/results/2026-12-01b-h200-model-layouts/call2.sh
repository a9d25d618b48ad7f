#!/usr/bin/env bash
# Call 2 (nvidia-h200-x2, warm): the bf16 tn sweep again (call 1's did not come back: the device
# tool returns a few files, so everything now comes back as one archive) beside f16 nn.
set -u
mkdir -p build-gpu-kit && tar -xJf build-gpu/pack.tar.xz -C build-gpu-kit bin/gemmtune bin/gemmtune-worker deps || exit 1
work=$(mktemp -d)
run() {  # run GPU DTYPE LAYOUT
  CUDA_VISIBLE_DEVICES=$1 DTYPE=$2 LAYOUT=$3 OUT=$work/$2-$3 GEMMTUNE_CUBIN_CACHE=/tmp/cubins-$3 \
    TRAIN_M="1 8 16 64 128 512 1024 2048 4096" HELDOUT_M="32 100 300 1000 3000" \
    TRAIN_CONFIGS=40 HELDOUT_CONFIGS=48 scripts/gpu-sweep --minutes 9 >"$work/sweep-$2-$3.log" 2>&1
}
run 1 bf16 tn &
run 0 f16 nn &
wait
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv >"$work/gpu.txt"
for log in "$work"/sweep-*.log; do tail -2 "$log"; done
gzip "$work"/*/*.csv
tar -czf "$OUT/call2.tgz" -C "$work" .
